#!/usr/bin/env bash
# GPU proof for the findings (issue #12; run on the GPU machine: PyTorch 2.x with CUDA and Triton, no Qt).
# Builds core + tilescope-cli, records tools/gpu/findings_workloads.py's traces (one per findings id, each
# with its problem built in, and a clean warm GPU-bound loop), and checks with `tilescope-cli diagnose` that
# each id fires on its own trace and that the clean run has no gpu-idle, sync-stall, warmup-in-window or
# pageable-memcpy. The traces and diagnose's JSON go to $OUT/findings.tar.gz (the device tool brings back few
# files; the traces are kept as fixtures in tests/data/findings).
# Prints PASS/FAIL lines; exits non-zero when any check failed.
#
# Builds the CLI with tools/gpu/build_cli.sh (which says how to carry nlohmann/json's headers);
# CLI=path/to/tilescope-cli skips the build.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/tilescope-findings-proof}
results=$work/results
python=${PYTHON:-python3}
mkdir -p "$work" "$results/traces"
failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

echo "== torch $("$python" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))')"
# shellcheck source=build_cli.sh
source "$root/tools/gpu/build_cli.sh"
build_cli "$work" || exit 1

"$python" "$root/tools/gpu/findings_workloads.py" "$results/traces" || { echo "FAIL recording the workloads"; exit 1; }

# trace -> the id it must produce ("" for the clean run)
declare -A expect=(
    [launch_bound]=launch-bound [gpu_idle]=gpu-idle [sync_stall]=sync-stall [pageable_memcpy]=pageable-memcpy
    [warmup_in_window]=warmup-in-window [dominant_kernel]=dominant-kernel [tiny_kernels]=tiny-kernels
    [cuda_graph]=cuda-graph [memory_growth]=memory-growth [out_of_memory]=out-of-memory [clean]=""
)
for name in "${!expect[@]}"; do
    trace="$results/traces/$name.json.gz"
    json="$results/$name.diagnose.json"
    "$cli" diagnose "$trace" --format json > "$json" 2> "$work/$name.err" || { fail "$name: diagnose exited non-zero: $(cat "$work/$name.err")"; continue; }
    ids=$("$python" -c "import json,sys; print(' '.join(f['id']+':'+f['strength'] for f in json.load(open(sys.argv[1]))['findings']))" "$json")
    echo "-- $name: $ids"
    want=${expect[$name]}
    if [ -n "$want" ]; then
        case " $ids " in *" $want:"*) pass "$name: $want fires" ;; *) fail "$name: $want does not fire" ;; esac
    else
        bad=""
        for id in gpu-idle sync-stall warmup-in-window pageable-memcpy; do
            case " $ids " in *" $id:"*) bad="$bad $id" ;; esac
        done
        if [ -z "$bad" ]; then pass "clean: no gpu-idle, sync-stall, warmup-in-window or pageable-memcpy"; else fail "clean:$bad fire"; fi
    fi
done
"$cli" diagnose "$results/traces/sync_stall.json.gz" | head -30
[ -n "${OUT:-}" ] && tar czf "$OUT/findings.tar.gz" -C "$results" .
echo "== $failures failure(s)"
exit $((failures > 0))
