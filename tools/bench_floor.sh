#!/usr/bin/env bash
# Measures `tilescope-cli summary` against its two yardsticks in one run and prints the ratios the
# loader is held to (issue 14): summary <= 1.5x a bare simdjson on-demand scan of the same file,
# <= 0.1x Python's json.load, peak RSS <= the file size. Wall time and peak RSS of each whole process
# (wall time from bash's EPOCHREALTIME around the run, to the microsecond: /usr/bin/time's own %e has 10 ms
# steps, a third of a small trace's time; it includes /usr/bin/time's own start, under a millisecond, the
# same for every command, which pulls the ratios of traces of a few milliseconds towards 1; peak RSS from
# /usr/bin/time), best of RUNS runs (json.load: best of PYRUNS, default 1: it is slow and large). Needs
# bash 5 (EPOCHREALTIME).
# Usage: tools/bench_floor.sh [BUILD_DIR] TRACE...   env: RUNS (3), PYRUNS (1), THREADS (the loader's), CLI (another
#        tilescope-cli, e.g. a baseline build)
set -euo pipefail
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0 needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }
export LC_ALL=C # EPOCHREALTIME and awk with '.' decimals
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
if [ $# -gt 0 ] && [ -d "$1" ]; then
    build=$1
    shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [BUILD_DIR] TRACE..." >&2; exit 2; }
runs=${RUNS:-3}
pyruns=${PYRUNS:-1}
scan=$build/tests/bench/bench_scan_simdjson
cli=${CLI:-$build/app/tilescope-cli} # CLI=... measures another build (a baseline)
[ -x "$scan" ] || { echo "$scan is missing: install libsimdjson-dev and rebuild" >&2; exit 1; }

# best WALL_S RSS_KB of `runs` runs of a command
best() {
    local n=$1
    shift
    local bestTime="" bestRss="" out
    out=$(mktemp)
    for _ in $(seq "$n"); do
        local t0 t1 t r
        t0=$EPOCHREALTIME
        /usr/bin/time -f "%M" -o "$out" "$@" > /dev/null 2>&1 || true
        t1=$EPOCHREALTIME
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
        r=$(tail -1 "$out")
        if [ -z "$bestTime" ] || awk "BEGIN{exit !($t < $bestTime)}"; then bestTime=$t; fi
        if [ -z "$bestRss" ] || [ "$r" -lt "$bestRss" ]; then bestRss=$r; fi
    done
    rm -f "$out"
    echo "$bestTime $bestRss"
}

echo "cores: $(nproc), loader threads: ${THREADS:-auto}, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %9s | %8s %8s %8s | %8s %8s %8s | %9s %9s %9s\n' trace JSON_MB scan_s summary_s json_s \
    sum/scan sum/json RSS/file scan_MB sum_MB json_MB
for trace in "$@"; do
    bytes=$(stat -c %s "$trace")
    # A .gz is held to its JSON's size: what the loader has to read.
    [ "$(head -c2 "$trace" | od -An -tx1 | tr -d ' ')" = "1f8b" ] && bytes=$(gzip -dc "$trace" | wc -c)
    read -r scanT scanR < <(best "$runs" "$scan" "$trace")
    read -r sumT sumR < <(best "$runs" env ${THREADS:+TILESCOPE_LOAD_THREADS=$THREADS} "$cli" summary "$trace")
    if [ "$pyruns" -gt 0 ]; then
        read -r pyT pyR < <(best "$pyruns" python3 -c "import gzip,json,sys; p=sys.argv[1]; \
f=gzip.open(p,'rt') if open(p,'rb').read(2)==b'\x1f\x8b' else open(p); json.load(f)" "$trace")
    else
        pyT=nan pyR=0
    fi
    name=$(basename "$trace")
    case $name in trace.json*) name=$(basename "$(dirname "$trace")")/$name ;; esac # the H200 fixtures' folders
    awk -v name="$name" -v b="$bytes" -v st="$scanT" -v sr="$scanR" -v ut="$sumT" -v ur="$sumR" \
        -v pt="$pyT" -v pr="$pyR" 'BEGIN {
        printf "%-28s %9.1f | %8.3f %8.3f %8s | %7.2fx %7.3fx %7.2fx | %9.0f %9.0f %9.0f\n", name, b / 1e6, st, ut,
            pt, ut / st, (pt == "nan" ? 0 : ut / pt), ur * 1024 / b, sr / 1024, ur / 1024, pr / 1024 }'
done
echo "goals: sum/scan <= 1.5x, sum/json <= 0.1x, RSS/file <= 1.0x; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
