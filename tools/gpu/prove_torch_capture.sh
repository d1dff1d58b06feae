#!/usr/bin/env bash
# GPU proof for tilescope-torch (run on the GPU machine: no Qt, PyTorch with CUDA, cmake, ninja).
# Builds a core-only tree against the LibTorch bundled with the pip torch, profiles a scripted CUDA MLP
# with `tilescope-torch capture --device cuda` (Kineto: CPU + CUDA), checks with tilescope-cli that the
# trace has GPU kernels and the torchscript_forward label, and runs `calibrate --device cuda:0`.
# Prints PASS/FAIL lines; exits non-zero on any failure. Logs and artifacts go to $OUT.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/tilescope-torch-proof}
build=${BUILD_DIR:-$root/build-gpu}
py=${PYTHON:-python3}
mkdir -p "$out"
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
die() { echo "FAIL: $*"; echo "RESULT: FAIL"; exit 1; }

# --- the torch at hand -------------------------------------------------------------------------
torch_prefix=$("$py" -c 'import torch; print(torch.utils.cmake_prefix_path)') || die "$py has no torch"
"$py" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "available", torch.cuda.is_available(),
          torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'
echo "== LibTorch CMake prefix: $torch_prefix"

# --- a CUDA toolkit for Torch's CMake config ---------------------------------------------------------
# Torch's config (Caffe2Config -> public/cuda.cmake) needs a CUDA toolkit to find. On this machine nvcc
# and the CUDA headers/libraries may come only from pip packages (nvidia-cuda-nvcc, nvidia-cuda-runtime,
# ...), whose lib folders lack the unversioned libfoo.so names find_library looks for.
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
if [ -z "$nvcc" ]; then
    nvcc=$(find "$site/nvidia" -path '*/bin/nvcc' -type f 2>/dev/null | head -1 || true)
fi
echo "== nvcc: ${nvcc:-none found}"
[ -n "$nvcc" ] && "$nvcc" --version | tail -2

# A shim toolkit folder: bin/nvcc, include/ and lib64/ linking everything under site-packages/nvidia/*,
# with unversioned library names added. Only used when the plain configure fails.
make_shim() {
    local shim=$out/cuda-shim
    rm -rf "$shim"; mkdir -p "$shim/bin" "$shim/include" "$shim/lib64"
    [ -n "$nvcc" ] && ln -s "$nvcc" "$shim/bin/nvcc"
    local nvcc_root; nvcc_root=$(dirname "$(dirname "${nvcc:-/nonexistent/bin/nvcc}")")
    for inc in "$nvcc_root/include" "$site"/nvidia/*/include; do
        [ -d "$inc" ] || continue
        for f in "$inc"/*; do [ -e "$shim/include/$(basename "$f")" ] || ln -s "$f" "$shim/include/"; done
    done
    for lib in "$nvcc_root/lib" "$nvcc_root/lib64" "$site"/nvidia/*/lib; do
        [ -d "$lib" ] || continue
        for f in "$lib"/*.so*; do
            [ -e "$f" ] || continue
            local name; name=$(basename "$f")
            [ -e "$shim/lib64/$name" ] || ln -s "$f" "$shim/lib64/$name"
            local plain=${name%%.so*}.so
            [ -e "$shim/lib64/$plain" ] || ln -s "$f" "$shim/lib64/$plain"
        done
    done
    [ -d "$nvcc_root/nvvm" ] && ln -s "$nvcc_root/nvvm" "$shim/nvvm"
    # libcuda (the driver) lives with the driver, not in the toolkit; the stub is enough to link.
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/lib64/stubs; do
        if [ -e "$d/libcuda.so.1" ] && [ ! -e "$shim/lib64/libcuda.so" ]; then ln -s "$d/libcuda.so.1" "$shim/lib64/libcuda.so"; fi
    done
    echo "$shim"
}

common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_BUILD_GUI=OFF -DTILESCOPE_BUILD_TESTS=OFF -DTILESCOPE_BUILD_BENCHMARKS=OFF
        -DTILESCOPE_BUILD_TORCH=ON -DCMAKE_PREFIX_PATH="$torch_prefix")
cfglog=""
configure() { # NAME ARGS...: a fresh configure, its log in $out/cmake-NAME.log
    local name=$1; shift
    cfglog=$out/cmake-$name.log
    rm -rf "$build"
    echo "== configure ($name): cmake -S . -B $build ${common[*]} $*"
    if cmake -S "$root" -B "$build" "${common[@]}" "$@" > "$out/cmake-$name.log" 2>&1; then
        echo "   ok"; return 0
    fi
    echo "   failed; last lines of $out/cmake-$name.log:"; tail -12 "$out/cmake-$name.log" | sed 's/^/   | /'; return 1
}
configured=""
if configure plain; then
    configured=plain
elif [ -n "$nvcc" ]; then
    toolkit=$(dirname "$(dirname "$nvcc")")
    if configure toolkit -DCUDAToolkit_ROOT="$toolkit" -DCUDA_TOOLKIT_ROOT_DIR="$toolkit" -DCMAKE_CUDA_COMPILER="$nvcc"; then
        configured="toolkit $toolkit"
    else
        shim=$(make_shim | tail -1)
        if configure shim -DCUDAToolkit_ROOT="$shim" -DCUDA_TOOLKIT_ROOT_DIR="$shim" -DCMAKE_CUDA_COMPILER="$shim/bin/nvcc" \
            -DCMAKE_LIBRARY_PATH="$shim/lib64"; then
            configured="shim $shim"
        fi
    fi
fi
[ -n "$configured" ] || die "could not configure against $torch_prefix with a CUDA toolkit (logs: $out/cmake-*.log)"
pass "configured with LibTorch ($configured)"
grep -E "LibTorch|tilescope-torch|CUDA" "$cfglog" | tail -6 | sed 's/^/   /'
grep -q "tilescope-torch: LibTorch has CUDA" "$cfglog" \
    && pass "tilescope-torch compiled with the CUDA runtime headers (CUDA events, device properties)" \
    || fail "CMake did not report a CUDA LibTorch: timings fall back to steady_clock, no device properties"

cmake --build "$build" --target tilescope-torch tilescope-cli -j "$(nproc)" > "$out/build.log" 2>&1 \
    || { tail -40 "$out/build.log"; die "build failed (log: $out/build.log)"; }
tool=$build/app/tilescope-torch
cli=$build/app/tilescope-cli
pass "built $tool and $cli"
# tilescope-cli must not pull in torch.
if ldd "$cli" | grep -qi torch; then fail "tilescope-cli links libtorch"; else pass "tilescope-cli does not link libtorch"; fi
ldd "$tool" | grep -E "torch|c10|cudart" | sed 's/^/   /'

# --- capture -----------------------------------------------------------------------------------------
"$py" "$root/tools/gpu/make_torchscript_cuda_model.py" "$out" || die "could not script the CUDA model"
session=$out/session
rm -rf "$session"
"$tool" capture --torchscript "$out/model.pt" --inputs float32:512x1024 --device cuda --warmup 10 --iters 5 --record-shapes \
    --out "$session" > "$out/capture.out" 2> "$out/capture.err"
rc=$?
cat "$out/capture.out"
[ "$rc" = 0 ] && pass "capture exited 0" || { tail -5 "$out/capture.err"; fail "capture exited $rc"; }
trace=$session/trace.pt.trace.json
"$py" - "$session" <<'PYEOF' || fail "manifest or progress lines wrong"
import json, pathlib, sys
session = pathlib.Path(sys.argv[1])
m = json.loads((session / "tilescope-session.json").read_text())
print("   manifest:", json.dumps(m))
assert m["status"] == "ok", m
assert m["profiler"] == "kineto", "expected Kineto with the pip LibTorch, got " + m["profiler"]
assert m["device"]["type"] == "cuda" and m["device"].get("name"), m["device"]
events = [json.loads(l[len("@tilescope "):]) for l in (session.parent / "capture.out").read_text().splitlines() if l.startswith("@tilescope ")]
phases = [e["phase"] for e in events if e["event"] == "phase"]
assert phases[0] == "setup" and phases[-1] == "done" and phases.count("warmup") == 10 and phases.count("profile") == 5, phases
assert events[-1]["event"] == "result", events[-1]
print("PASS: manifest ok, profiler kineto, device", m["device"]["name"], "; progress lines in order")
PYEOF
if [ -f "$trace" ]; then
    "$cli" info "$trace" | tee "$out/info.txt" | head -40
    kernels=$(awk '$1 == "kernel:" {print $2}' "$out/info.txt")
    [ "${kernels:-0}" -gt 0 ] && pass "trace has $kernels GPU kernels" || fail "no GPU kernels in the trace"
    grep -q "^  gpu_user_annotation:" "$out/info.txt" && pass "trace has gpu_user_annotation spans" || fail "no gpu_user_annotation in the trace"
    "$cli" summary "$trace" --row-limit 12 | tee "$out/summary.txt"
    "$cli" summary "$trace" --format json > "$out/summary.json"
    "$py" - "$out/summary.json" <<'PYEOF' || fail "summary rows wrong"
import json, sys
rows = {r["key"]: r for r in json.load(open(sys.argv[1]))["rows"]}
fwd = rows.get("torchscript_forward")
assert fwd and fwd["count"] == 5, ("torchscript_forward", fwd)
assert rows.get("aten::linear", {}).get("count") == 10, ("aten::linear", rows.get("aten::linear"))
assert fwd["device_time_total_us"] > 0, fwd
print("PASS: torchscript_forward x5 with %.1f us of device time, aten::linear x10" % fwd["device_time_total_us"])
PYEOF
else
    fail "no trace at $trace"
fi

# --- calibrate ---------------------------------------------------------------------------------------
calib=$out/calibration.json
"$tool" calibrate --device cuda:0 --out "$calib" > "$out/calibrate.out" 2> "$out/calibrate.err"
rc=$?
cat "$out/calibrate.out"
[ "$rc" = 0 ] && pass "calibrate exited 0" || { tail -5 "$out/calibrate.err"; fail "calibrate exited $rc"; }
if [ -f "$calib" ]; then
    cat "$calib"
    "$py" - "$calib" "$root/tests/data/h200/calibration/calibration.json" <<'PYEOF' || fail "calibration values wrong"
import json, sys
c = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))
keys = ["copy_bytes_per_s", "bf16_mm_flops_per_s", "fp16_mm_flops_per_s", "tf32_mm_flops_per_s", "fp32_notf32_mm_flops_per_s"]
for k in keys:
    assert c.get(k, 0) > 0, k
    line = "   %-28s %10.1f T/s" % (k, c[k] / 1e12)
    if k in ref:
        line += "   (H200 reference %.1f, %.0f%%)" % (ref[k] / 1e12, 100 * c[k] / ref[k])
    print(line)
assert c["timing"] == "cuda_events", c["timing"]
assert c.get("gpu") and c.get("sms") and c.get("cc"), c
print("PASS: calibration has all five ceilings, CUDA-event timed, on", c["gpu"])
PYEOF
    "$cli" device "$trace" --ceilings "$calib" && pass "tilescope-cli device reads the calibration" || fail "tilescope-cli device --ceilings refused it"
fi

if [ "$failures" = 0 ]; then echo "RESULT: PASS"; else echo "RESULT: FAIL ($failures failed)"; exit 1; fi
