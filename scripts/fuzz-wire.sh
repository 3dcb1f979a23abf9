#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of StageWire's STUN/demux and SDP parsers.
# Usage: scripts/fuzz-wire.sh [stun|sdp|all] [RUNS]   (default: all, 1000000 runs each)
# Crashes are written to .build-fuzz/crash-*; corpora live in .build-fuzz/corpus-{stun,sdp}.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
runs="${2:-1000000}"
mkdir -p .build-fuzz/corpus-stun .build-fuzz/corpus-sdp
sources=$(find Sources/StageWire -name '*.swift' | sort)

build() {  # name harness
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire \
    $sources "Fuzz/$2" -o ".build-fuzz/$1-fuzz"
}

if [ "$which" = stun ] || [ "$which" = all ]; then
  build stun WireSTUNFuzz.swift
  # Seeds: the RFC 5769 vectors, carried as hex in the test file.
  python3 - <<'PY'
import re, pathlib
text = pathlib.Path("Tests/StageWireTests/STUNRFC5769VectorTests.swift").read_text()
for name in ("sampleRequest", "sampleIPv4Response", "sampleIPv6Response"):
    body = text.split(f"static let {name}: [UInt8] = [", 1)[1].split("]", 1)[0]
    data = bytes(int(h, 16) for h in re.findall(r"0x([0-9A-Fa-f]{2})", re.sub(r"//[^\n]*", "", body)))
    pathlib.Path(f".build-fuzz/corpus-stun/{name}").write_bytes(data)
PY
  .build-fuzz/stun-fuzz -runs="$runs" -max_len=2048 -artifact_prefix=.build-fuzz/ .build-fuzz/corpus-stun
fi

if [ "$which" = sdp ] || [ "$which" = all ]; then
  build sdp WireSDPFuzz.swift
  # Seeds: the Chrome and aiortc offers of the SDP tests.
  python3 - <<'PY'
import pathlib
text = pathlib.Path("Tests/StageWireTests/SDPFixtures.swift").read_text()
for name in ("chromeOffer", "aiortcOffer"):
    body = text.split(f"static let {name} = \"\"\"\n", 1)[1].split('        """', 1)[0]
    lines = [line[8:] for line in body.split("\n")]
    pathlib.Path(f".build-fuzz/corpus-sdp/{name}").write_text("\r\n".join(lines))
PY
  .build-fuzz/sdp-fuzz -runs="$runs" -max_len=8192 -artifact_prefix=.build-fuzz/ .build-fuzz/corpus-sdp
fi
