#!/usr/bin/env bash
# Sets up, builds (release) and runs the stage server with its embedded defaults:
# HTTP on :8080, SQLite and keys in ./stage-data. Extra arguments go to stage-server.
# The compositor is built beside it: the server starts one per composition.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product stage-compositor
swift build -c release --product stage-server
exec .build/release/stage-server "$@"
