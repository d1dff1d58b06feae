#!/usr/bin/env bash
# GPU proof for the roofline classifier: records one trace per class on the GPU machine
# (fp32 matmul with TF32 off, bf16 matmul, a 1 GiB elementwise op, many tiny kernels) and prints
# tilescope-cli classify's verdict for each. Run after tools/gpu/prove_core.sh has built the CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/tilescope-gpu-proof}
mkdir -p "$out/classes"
cli="$root/build-gpu/app/tilescope-cli"
[ -x "$cli" ] || { cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_BUILD_GUI=OFF \
    -DTILESCOPE_BUILD_TESTS=OFF -DTILESCOPE_BUILD_BENCHMARKS=OFF > /dev/null && cmake --build "$root/build-gpu" -j "$(nproc)" > /dev/null; }
python3 "$root/tools/gpu/make_class_traces.py" "$out/classes"
for t in fp32_mm bf16_mm elementwise tiny; do
    echo "== $t"
    "$cli" classify "$out/classes/$t.json.gz" | grep -E "^  [^ ]|% of|intensity|below" | head -12
done
