#!/usr/bin/env bash
# How the parallel loader scales with cores (issue 14: "a 2-core machine is the target; more cores must
# scale"), on the GPU machine's many cores (no GPU is used): builds tilescope-cli (Release, no Qt), makes
# traces of SIZES MB from the bundled sample with tools/make_large_trace.py, and times `tilescope-cli
# summary` on each with TILESCOPE_LOAD_THREADS=1, 2, 4, ... up to the cores (best of RUNS, wall time from
# bash's EPOCHREALTIME), printing each time, its speed-up over one thread and Python's json.load once, and
# `tilescope-cli info`'s time beside it (the load without key averages).
# Usage: tools/gpu/bench_threads.sh   env: SIZES ("120 500"), RUNS (3), CLI (a tilescope-cli already built)
# Builds the CLI with tools/gpu/build_cli.sh (which says how to carry nlohmann/json's headers).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${OUT:-/tmp/tilescope-threads} # logs (the device tool brings $OUT back: no traces there)
traces=/tmp/tilescope-threads-traces
mkdir -p "$work" "$traces"
# shellcheck source=build_cli.sh
source "$root/tools/gpu/build_cli.sh"
build_cli "$work" > "$work/build-cli.log" || { cat "$work/build-cli.log"; exit 1; }
export LC_ALL=C
cores=$(nproc)
counts=""
for n in 1 2 4 8 16 32 64 128; do [ "$n" -le "$cores" ] && counts="$counts $n"; done
echo "cores: $cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$("$cli" --version)"

# best wall seconds of RUNS runs of a command
best() {
    local bestTime="" t0 t1 t
    for _ in $(seq "${RUNS:-3}"); do
        t0=$EPOCHREALTIME
        "$@" > /dev/null
        t1=$EPOCHREALTIME
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        if [ -z "$bestTime" ] || awk "BEGIN{exit !($t < $bestTime)}"; then bestTime=$t; fi
    done
    echo "$bestTime"
}

for size in ${SIZES:-120 500}; do
    trace=$traces/generated_${size}mb.json
    [ -f "$trace" ] || python3 "$root/tools/make_large_trace.py" "$root/resources/samples/train_scheduled.pt.trace.json.gz" \
        "$trace" --size-mb "$size" > "$work/make_${size}.log" 2>&1 || { cat "$work/make_${size}.log"; exit 1; }
    bytes=$(stat -c %s "$trace")
    records=$("$cli" info "$trace" | grep -m1 -o '[0-9]* records' || true)
    py=$(RUNS=1 best python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$trace")
    echo
    echo "$(basename "$trace"): $((bytes / 1000000)) MB, $records; json.load ${py} s"
    # info_s: `tilescope-cli info`, the load and one pass over the events, without key averages: what summary
    # spends past it is key averages and the table, which run on one thread.
    printf '%8s %10s %12s %12s %8s\n' threads summary_s "speed-up" "/json.load" info_s
    one=""
    for n in $counts; do
        t=$(best env TILESCOPE_LOAD_THREADS="$n" "$cli" summary "$trace")
        i=$(best env TILESCOPE_LOAD_THREADS="$n" "$cli" info "$trace")
        [ -n "$one" ] || one=$t
        printf '%8s %10s %11.2fx %11.3fx %8s\n' "$n" "$t" "$(awk -v a="$one" -v b="$t" 'BEGIN { print a / b }')" \
            "$(awk -v a="$t" -v b="$py" 'BEGIN { print a / b }')" "$i"
    done
done
