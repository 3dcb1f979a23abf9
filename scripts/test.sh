#!/usr/bin/env bash
# Sets up and runs the whole suite: Swift unit and integration tests (real server processes on
# loopback), then the interop tests with boto3, the AWS CLI and a Python WebSocket client.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --interop
swift build --build-tests
swift test --skip-build
PATH="$PWD/.venv-interop/bin:$PATH" STAGE_SERVER_BIN="$PWD/.build/debug/stage-server" \
  .venv-interop/bin/python -m pytest -q Tests/interop
