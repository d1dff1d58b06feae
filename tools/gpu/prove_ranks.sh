#!/usr/bin/env bash
# GPU proof for several ranks (issue #13; run on the GPU machine: PyTorch 2.x with CUDA, no Qt). Records two
# 4-rank gloo runs of tools/gpu/rank_workload.py on one GPU: `slow` (rank 2 does 7x the GEMMs of the others
# before each all_reduce) and `even` (no slow rank). With CLI=path/to/tilescope-cli (or a build like
# prove_findings.sh's when the ranks command exists) it checks that `ranks` names rank 2 on `slow` and no
# rank on `even`. The traces go to $OUT/ranks.tar.gz (kept as fixtures in tests/data/ranks/gloo).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/tilescope-ranks-proof}
python=${PYTHON:-python3}
rm -rf "$work" && mkdir -p "$work/slow" "$work/even"
failures=0
echo "== torch $("$python" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))')"
"$python" "$root/tools/gpu/rank_workload.py" "$work/slow" --slow-rank 2 --port 29511 || { echo "FAIL recording slow"; exit 1; }
"$python" "$root/tools/gpu/rank_workload.py" "$work/even" --port 29512 || { echo "FAIL recording even"; exit 1; }
ls -la "$work"/slow "$work"/even
if [ -n "${CLI:-}" ]; then
    for run in slow even; do
        "$CLI" ranks "$work/$run" --format json > "$work/$run.ranks.json" || { echo "FAIL ranks $run exited non-zero"; failures=$((failures + 1)); continue; }
        got=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['stragglers'])" "$work/$run.ranks.json")
        want=$([ "$run" = slow ] && echo "[2]" || echo "[]")
        if [ "$got" = "$want" ]; then echo "PASS $run: stragglers $got"; else echo "FAIL $run: stragglers $got, want $want"; failures=$((failures + 1)); fi
    done
fi
[ -n "${OUT:-}" ] && tar -C "$work" -czf "$OUT/ranks.tar.gz" slow even $(cd "$work" && ls *.ranks.json 2>/dev/null)
exit $failures
