#!/usr/bin/env bash
# Builds the libFuzzer targets of the parsers and runs each for RUNS executions (default 1000000).
#   scripts/fuzz.sh [RUNS] [TARGET...]   targets: signaling rtp stun sdp (default all)
# Crashes are written to .build-fuzz/crash-*; the corpora grow in .build-fuzz/corpus-*.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"; shift || true
targets=("$@"); [ ${#targets[@]} -eq 0 ] && targets=(signaling rtp stun sdp)
mkdir -p .build-fuzz
wire_sources=$(find Sources/StageWire -name '*.swift')
for target in "${targets[@]}"; do
  corpus=".build-fuzz/corpus-$target"; mkdir -p "$corpus"
  case "$target" in
    signaling)
      cp Tests/StageProtocolTests/Fixtures/client/*.json Tests/StageProtocolTests/Fixtures/server/*.json "$corpus/"
      swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageProtocol \
        Sources/StageProtocol/*.swift Fuzz/SignalingFuzz.swift -o .build-fuzz/signaling-fuzz
      max_len=4096 ;;
    rtp)  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireRTPFuzz.swift -o .build-fuzz/rtp-fuzz; max_len=1500 ;;
    stun) swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireSTUNFuzz.swift -o .build-fuzz/stun-fuzz; max_len=2048 ;;
    sdp)  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageWire $wire_sources Fuzz/WireSDPFuzz.swift -o .build-fuzz/sdp-fuzz; max_len=8192 ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  echo "== $target: $runs runs"
  ".build-fuzz/$target-fuzz" -runs="$runs" -max_len="$max_len" -artifact_prefix=.build-fuzz/ "$corpus" 2>&1 | grep -E '^(Done|==|#[0-9]+ +DONE)|ERROR|crash' || true
done
