#!/usr/bin/env bash
# GPU proof for the core engine (run on the GPU machine, which has no Qt): builds core + tilescope-cli,
# records a fresh CUDA trace with torch there, and checks tilescope-cli summary against torch's own
# key_averages of the same run (rows, counts, times, memory, FLOPs) and the printed table byte for byte.
# core needs nlohmann/json's headers: on a box without apt, carry Debian's package (here:
# `apt-get download nlohmann-json3-dev` into an ignored folder) and unpack it there first with `dpkg -x FILE.deb /`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/tilescope-gpu-proof}
mkdir -p "$out"
cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_BUILD_GUI=OFF -DTILESCOPE_BUILD_TESTS=OFF \
    -DTILESCOPE_BUILD_BENCHMARKS=OFF > "$out/cmake.log" 2>&1 || { tail -20 "$out/cmake.log"; exit 1; }
cmake --build "$root/build-gpu" -j "$(nproc)" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
cli="$root/build-gpu/app/tilescope-cli"
echo "== built: $cli"
python3 "$root/tools/gpu/make_reference_trace.py" "$out/fresh"
"$cli" info "$out/fresh/trace.json" | head -12
"$cli" summary "$out/fresh/trace.json" --format json > "$out/ours.json"
"$cli" summary "$out/fresh/trace.json" --format json --group-by-input-shape > "$out/ours_by_shape.json"
python3 "$root/tests/tools/compare_key_averages.py" "$out/fresh/ref_key_averages.json" "$out/ours.json"
python3 "$root/tests/tools/compare_key_averages.py" "$out/fresh/ref_key_averages_by_shape.json" "$out/ours_by_shape.json" --by-shape
{ "$cli" summary "$out/fresh/trace.json" --sort self_cuda_time_total; printf '\n\n# sorted by self_cpu_time_total\n';
  "$cli" summary "$out/fresh/trace.json" --sort self_cpu_time_total; } > "$out/ours_table.txt"
if cmp -s "$out/ours_table.txt" "$out/fresh/ref_table.txt"; then echo "table: byte-identical to torch's"; else
  echo "table: differs from torch's:"; diff "$out/ours_table.txt" "$out/fresh/ref_table.txt" | head -20; fi
echo "== sample trace bundled with TileScope:"
"$cli" summary "$root/resources/samples/train_scheduled.pt.trace.json.gz" --row-limit 8
