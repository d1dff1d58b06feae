#!/usr/bin/env bash
# Builds TileScope and runs every test: bounded libFuzzer runs of the trace loader and the pickle decoder
# (clang, ASan+UBSan), then the Qt Test suite under ctest, then the Debian package (tools/package-check.sh:
# lintian, install, run, remove). With CI=true warnings are errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash packaging/install-deps.sh
bash tools/check-format.sh
jobs=$(nproc)
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON

# 1. Fuzz the trace loader and the pickle decoder (allocator snapshot, memory timeline) for a bounded time
#    each with sanitizers on.
fuzz_seconds=${TILESCOPE_FUZZ_SECONDS:-40}
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILESCOPE_FUZZ=ON -DTILESCOPE_SANITIZE=ON \
    -DTILESCOPE_BUILD_GUI=OFF -DTILESCOPE_BUILD_TESTS=OFF -DTILESCOPE_BUILD_BENCHMARKS=OFF -DTILESCOPE_WERROR=$werror > /dev/null
cmake --build build-fuzz -j "$jobs" --target fuzz_traceloader fuzz_pickledecoder
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The fuzzer's status is kept apart from the filter's: `fuzzer | grep || true` would read as success.
fuzz() { # TARGET SEED_CORPUS
    mkdir -p "$work/$1"
    local status=0
    ./build-fuzz/tests/fuzz/"$1" -max_total_time="$fuzz_seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$root/" "$work/$1" "$2" > "$work/$1.log" 2>&1 || status=$?
    grep -E "^(stat::number_of_executed_units|Done|==|SUMMARY)" "$work/$1.log" | sed "s/^/$1: /" || true
    [ "$status" -eq 0 ] || { tail -n 40 "$work/$1.log"; echo "$1: fuzzer found a failure (the input is in $root/crash-*)"; exit 1; }
}
fuzz fuzz_traceloader tests/fuzz/corpus
fuzz fuzz_pickledecoder tests/fuzz/corpus-pickle

# 2. What a worker thread shares with the GUI, under ASan+UBSan: range aggregations started back to back
#    while the table repaints (a use-after-free there once crashed the app), roofline reclassifications
#    superseding each other, memory files read beside a trace and the memory graph's clicks, a range's findings,
#    File > Export Report on their workers, ranks loaded in parallel (core threads and the Ranks dock's job),
#    Compare With…'s second load, one trace's traceEvents parsed on several threads (tst_parallelload) with a gzip trace inflated ahead
#    on a thread of its own (tst_readaheadsource) and the merged events' pages made resident ahead on another
#    (tst_prefaultahead),
#    the gzip inflaters' buffers (tst_gzipsource: ISA-L and zlib, members, cuts and damage), the string pool's
#    blocks and table (tst_stringpool) and the array splitter's block scan (tst_arraysplitter), and
#    the analyses after the first frame (cancelled, or the window closed while they run) with raw args read
#    back from their temporary file.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILESCOPE_SANITIZE=ON -DTILESCOPE_BUILD_BENCHMARKS=OFF \
    -DTILESCOPE_BUILD_TORCH=OFF -DTILESCOPE_WERROR=$werror > /dev/null
cmake --build build-asan -j "$jobs" --target tst_rangestress tst_keyaveragesmodel tst_rooflinesettings tst_memorypanel tst_findingspanel tst_report \
    tst_ranks tst_ranksmodel tst_rankstimeline tst_comparetraces tst_firstframe tst_argsstore tst_parallelload tst_readaheadsource tst_gzipsource \
    tst_stringpool tst_arraysplitter tst_prefaultahead
for t in tst_rangestress tst_keyaveragesmodel tst_rooflinesettings tst_memorypanel tst_findingspanel tst_report tst_ranks tst_ranksmodel \
    tst_rankstimeline tst_comparetraces tst_firstframe tst_argsstore tst_parallelload tst_readaheadsource tst_gzipsource tst_stringpool \
    tst_arraysplitter tst_prefaultahead; do
    QT_QPA_PLATFORM=offscreen ASAN_OPTIONS=detect_leaks=0 "./build-asan/tests/$t" > "$work/$t.log" 2>&1 \
        || { cat "$work/$t.log"; echo "$t failed under ASan"; exit 1; }
    grep -E "^Totals" "$work/$t.log" | sed "s/^/$t (ASan): /"
done

# 3. The build and the test suite.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILESCOPE_WERROR=$werror > /dev/null
cmake --build build -j "$jobs"
cd build
ctest --output-on-failure -j "$jobs"
cd "$root"

# 4. The Debian package from the same build folder: lintian, installed with apt-get, the installed programs
#    run on the installed sample, removed.
bash tools/package-check.sh build
