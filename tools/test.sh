#!/usr/bin/env bash
# Builds TileScope and runs every test: a bounded libFuzzer run of the loader (clang, ASan+UBSan),
# then the Qt Test suite under ctest. With CI=true warnings are errors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash packaging/install-deps.sh
bash tools/check-format.sh
jobs=$(nproc)
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON

# 1. Fuzz the loader for a bounded time with sanitizers on.
fuzz_seconds=${TILESCOPE_FUZZ_SECONDS:-60}
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILESCOPE_FUZZ=ON -DTILESCOPE_SANITIZE=ON \
    -DTILESCOPE_BUILD_GUI=OFF -DTILESCOPE_BUILD_TESTS=OFF -DTILESCOPE_BUILD_BENCHMARKS=OFF -DTILESCOPE_WERROR=$werror > /dev/null
cmake --build build-fuzz -j "$jobs" --target fuzz_traceloader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./build-fuzz/tests/fuzz/fuzz_traceloader -max_total_time="$fuzz_seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$work" tests/fuzz/corpus 2>&1 | grep -E "^(stat::number_of_executed_units|Done|==|SUMMARY)" || true
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzzer found a failure"; exit 1; }

# 2. What a worker thread shares with the GUI, under ASan+UBSan: range aggregations started back to back
#    while the table repaints (a use-after-free there once crashed the app).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILESCOPE_SANITIZE=ON -DTILESCOPE_BUILD_BENCHMARKS=OFF \
    -DTILESCOPE_BUILD_TORCH=OFF -DTILESCOPE_WERROR=$werror > /dev/null
cmake --build build-asan -j "$jobs" --target tst_rangestress tst_keyaveragesmodel
for t in tst_rangestress tst_keyaveragesmodel; do
    QT_QPA_PLATFORM=offscreen ASAN_OPTIONS=detect_leaks=0 "./build-asan/tests/$t" > "$work/$t.log" 2>&1 \
        || { cat "$work/$t.log"; echo "$t failed under ASan"; exit 1; }
    grep -E "^Totals" "$work/$t.log" | sed "s/^/$t (ASan): /"
done

# 3. The build and the test suite.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILESCOPE_WERROR=$werror > /dev/null
cmake --build build -j "$jobs"
cd build
ctest --output-on-failure -j "$jobs"
