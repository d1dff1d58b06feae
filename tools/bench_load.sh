#!/usr/bin/env bash
# Benchmarks loading one trace: each mode of bench_load in its own process, the whole
# `tilescope-cli summary` process, and Python's json.load, with wall time and peak RSS.
# Usage: tools/bench_load.sh [BUILD_DIR] [TRACE]   (default: make a 117 MB trace from the bundled sample)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
trace=${2:-}
if [ -z "$trace" ]; then
    trace=/tmp/tilescope-bench-117MB.json
    [ -f "$trace" ] || python3 "$root/tools/make_large_trace.py" "$root/resources/samples/train_scheduled.pt.trace.json.gz" "$trace" --size-mb 117
fi
echo "trace: $trace ($(stat -c %s "$trace") bytes)"
for mode in scan nlohmann nlohmann-buffer load load-args summary; do
    "$build/tests/bench/bench_load" "$mode" "$trace" 2>/dev/null || true
done
measure() { /usr/bin/time -f "%e s  peak RSS %M KB" "$@" > /dev/null; }
echo -n "tilescope-cli summary (whole process): "
measure "$build/app/tilescope-cli" summary "$trace" 2>&1 | tail -1
echo -n "python3 json.load:                     "
measure python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$trace" 2>&1 | tail -1
