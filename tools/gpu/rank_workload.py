#!/usr/bin/env python3
# A small multi-rank torch.distributed run on one GPU (issue #13's fixtures for `tilescope-cli ranks`): WORLD
# processes with the gloo backend share cuda:0; each step does the same GPU work on every rank, then an
# all_reduce on the CPU (gloo). With --slow-rank R, rank R does extra GPU work before the collective every
# step, so the other ranks wait for it inside gloo's all_reduce: R is the straggler, and its time inside the
# collectives is the shortest. Each rank writes OUTDIR/rank-N.json.gz (torch.profiler adds distributedInfo).
# Usage: rank_workload.py OUTDIR [--world 4] [--slow-rank R] [--steps 6]
import argparse
import gzip
import os
import shutil

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, schedule

SIZE = 2048


def step_work(a, b, extra):
    for _ in range(4 + extra):
        c = a @ b
    torch.cuda.synchronize()
    return c


def run(rank, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    dist.init_process_group("gloo", rank=rank, world_size=args.world)
    torch.cuda.set_device(0)
    a = torch.randn(SIZE, SIZE, device="cuda")
    b = torch.randn(SIZE, SIZE, device="cuda")
    grad = torch.ones(1 << 20)  # 4 MB on the CPU: gloo's all_reduce
    extra = args.extra if rank == args.slow_rank else 0
    total = 2 + args.steps
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=1, active=args.steps),
        record_shapes=True,
    ) as prof:
        for _ in range(total):
            c = step_work(a, b, extra)
            grad.copy_(c[0, :1].cpu().expand(1 << 20))
            dist.all_reduce(grad)
            prof.step()
    raw = os.path.join(args.outdir, f"rank-{rank}.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)
    dist.barrier()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--world", type=int, default=4)
    parser.add_argument("--slow-rank", type=int, default=-1)
    parser.add_argument("--extra", type=int, default=24, help="extra GEMMs per step on the slow rank")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--port", type=int, default=29511)
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    mp.spawn(run, args=(args,), nprocs=args.world, join=True)


if __name__ == "__main__":
    main()
