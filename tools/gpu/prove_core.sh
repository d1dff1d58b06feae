#!/usr/bin/env bash
# GPU proof for the core engine (run on the GPU machine, which has no Qt): builds core + tilescope-cli,
# records a fresh CUDA trace with torch there, and checks tilescope-cli summary against torch's own
# key_averages of the same run (rows, counts, times, memory, FLOPs) and the printed table byte for byte.
# Builds the CLI with tools/gpu/build_cli.sh (which says how to carry nlohmann/json's headers).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/tilescope-gpu-proof}
mkdir -p "$out"
# shellcheck source=build_cli.sh
source "$root/tools/gpu/build_cli.sh"
build_cli "$out"
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
