#!/usr/bin/env bash
# Sets up and runs the whole suite: Swift unit and integration tests (real server processes on
# loopback), then the interop tests with boto3, the AWS CLI and a Python WebSocket client.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --interop
swift build --build-tests
# Bounded, so a hung test fails the run with a message instead of eating CI's whole budget:
# GNU timeout signals the whole process group (the xctest child too), SIGKILL 30 s after SIGTERM.
timeout -k 30 30m swift test --skip-build || { status=$?; [ $status -eq 124 ] && echo "test.sh: swift test timed out after 30 min" >&2; exit $status; }
PATH="$PWD/.venv-interop/bin:$PATH" STAGE_SERVER_BIN="$PWD/.build/debug/stage-server" \
  timeout -k 30 40m .venv-interop/bin/python -m pytest -q Tests/interop
