#!/usr/bin/env bash
# GPU proof for the roofline classifier: records one trace per class on the GPU machine
# (fp32 matmul with TF32 off, bf16 matmul, a 1 GiB elementwise op, many tiny kernels) and prints
# tilescope-cli classify's verdict for each. Builds the CLI with tools/gpu/build_cli.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/tilescope-gpu-proof}
mkdir -p "$out/classes"
# shellcheck source=build_cli.sh
source "$root/tools/gpu/build_cli.sh"
build_cli "$out" > "$out/build-cli.log" || { cat "$out/build-cli.log"; exit 1; }
python3 "$root/tools/gpu/make_class_traces.py" "$out/classes"
for t in fp32_mm bf16_mm elementwise tiny; do
    echo "== $t"
    "$cli" classify "$out/classes/$t.json.gz" | grep -E "^  [^ ]|% of|intensity|below" | head -12
done
