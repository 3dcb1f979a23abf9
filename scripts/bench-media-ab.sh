#!/usr/bin/env bash
# Compares the CPU per forwarded packet of two stage-server builds with `stage-bench media`,
# side by side: ROUNDS rounds, each running both builds once (the order alternating), each run
# with the server on CPU 0 and the bench's clients on CPU 1, so neither steals the other's core
# and the runs differ less. Prints every run, then the median of the per-round ratios B / A.
#
#   scripts/bench-media-ab.sh A-stage-server B-stage-server [ROUNDS] [SECONDS]
#
# Needs a release stage-bench (`swift build -c release --product stage-bench`), two CPUs and
# `taskset` (util-linux).
set -euo pipefail
cd "$(dirname "$0")/.."
A=$1 B=$2 ROUNDS=${3:-12} SECONDS_PER_RUN=${4:-10}
BENCH=.build/release/stage-bench
[[ -x $BENCH ]] || { echo "build it first: swift build -c release --product stage-bench" >&2; exit 1; }
[[ -x $A && -x $B ]] || { echo "not executable: $A or $B" >&2; exit 1; }
[[ $(nproc) -ge 2 ]] || { echo "needs two CPUs (one for the server, one for the bench)" >&2; exit 1; }

# Runs one build; prints its CPU seconds per million forwarded packets.
run() {
    local bin=$1 out pid=""
    out=$(mktemp)
    STAGE_SERVER_BIN=$bin timeout 300 taskset -c 1 "$BENCH" media --no-janus --seconds "$SECONDS_PER_RUN" >"$out" 2>/dev/null &
    local bench=$!
    for _ in $(seq 1 400); do
        pid=$(pgrep -f -n "^$bin" || true)
        [[ -n $pid ]] && break
        sleep 0.05
    done
    [[ -n $pid ]] && taskset -a -p -c 0 "$pid" >/dev/null
    wait "$bench"
    awk '/^  stage-server  /{print $5}' "$out"
    rm -f "$out"
}

ratios=()
for round in $(seq 1 "$ROUNDS"); do
    if (( round % 2 )); then a=$(run "$A"); b=$(run "$B"); else b=$(run "$B"); a=$(run "$A"); fi
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.3f", b / a}')
    ratios+=("$ratio")
    echo "round $round: A $a  B $b  CPU s / M pkt   B / A $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{r[NR]=$1} END{m = NR % 2 ? r[(NR+1)/2] : (r[NR/2] + r[NR/2+1]) / 2; printf "median B / A over %d rounds: %.3f\n", NR, m}'
