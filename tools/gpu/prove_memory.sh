#!/usr/bin/env bash
# GPU proof for the memory recording of profiling sessions (issue #11, "Sessions"; run on the GPU machine:
# PyTorch 2.x with CUDA, no Qt). Builds core + tilescope-cli, then records with `tilescope-cli capture`:
#   1. a script session of tools/gpu/memory_loop.py (allocates in a loop, leaks 4 MiB a step, catches one
#      out-of-memory error) with --memory-snapshot --memory-timeline;
#   2. a kernel session (memory_loop.py:churn_add against torch_add) with --memory-snapshot only;
#   3. the refusals that need no GPU: --memory-snapshot with --device cpu, and in a TorchScript session.
# and checks (tools/gpu/check_memory_session.py) that memory_snapshot.pickle and memory_timeline.json exist, are
# named by the manifest, hold plain data with an allocation history / a timeline with memory in it, and that
# the trace loads in `tilescope-cli summary`. When this build has `tilescope-cli memory` (its --help exits 0),
# runs it on the trace, the pickle and the timeline and compares its peaks with the raw files' figures.
# Prints PASS/FAIL lines; exits non-zero when any check failed.
#
# Builds the CLI with tools/gpu/build_cli.sh (which says how to carry nlohmann/json's headers);
# CLI=path/to/tilescope-cli skips the build (e.g. after prove_sessions.sh built build-gpu).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/tilescope-memory-proof}
results=${OUT:-$work} # small result files; $OUT comes back from the device machine
python=${PYTHON:-python3}
mkdir -p "$work" "$results"
failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

echo "== torch $("$python" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "(no CUDA)")')"
# shellcheck source=build_cli.sh
source "$root/tools/gpu/build_cli.sh"
build_cli "$work" || exit 1
loop="$root/tools/gpu/memory_loop.py"
checker="$root/tools/gpu/check_memory_session.py"
if "$cli" memory --help > /dev/null 2>&1; then has_memory=1; else has_memory=0; echo "== this build has no 'tilescope-cli memory': reading it is skipped"; fi

# tilescope-cli memory on FILE: printed, its JSON kept, and its peaks compared with the raw files' figures.
memory_report() { # LABEL FILE EXPECTED.json KIND(trace|snapshot|timeline)
    local label=$1 file=$2 expected=$3 kind=$4
    [ "$has_memory" = 1 ] || return 0
    echo "-- tilescope-cli memory $(basename "$file")"
    "$cli" memory "$file" 2>&1 | head -40
    "$cli" memory "$file" --format json > "$results/$label-memory-$kind.json"
    check "$label: memory $(basename "$file") --format json exits 0" test $? = 0
    [ "$kind" = timeline ] && return 0 # its figures: the checker printed the timeline's peak above
    "$python" - "$results/$label-memory-$kind.json" "$expected" "$kind" <<'PY' || fail "$label: memory $kind figures equal the raw file's"
import json, sys
got_path, expected_path, kind = sys.argv[1:]
try:
    got = json.load(open(got_path))
except Exception as e:
    sys.exit(f"  not JSON: {e}")
want = json.load(open(expected_path))
bad = []
if kind == "trace":
    devices = {d.get("device"): d for d in got.get("devices", [])}
    for device, figures in want["trace"].items():
        for key in ("peak_allocated_bytes", "peak_reserved_bytes"):
            if devices.get(device, {}).get(key) != figures[key]:
                bad.append(f"{device} {key}: {devices.get(device, {}).get(key)} vs raw {figures[key]}")
    print(f"  devices {sorted(devices)}, ooms {len(got.get('ooms', []))}, steps {len(got.get('steps', []))}, "
          f"suspected_leak {got.get('suspected_leak')}")
elif kind == "snapshot":
    for key in ("reserved_bytes", "allocated_bytes"):
        if key in got and got[key] != want["snapshot"][key]:
            bad.append(f"{key}: {got[key]} vs raw {want['snapshot'][key]}")
    if "actions" in got and got["actions"] != want["snapshot"]["actions"]:
        bad.append(f"actions: {got['actions']} vs raw {want['snapshot']['actions']}")
    print(f"  ooms {len(got.get('ooms', []))}, largest blocks {len(got.get('largest_blocks', []))}")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
}

echo "== 1. script session: --memory-snapshot --memory-timeline"
s="$work/script"
rm -rf "$s"
"$cli" capture --script "$loop" --python "$python" --memory-snapshot --memory-timeline --out "$s" -- 6 2>&1 | tail -12
check "script: capture exited 0" test "${PIPESTATUS[0]}" = 0
"$python" "$checker" "$s" --timeline --oom --expected "$results/script-expected.json" || failures=$((failures + 1))
"$cli" summary "$s/trace.pt.trace.json" --row-limit 8
check "script: tilescope-cli summary loads the trace" test $? = 0
# Distinct names: key_averages has a CPU row and a CUDA (gpu_user_annotation) row for each record_function.
check "script: the trace holds the 6 step_N regions" test "$("$cli" summary "$s/trace.pt.trace.json" --format json \
    | "$python" -c "import json,sys; print(len({r['key'] for r in json.load(sys.stdin)['rows'] if r['key'].startswith('step_')}))" 2> /dev/null)" = 6
memory_report script "$s/trace.pt.trace.json" "$results/script-expected.json" trace
memory_report script "$s/memory_snapshot.pickle" "$results/script-expected.json" snapshot
memory_report script "$s/memory_timeline.json" "$results/script-expected.json" timeline
cp "$s/tilescope-session.json" "$results/script-manifest.json" 2> /dev/null

echo "== 2. kernel session: --memory-snapshot"
k="$work/kernel"
rm -rf "$k"
"$cli" capture --kernel "$loop:churn_add" --ref "$loop:torch_add" --inputs f32:4194304,f32:4194304 --python "$python" \
    --memory-snapshot --out "$k" 2>&1 | tail -8
check "kernel: capture exited 0" test "${PIPESTATUS[0]}" = 0
"$python" "$checker" "$k" --expected "$results/kernel-expected.json" || failures=$((failures + 1))
memory_report kernel "$k/memory_snapshot.pickle" "$results/kernel-expected.json" snapshot

echo "== 3. refusals"
err=$("$cli" capture --script "$loop" --python "$python" --device cpu --memory-snapshot --out "$work/refused-cpu" --quiet 2>&1)
code=$?
echo "$err" | grep -m1 "memory-snapshot"
check "--device cpu: refused with exit 1 and one sentence" test "$code" = 1 -a -n "$(echo "$err" | grep 'needs CUDA and torch')"
check "--device cpu: nothing ran" test ! -e "$work/refused-cpu/trace.pt.trace.json"
err=$("$cli" capture --torchscript "$loop" --inputs f32:4 --memory-snapshot --out "$work/refused-ts" 2>&1)
code=$?
echo "$err" | head -1
check "torchscript: refused as usage (exit 2)" test "$code" = 2 -a -n "$(echo "$err" | grep 'only in script and kernel sessions')"

echo "== $failures failure(s)"
exit $((failures > 0))
