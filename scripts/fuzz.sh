#!/usr/bin/env bash
# Builds and runs the libFuzzer target of the signaling parsers for RUNS executions (default 200000).
# Usage: scripts/fuzz.sh [RUNS]   — crashes are written to .build-fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200000}"
mkdir -p .build-fuzz/corpus
cp Tests/StageProtocolTests/Fixtures/client/*.json Tests/StageProtocolTests/Fixtures/server/*.json .build-fuzz/corpus/
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name StageProtocol \
  Sources/StageProtocol/*.swift Fuzz/SignalingFuzz.swift -o .build-fuzz/signaling-fuzz
.build-fuzz/signaling-fuzz -runs="$runs" -max_len=4096 -artifact_prefix=.build-fuzz/ .build-fuzz/corpus
