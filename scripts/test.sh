#!/usr/bin/env bash
# Sets up and runs the whole suite: Swift unit and integration tests (real server processes on
# loopback), then the interop tests with boto3, the AWS CLI and a Python WebSocket client (and
# test_linked_licences.py, which reads ldd of the built programs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --interop
# Zero compiler warnings in our own targets: the build's output is read, and a warning in a file
# under Sources/, Tests/ or Examples/ fails the run (a fresh clone compiles every file, so every
# warning shows; the packages' own are not ours to fix).
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
swift build --build-tests 2>&1 | tee "$build_log"
if grep -E "^$PWD/(Sources|Tests|Examples)/[^:]+:[0-9]+:[0-9]+: warning:" "$build_log" | sort -u | grep . >&2; then
  echo "test.sh: the compiler warned about our own code (above); fix the warnings" >&2
  exit 1
fi
# Bounded, so a hung test fails the run with a message instead of eating CI's whole budget:
# GNU timeout signals the whole process group (the xctest child too), SIGKILL 30 s after SIGTERM.
timeout -k 30 30m swift test --skip-build || { status=$?; [ $status -eq 124 ] && echo "test.sh: swift test timed out after 30 min" >&2; exit $status; }
PATH="$PWD/.venv-interop/bin:$PATH" STAGE_SERVER_BIN="$PWD/.build/debug/stage-server" \
  timeout -k 30 40m .venv-interop/bin/python -m pytest -q Tests/interop
