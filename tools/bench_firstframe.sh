#!/usr/bin/env bash
# The app's first frame against a bare scan of the same file, in one run: bench_load's tokenizer scan
# (and bench_scan_simdjson's on-demand scan when built), then bench_firstframe offscreen, each RUNS times in
# its own process; prints the best of each and the ratios, and peak RSS against the file size.
# Usage: tools/bench_firstframe.sh [BUILD_DIR] TRACE [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
trace=${2:?usage: tools/bench_firstframe.sh [BUILD_DIR] TRACE [RUNS]}
runs=${3:-3}
bytes=$(stat -c %s "$trace")
echo "trace: $trace ($bytes bytes), best of $runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
best() { sort -g | head -1; }
scan=$(for _ in $(seq "$runs"); do "$build/tests/bench/bench_load" scan "$trace" 2>/dev/null | grep -o '[0-9.]* s' | head -1 | cut -d' ' -f1; done | best)
echo "tokenizer scan: $scan s"
simd=""
if [ -x "$build/tests/bench/bench_scan_simdjson" ]; then
    simd=$(for _ in $(seq "$runs"); do "$build/tests/bench/bench_scan_simdjson" "$trace" 2>/dev/null | sed -n 's/.* \([0-9.]*\) s (read .*/\1/p'; done | best)
    echo "simdjson on-demand scan: $simd s"
fi
out=$(mktemp)
for _ in $(seq "$runs"); do
    QT_QPA_PLATFORM=offscreen "$build/tests/bench/bench_firstframe" "$trace" 2>/dev/null >> "$out"
done
cat "$out"
first=$(grep '^first-frame' "$out" | awk '{print $2}' | best)
rss=$(grep '^first-frame' "$out" | awk '{print $6}' | best)
all=$(grep '^analysed' "$out" | awk '{print $2}' | best)
allrss=$(grep '^analysed' "$out" | awk '{print $6}' | best)
rm -f "$out"
echo "best first frame: $first s, peak RSS $rss MB; all analyses in: $all s, peak RSS $allrss MB"
awk -v f="$first" -v s="$scan" -v a="$all" -v r="$rss" -v ar="$allrss" -v b="$bytes" 'BEGIN {
    printf "first frame / tokenizer scan: %.2fx; all analyses / scan: %.2fx\n", f / s, a / s
    printf "peak RSS / file size: %.2fx at first frame, %.2fx with every analysis\n", r * 1048576 / b, ar * 1048576 / b }'
[ -n "$simd" ] && awk -v f="$first" -v s="$simd" 'BEGIN { printf "first frame / simdjson scan: %.2fx\n", f / s }'
exit 0
