#!/usr/bin/env bash
# GPU proof for profiling sessions (run on the GPU machine: PyTorch 2.x with CUDA, Triton, no Qt).
# Builds core + tilescope-cli (+ tilescope-torch against PyTorch's bundled LibTorch), then runs a CUDA session
# of each mode and a GPU calibration, and checks the traces hold GPU kernels and the labelled regions.
# With TileLang importable (carried as wheels), also profiles a real TileLang GEMM against torch.mm.
# Prints PASS/FAIL lines; exits non-zero when any check failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/tilescope-sessions-proof}
mkdir -p "$out"
failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
echo "== torch $(python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))')"
if [ -f "$root/build-gpu/build.ninja" ]; then
    echo "== reusing build-gpu (configured by prove_torch_capture.sh against the bundled LibTorch)"
else
    cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_BUILD_GUI=OFF \
        -DTILESCOPE_BUILD_TESTS=OFF -DTILESCOPE_BUILD_BENCHMARKS=OFF -DCMAKE_PREFIX_PATH="$prefix" \
        > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
fi
cmake --build "$root/build-gpu" --target tilescope-cli $(grep -q tilescope-torch "$root/build-gpu/build.ninja" && echo tilescope-torch) \
    -j "$(nproc)" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
cli="$root/build-gpu/app/tilescope-cli"
echo "== built: $(ls "$root"/build-gpu/app/ | tr '\n' ' ')"

# Names of a trace's events by category, from TileScope's own loader (info --format json).
count_named() { # TRACE NAME -> number of events with that exact name (CPU ops, annotations, kernels)
    "$cli" summary "$1" --format json | python3 -c "import json,sys; r=[x for x in json.load(sys.stdin)['rows'] if x['key']==sys.argv[1]]; print(r[0]['count'] if r else 0)" "$2"
}
kernels_in() { "$cli" info "$1" --format json | python3 -c "import json,sys; d=json.load(sys.stdin); print(d.get('events_per_category',{}).get('kernel',0))"; }
torch_matches() { # SESSION_DIR: TileScope's summary equals torch's key_averages written by the harness
    "$cli" summary "$1/trace.pt.trace.json" --format json > "$1/ours.json" &&
    python3 "$root/tests/tools/compare_key_averages.py" "$1/key_averages.json" "$1/ours.json" | tail -3
}

echo "== 1. script mode: training loop, schedule advanced by optimizer.step()"
"$cli" capture --script "$root/resources/examples/train_mlp.py" --python python3 --schedule 1,1,3,1 \
    --out "$out/script" --quiet -- 8 || fail "script session ran"
t="$out/script/trace.pt.trace.json"
check "script: trace has GPU kernels ($(kernels_in "$t"))" test "$(kernels_in "$t")" -gt 0
check "script: 3 ProfilerStep and 3 train_step labels" test "$(count_named "$t" train_step)" = 3
check "script: TileScope's key_averages equal torch's" torch_matches "$out/script"

echo "== 2. kernel mode: a Triton kernel against torch"
"$cli" capture --kernel "$root/resources/examples/triton_add.py:triton_add" --ref "$root/resources/examples/triton_add.py:torch_add" \
    --inputs f32:67108864,f32:67108864 --bytes 805306368 --out "$out/triton" --quiet || fail "triton session ran"
t="$out/triton/trace.pt.trace.json"
check "triton: tilelang_kernel x5 and torch_ref x5" test "$(count_named "$t" tilelang_kernel)-$(count_named "$t" torch_ref)" = 5-5
check "triton: trace has GPU kernels ($(kernels_in "$t"))" test "$(kernels_in "$t")" -gt 0
check "triton: key_averages equal torch's" torch_matches "$out/triton"
"$cli" classify "$t" --format json > "$out/triton/classify.json"
python3 - "$out/triton/classify.json" <<'PY' || fail "triton: region classified io-bound"
import json, sys
r = {x["name"]: x for x in json.load(open(sys.argv[1]))["regions"]}
for name in ("tilelang_kernel", "torch_ref"):
    x = r[name]
    print(f"  region {name}: {x['class']} ({x['strength']}), {x['achieved_bytes_per_s']/1e12:.2f} TB/s")
sys.exit(0 if r["tilelang_kernel"]["class"] == "io-bound" else 1)
PY

echo "== 3. kernel mode: TileLang GEMM against torch.mm"
if python3 -c "import tilelang" 2> "$out/tilelang_import.log"; then
    python3 -c "import tilelang; print('tilelang', tilelang.__version__)"
    "$cli" capture --kernel "$root/resources/examples/tilelang_gemm.py:build_gemm" --kernel-factory \
        --ref "$root/resources/examples/tilelang_gemm.py:torch_gemm" --inputs f16:4096x4096,f16:4096x4096 \
        --flops 137438953472 --bytes 100663296 --out "$out/tilelang" || fail "tilelang session ran"
    t="$out/tilelang/trace.pt.trace.json"
    check "tilelang: tilelang_kernel x5 and torch_ref x5" test "$(count_named "$t" tilelang_kernel)-$(count_named "$t" torch_ref)" = 5-5
    check "tilelang: generated source saved" ls "$out"/tilelang/sources/*.cu
    "$cli" classify "$t" | head -40
    "$cli" classify "$t" --format json > "$out/tilelang/classify.json"
    for f in "$out"/tilelang/sources/*.cu; do "$cli" inspect "$f" | head -24; cp "$f" "$out/tilelang_source.cu"; done
    python3 - "$out/tilelang/classify.json" <<'PY' || fail "tilelang: region classified tensor-core-bound"
import json, sys
r = {x["name"]: x for x in json.load(open(sys.argv[1]))["regions"]}
for name in ("tilelang_kernel", "torch_ref"):
    x = r[name]
    print(f"  region {name}: {x['class']} ({x['strength']}), {x['achieved_flops_per_s']/1e12:.1f} TFLOP/s, "
          f"source: {(x.get('source') or {}).get('conclusion', '-')}")
sys.exit(0 if r["tilelang_kernel"]["class"] == "tensor-core-bound" else 1)
PY
else
    echo "SKIP tilelang: not importable here ($(tail -1 "$out/tilelang_import.log"))"
fi

echo "== 4. TorchScript module through LibTorch (tilescope-torch)"
if [ -x "$root/build-gpu/app/tilescope-torch" ] || [ -x "$root/build-gpu/app/torch/tilescope-torch" ]; then
    python3 - "$out/model.pt" <<'PY'
import sys, torch
m = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda().eval()
torch.jit.script(m).save(sys.argv[1])
PY
    "$cli" capture --torchscript "$out/model.pt" --inputs f32:512x1024 --device cuda --out "$out/torchscript" --quiet \
        || fail "torchscript session ran"
    t="$out/torchscript/trace.pt.trace.json"
    check "torchscript: trace has GPU kernels ($(kernels_in "$t"))" test "$(kernels_in "$t")" -gt 0
    "$cli" summary "$t" --row-limit 8
    echo "== 5. calibrate cuda:0"
    "$cli" calibrate --device cuda:0 --out "$out/calibration.json" && cat "$out/calibration.json" || fail "calibrate ran"
    check "calibration loads as ceilings" "$cli" device "$out/script/trace.pt.trace.json" --ceilings "$out/calibration.json"
else
    fail "tilescope-torch was not built (LibTorch not found by CMake)"
fi

echo "== $failures failure(s)"
exit $((failures > 0))
