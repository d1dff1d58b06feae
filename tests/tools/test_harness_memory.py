#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The harness's --memory-snapshot / --memory-timeline logic against stand-in torch modules, so the paths
that need CUDA and torch >= 2.1 are checked on a CPU-only machine too (tst_session runs this):
the refusal sentences, the order of the allocator calls, the file names, the device named to
export_memory_timeline, the options the timeline turns on, failures that leave notes; and, with the torch
installed here, where the kernel and script modes start, dump and export around the profiled window.

    python3 test_harness_memory.py HARNESS.py
"""
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import types

spec = importlib.util.spec_from_file_location("tilescope_harness_under_test", sys.argv[1])
h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)

calls = []
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}:\n    got  {got!r}\n    want {want!r}")


def fake_torch(version="2.5.1", cuda=True, dump=True, max_entries=True, timeline=True, kineto=True, dump_fails=False):
    memory = types.SimpleNamespace()
    if max_entries:
        def record(enabled="all", context="all", stacks="all", max_entries=2 ** 63 - 1, device=None):
            calls.append(("record", None) if enabled is None else ("record", enabled, max_entries))
    else:  # torch 1.13 / 2.0: no max_entries
        def record(enabled, device=None):
            calls.append(("record", enabled))
    memory._record_memory_history = record
    if dump:
        def dump_snapshot(filename="dump_snapshot.pickle"):
            if dump_fails:
                raise RuntimeError("no history")
            calls.append(("dump", filename))
            with open(filename, "wb") as f:
                f.write(b"\x80\x04N.")
        memory._dump_snapshot = dump_snapshot

    class Profile:
        pass
    if timeline:
        Profile.export_memory_timeline = lambda self, path, device=None: None
    torch = types.SimpleNamespace(__version__=version)
    torch.cuda = types.SimpleNamespace(memory=memory, is_available=lambda: cuda, current_device=lambda: 3)
    torch.profiler = types.SimpleNamespace(profile=Profile)
    torch.autograd = types.SimpleNamespace(kineto_available=lambda: kineto)
    torch.device = lambda name: types.SimpleNamespace(index=int(name.split(":")[1]) if ":" in name else None)
    return torch


def recording(torch, cfg, device="cuda", out=None):
    session = {"notes": []}
    return h.MemoryRecording(torch, cfg, device, out or tempfile.mkdtemp(), session), session


def refusal(torch, cfg, device):
    r, _ = recording(torch, cfg, device)
    return r.check(h.has_kineto(torch))


SNAPSHOT = {"memory_snapshot": True}
TIMELINE = {"memory_timeline": True}
BOTH = {"memory_snapshot": True, "memory_timeline": True}
torch_113 = dict(version="1.13.1", cuda=False, dump=False, max_entries=False, timeline=False, kineto=False)

# Refusals: one sentence naming what is missing here.
expect("torch 1.13 CPU, snapshot", refusal(fake_torch(**torch_113), SNAPSHOT, "cpu"),
       "--memory-snapshot needs CUDA and torch \u2265 2.1 (torch 1.13.1 here has no torch.cuda.memory._dump_snapshot "
       "and sees no CUDA device)")
expect("torch 1.13 CPU, both", refusal(fake_torch(**torch_113), BOTH, "cpu"),
       "--memory-snapshot and --memory-timeline need CUDA and torch \u2265 2.1 (torch 1.13.1 here has no "
       "torch.cuda.memory._dump_snapshot and no torch.profiler.profile.export_memory_timeline and sees no CUDA device)")
expect("torch 2.0 with CUDA", refusal(fake_torch(version="2.0.1", max_entries=False), SNAPSHOT, "cuda"),
       "--memory-snapshot needs CUDA and torch \u2265 2.1 (torch 2.0.1 here has no _record_memory_history(max_entries=...))")
expect("CPU-only torch 2.5", refusal(fake_torch(version="2.5.1+cpu", cuda=False), TIMELINE, "cpu"),
       "--memory-timeline needs CUDA and torch \u2265 2.1 (torch 2.5.1+cpu here sees no CUDA device)")
expect("CUDA there, device cpu chosen", refusal(fake_torch(), SNAPSHOT, "cpu"),
       "--memory-snapshot needs CUDA and torch \u2265 2.1 (the session's device is cpu: choose cuda or auto)")
expect("timeline without Kineto", refusal(fake_torch(kineto=False), TIMELINE, "cuda:0"),
       "--memory-timeline needs CUDA and torch \u2265 2.1 (torch 2.5.1 here has no Kineto)")
expect("nothing asked on torch 1.13", refusal(fake_torch(**torch_113), {}, "cpu"), None)
expect("all there", refusal(fake_torch(), BOTH, "cuda:1"), None)

# The snapshot: history on right before the window, dumped and turned off right after it.
torch = fake_torch()
out = tempfile.mkdtemp()
r, session = recording(torch, dict(SNAPSHOT, memory_snapshot_max_entries=1234), "cuda", out)
with contextlib.redirect_stdout(io.StringIO()) as printed:
    r.stop()  # not started: nothing
    expect("stop before start", calls, [])
    r.start()
    r.stop()
    r.stop()  # once only
path = os.path.join(out, "memory_snapshot.pickle")
expect("allocator calls", calls, [("record", "all", 1234), ("dump", path), ("record", None)])
expect("manifest key", session.get("memory_snapshot"), "memory_snapshot.pickle")
expect("artifact line", [json.loads(line[len("@tilescope "):]) for line in printed.getvalue().splitlines()
                         if '"artifact"' in line], [{"event": "artifact", "kind": "memory_snapshot", "path": path}])
calls.clear()
r, session = recording(fake_torch(), SNAPSHOT)
with contextlib.redirect_stdout(io.StringIO()):
    r.start()
expect("default max_entries", calls, [("record", "all", 100000)])
calls.clear()
r, session = recording(fake_torch(dump_fails=True), SNAPSHOT)
with contextlib.redirect_stdout(io.StringIO()):
    r.start()
    r.stop()
expect("failed dump still stops recording", calls[-1], ("record", None))
expect("failed dump: no manifest key", "memory_snapshot" in session, False)
expect("failed dump: a note", session["notes"], ["the memory snapshot was not written: RuntimeError: no history"])
calls.clear()
r, _ = recording(fake_torch(), TIMELINE)
with contextlib.redirect_stdout(io.StringIO()):
    r.start()
    r.stop()
expect("timeline only: no allocator history", calls, [])


# The timeline: the session's CUDA device as cuda:N, first cycle only.
class Prof:
    def __init__(self, fail=False):
        self.devices = []
        self.fail = fail

    def export_memory_timeline(self, path, device=None):
        if self.fail:
            raise ValueError("record_shapes=True required for memory profiling.")
        self.devices.append(device)
        with open(path, "w") as f:
            f.write("[[0], [[0, 0, 0, 0, 0, 0, 0, 0, 0]]]")


for device, named in (("cuda", "cuda:3"), ("cuda:1", "cuda:1")):
    out = tempfile.mkdtemp()
    r, session = recording(fake_torch(), TIMELINE, device, out)
    prof = Prof()
    with contextlib.redirect_stdout(io.StringIO()):
        r.export_timeline(prof)
        r.export_timeline(Prof())  # a later cycle: not exported again
    expect(f"timeline device for {device}", prof.devices, [named])
    expect("timeline file", os.path.isfile(os.path.join(out, "memory_timeline.json")), True)
    expect("timeline manifest key", session.get("memory_timeline"), "memory_timeline.json")
r, session = recording(fake_torch(), TIMELINE)
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    r.export_timeline(Prof(fail=True))
expect("failed timeline: no manifest key", "memory_timeline" in session, False)
expect("failed timeline: a note", session["notes"],
       ["the memory timeline was not written: ValueError: record_shapes=True required for memory profiling."])
r, session = recording(fake_torch(), SNAPSHOT)
prof = Prof()
r.export_timeline(prof)
expect("no timeline asked: none exported", prof.devices, [])

# --memory-timeline turns on what export_memory_timeline needs, and says so.
notes = []
p = h.Profiling(fake_torch(), {"memory_timeline": True, "record_shapes": False}, "cuda", notes)
expect("timeline options", {k: p.options[k] for k in ("record_shapes", "profile_memory", "with_stack")},
       {"record_shapes": True, "profile_memory": True, "with_stack": True})
expect("timeline note", notes, ["--memory-timeline turned on record_shapes and profile_memory and with_stack (torch's "
                                "export_memory_timeline needs record_shapes, profile_memory, with_stack)"])
notes = []
h.Profiling(fake_torch(), {"memory_timeline": True, "profile_memory": True, "with_stack": True}, "cuda", notes)
expect("nothing to turn on: no note", notes, [])
notes = []
p = h.Profiling(fake_torch(), {"memory_snapshot": True}, "cuda", notes)
expect("snapshot leaves profile_memory as chosen", (p.options["profile_memory"], notes), (False, []))


# Where the harness's modes call it, with the real torch here (CPU): the history starts right before the
# profiled window and is dumped right after it (also when the script fails), the timeline is exported
# from the stopped profiler. A stand-in recording marks its calls in the progress output.
class MarkingRecording(h.MemoryRecording):
    def check(self, kineto):
        return None

    def start(self):
        print("@@start profiler-on=%s" % real_torch.autograd._profiler_enabled())

    def stop(self):
        print("@@stop profiler-on=%s" % real_torch.autograd._profiler_enabled())
        self.session["memory_snapshot"] = h.MEMORY_SNAPSHOT

    def export_timeline(self, prof):
        names = {e.name for e in prof.events()}
        print("@@timeline regions=%s" % sorted(n for n in names if n in ("tilelang_kernel", "torch_ref", "train_step")))
        self.session["memory_timeline"] = h.MEMORY_TIMELINE


def run_mode(run, cfg):
    out = tempfile.mkdtemp()
    session = {"cfg": cfg, "checks": [], "notes": []}
    error = None
    with contextlib.redirect_stdout(io.StringIO()) as printed, contextlib.redirect_stderr(io.StringIO()):
        try:
            run(real_torch, dict(cfg, out=out), out, session)
        except h.SessionError as e:
            error = str(e)
    lines = printed.getvalue().splitlines()
    marks = [line for line in lines if line.startswith("@@")]
    profiled = [i for i, line in enumerate(lines) if '"phase": "profile"' in line and "running" not in line
                or line.startswith("trained")]
    at = {line.split()[0]: i for i, line in enumerate(lines) if line.startswith("@@")}
    inside = bool(profiled) and all(at.get("@@start", 1e9) < i < at.get("@@stop", -1) for i in profiled)
    exported = [i for i, line in enumerate(lines) if '"phase": "export"' in line]
    return marks, inside, bool(exported) and at.get("@@stop", 1e9) < exported[0], session, error


try:
    import torch as real_torch
except ImportError:
    real_torch = None
if real_torch is not None:
    h.MemoryRecording = MarkingRecording
    sessions_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sessions")
    kernels = os.path.join(sessions_dir, "kernels.py")
    marks, inside, exported_after, session, error = run_mode(h.run_kernel, {
        "mode": "kernel", "kernel": kernels + ":broadcast_mm", "reference": kernels + ":reference_mm",
        "inputs": "f32:8x8,f32:8x8", "device": "cpu", "warmup": 2, "iters": 3, **BOTH})
    expect("kernel mode: calls", marks, ["@@start profiler-on=False", "@@stop profiler-on=False",
                                         "@@timeline regions=['tilelang_kernel', 'torch_ref']"])
    expect("kernel mode: every measured call between start and stop", inside, True)
    expect("kernel mode: export after stop", exported_after, True)
    expect("kernel mode: manifest keys", (session.get("memory_snapshot"), session.get("memory_timeline"), error),
           ("memory_snapshot.pickle", "memory_timeline.json", None))
    marks, inside, exported_after, session, error = run_mode(h.run_script, {
        "mode": "script", "script": os.path.join(sessions_dir, "train_loop.py"), "args": ["2"], "device": "cpu", **BOTH})
    expect("script mode: calls", marks, ["@@start profiler-on=False", "@@stop profiler-on=False",
                                         "@@timeline regions=['train_step']"])
    expect("script mode: the script runs between start and stop", inside, True)
    expect("script mode: export after stop", exported_after, True)
    marks, _, _, session, error = run_mode(h.run_script, {
        "mode": "script", "script": os.path.join(sessions_dir, "crash.py"), "device": "cpu", **SNAPSHOT})
    expect("crashing script: still dumped", marks[:2], ["@@start profiler-on=False", "@@stop profiler-on=False"])
    expect("crashing script: the failure stands", (error or "").startswith("the script raised ValueError"), True)

if failures:
    print("\n".join("FAIL " + f for f in failures))
    sys.exit(1)
print("ok: harness memory recording")
