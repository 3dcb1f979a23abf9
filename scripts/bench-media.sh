#!/usr/bin/env bash
# The media benchmark with all three forwarders side by side: stage-server, the floor relay and
# Janus 1.1.2 (apt-get install janus). Janus gathers no loopback candidates, so everything runs
# inside a network namespace made here, with one veth address (10.99.0.1) that exists only in it.
# Needs root (ip netns). Extra arguments go to `stage-bench media`.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product stage-server >/dev/null
swift build -c release --product stage-bench >/dev/null
ns="proscenium-bench-$$"
ip netns add "$ns"
# On exit, also stop anything left running in the namespace (a Janus whose benchmark was killed).
trap 'ip netns pids "$ns" | xargs -r kill -9 2>/dev/null; ip netns del "$ns"' EXIT
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" ip link add pb0 type veth peer name pb1
ip netns exec "$ns" ip addr add 10.99.0.1/24 dev pb0
ip netns exec "$ns" ip link set pb0 up
ip netns exec "$ns" ip link set pb1 up
ip netns exec "$ns" .build/release/stage-bench media --janus-address 10.99.0.1 "$@"
