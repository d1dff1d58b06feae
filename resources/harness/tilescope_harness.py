#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TileScope's profiling harness: runs a script, or a kernel against its reference, under torch.profiler.

    python tilescope_harness.py --config SESSION.json [--out DIR]

The config is the JSON TileScope writes (docs/sessions.md); "Export harness" writes a copy of this file
with the config embedded, to run on a remote GPU box with just `python FILE.py [--out DIR]`.
Progress goes to stdout as `@tilescope {json}` lines; the output folder gets the trace, torch's own
key_averages rows, the annotations sidecar, generated kernel sources, the memory snapshot and timeline
when asked for, and the manifest (written last).
Works with torch 1.13 (CPU, legacy profiler) and torch 2.x (Kineto, CUDA).
"""
import argparse
import importlib
import importlib.util
import inspect
import json
import os
import re
import runpy
import sys
import threading
import time
import traceback
import types

EMBEDDED_CONFIG = None  # "Export harness" replaces this line with the session's config

MANIFEST = "tilescope-session.json"
TRACE = "trace.pt.trace.json"
MEMORY_SNAPSHOT = "memory_snapshot.pickle"  # core/session/sessionfiles.h spells the same names
MEMORY_TIMELINE = "memory_timeline.json"
KERNEL_REGION = "tilelang_kernel"
REFERENCE_REGION = "torch_ref"

DTYPES = {
    "float32": "float32", "f32": "float32", "float": "float32",
    "float16": "float16", "f16": "float16", "half": "float16",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float64": "float64", "f64": "float64", "double": "float64",
    "int32": "int32", "i32": "int32", "int64": "int64", "i64": "int64",
    "int8": "int8", "i8": "int8", "uint8": "uint8", "u8": "uint8", "bool": "bool",
}


class SessionError(Exception):
    """A problem the user can act on: reported as one clear line, no traceback."""


def emit(event, **fields):
    fields = {"event": event, **fields}
    sys.stdout.write("@tilescope " + json.dumps(fields) + "\n")
    sys.stdout.flush()


def phase(name, message=None, step=None, of=None):
    fields = {"phase": name, "message": message or name}
    if step is not None:
        fields["step"] = step
    if of is not None:
        fields["of"] = of
    emit("phase", **fields)


def log(message):
    emit("log", message=message)


def parse_inputs(spec):
    """docs/sessions.md: 'float32:4096x4096,bf16:64x128' -> [(dtype, [dims])]."""
    out = []
    for i, item in enumerate(s.strip() for s in spec.split(",")):
        if not item:
            continue
        if ":" not in item:
            raise SessionError(f"input {i + 1} '{item}': expected DTYPE:DIMS, e.g. float32:1024x1024")
        dtype, dims = item.split(":", 1)
        if dtype.strip().lower() not in DTYPES:
            raise SessionError(f"input {i + 1} '{item}': unknown dtype '{dtype}' ({', '.join(sorted(set(DTYPES)))})")
        shape = []
        for d in filter(None, dims.strip().lower().split("x")):
            if not d.isdigit():
                raise SessionError(f"input {i + 1} '{item}': '{d}' is not a dimension (dims are x-separated integers)")
            shape.append(int(d))
        out.append((DTYPES[dtype.strip().lower()], shape))
    if not out:
        raise SessionError(f"no inputs in '{spec}'")
    return out


def make_inputs(torch, spec, device):
    torch.manual_seed(0)
    tensors = []
    for dtype_name, shape in parse_inputs(spec):
        dtype = getattr(torch, dtype_name)
        if dtype.is_floating_point:
            tensors.append(torch.randn(*shape, device=device).to(dtype))
        elif dtype == torch.bool:
            tensors.append(torch.randint(0, 2, shape, device=device).bool())
        else:
            tensors.append(torch.randint(0, 16, shape, device=device).to(dtype))
    return tensors


def load_callable(spec, what):
    """'package.module:name', 'path/to/file.py:name' or 'file.py:Class.method'."""
    module_part, _, attr = spec.rpartition(":")
    if not module_part or not attr:
        raise SessionError(f"{what} '{spec}' is not module:callable or file.py:callable")
    try:
        if module_part.endswith(".py") or os.sep in module_part:
            path = os.path.abspath(module_part)
            if not os.path.isfile(path):
                raise SessionError(f"{what}: file '{path}' does not exist")
            sys.path.insert(0, os.path.dirname(path))
            name = "_tilescope_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
            module = sys.modules.get(name)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[name] = module
                loader_spec.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_part)
    except SessionError:
        raise
    except Exception as e:  # the user's module failed to import: show its own traceback
        traceback.print_exc()
        raise SessionError(f"{what}: importing '{module_part}' failed: {type(e).__name__}: {e}")
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SessionError(f"{what}: '{module_part}' has no attribute '{attr}'")
        obj = getattr(obj, part)
    if not callable(obj):
        raise SessionError(f"{what}: '{spec}' is not callable")
    return obj


def has_kineto(torch):
    return bool(getattr(torch.autograd, "kineto_available", lambda: False)())


def memory_recording(torch, cfg, device, out, session):
    """The session's MemoryRecording; refuses before anything runs when it cannot record what was asked."""
    memory = MemoryRecording(torch, cfg, device, out, session)
    problem = memory.check(has_kineto(torch))
    if problem:
        raise SessionError(problem)
    return memory


class Profiling:
    """torch.profiler where it exists (Kineto or its legacy fallback), with only the options this torch knows."""

    def __init__(self, torch, cfg, device, notes):
        self.torch = torch
        self.kineto = has_kineto(torch)
        self.notes = notes
        activities = set(cfg.get("activities") or ["cpu", "cuda"])
        if device.startswith("cuda") and not self.kineto and "cuda" in activities:
            notes.append("this torch has no Kineto: CUDA kernels are not recorded, only CPU ops")
        if not device.startswith("cuda"):
            activities.discard("cuda")
        self.activities = activities
        self.options = {k: bool(cfg.get(k, d)) for k, d in
                        (("record_shapes", True), ("profile_memory", False), ("with_stack", False), ("with_flops", True))}
        if cfg.get("memory_timeline"):
            turned_on = [k for k in MemoryRecording.TIMELINE_NEEDS if not self.options[k]]
            for k in turned_on:
                self.options[k] = True
            if turned_on:
                notes.append(f"--memory-timeline turned on {' and '.join(turned_on)} (torch's export_memory_timeline "
                             f"needs {', '.join(MemoryRecording.TIMELINE_NEEDS)})")

    @property
    def kind(self):
        return "kineto" if self.kineto else "legacy"

    def profile(self, schedule=None, on_trace_ready=None):
        torch = self.torch
        if not hasattr(torch, "profiler"):
            raise SessionError(f"torch {torch.__version__} has no torch.profiler (TileScope needs torch >= 1.8.1)")
        acts = [torch.profiler.ProfilerActivity.CPU] if "cpu" in self.activities else []
        if "cuda" in self.activities:
            acts.append(torch.profiler.ProfilerActivity.CUDA)
        accepted = inspect.signature(torch.profiler.profile.__init__).parameters
        kwargs = {k: v for k, v in self.options.items() if k in accepted}
        for k in self.options:
            if k not in accepted and self.options[k]:
                self.notes.append(f"torch {torch.__version__} profiler has no '{k}': left out")
        kwargs["activities"] = acts
        if schedule is not None:
            kwargs["schedule"] = torch.profiler.schedule(**schedule)
        if on_trace_ready is not None:
            kwargs["on_trace_ready"] = on_trace_ready
        return torch.profiler.profile(**kwargs)


class MemoryRecording:
    """--memory-snapshot and --memory-timeline (docs/sessions.md, "Memory recording").

    The snapshot is the CUDA caching allocator's history, recorded from right before the profiled window to
    right after it and dumped as a pickle; the timeline is torch's per-category memory plot of the profiled
    window. Both need a CUDA device and torch >= 2.1; check() refuses before anything runs."""

    TIMELINE_NEEDS = ("record_shapes", "profile_memory", "with_stack")

    def __init__(self, torch, cfg, device, out, session):
        self.torch = torch
        self.snapshot = bool(cfg.get("memory_snapshot"))
        self.timeline = bool(cfg.get("memory_timeline"))
        self.max_entries = int(cfg.get("memory_snapshot_max_entries") or 100000)
        self.device = device
        self.out = out
        self.session = session
        self.recording = False

    def check(self, kineto):
        """One sentence when what was asked for cannot be recorded here, else None."""
        wanted = [opt for opt, on in (("--memory-snapshot", self.snapshot), ("--memory-timeline", self.timeline)) if on]
        if not wanted:
            return None
        torch = self.torch
        missing = []
        if self.snapshot:
            memory = getattr(torch.cuda, "memory", None)
            record = getattr(memory, "_record_memory_history", None)
            if record is None or not hasattr(memory, "_dump_snapshot"):
                missing.append("torch.cuda.memory._dump_snapshot" if record else "torch.cuda.memory._record_memory_history")
            elif "max_entries" not in inspect.signature(record).parameters:
                missing.append("_record_memory_history(max_entries=...)")
        if self.timeline:
            if not hasattr(getattr(torch, "profiler", None), "profile") or \
                    not hasattr(torch.profiler.profile, "export_memory_timeline"):
                missing.append("torch.profiler.profile.export_memory_timeline")
            elif not kineto:
                missing.append("Kineto")
        reasons = []
        if missing:
            reasons.append(f"torch {torch.__version__} here has no {' and no '.join(missing)}")
        if not torch.cuda.is_available():
            reasons.append(("and " if reasons else f"torch {torch.__version__} here ") + "sees no CUDA device")
        elif not self.device.startswith("cuda"):
            reasons.append(("and " if reasons else "") + f"the session's device is {self.device}: choose cuda or auto")
        if not reasons:
            return None
        return f"{' and '.join(wanted)} need{'s' if len(wanted) == 1 else ''} CUDA and torch \u2265 2.1 ({' '.join(reasons)})"

    def cuda_device(self):
        """'cuda:N', as export_memory_timeline names a device."""
        index = self.torch.device(self.device).index
        return f"cuda:{self.torch.cuda.current_device() if index is None else index}"

    def start(self):
        """Right before the profiled window."""
        if not self.snapshot:
            return
        self.torch.cuda.memory._record_memory_history(max_entries=self.max_entries)
        self.recording = True
        log(f"recording the CUDA allocator's history (max_entries={self.max_entries})")

    def stop(self):
        """Right after the profiled window, also when it failed (an out-of-memory error is when the snapshot
        matters most): dump the history and stop recording."""
        if not self.recording:
            return
        self.recording = False
        path = os.path.join(self.out, MEMORY_SNAPSHOT)
        try:
            self.torch.cuda.memory._dump_snapshot(path)
            emit("artifact", kind="memory_snapshot", path=path)
            self.session["memory_snapshot"] = MEMORY_SNAPSHOT
        except Exception as e:
            self.session["notes"].append(f"the memory snapshot was not written: {type(e).__name__}: {e}")
        finally:
            self.torch.cuda.memory._record_memory_history(enabled=None)

    def export_timeline(self, prof):
        """After the profiler stopped (its first cycle only, the one the manifest's trace names)."""
        if not self.timeline or "memory_timeline" in self.session:
            return
        device = self.cuda_device()
        phase("export", f"exporting the memory timeline of {device}")
        path = os.path.join(self.out, MEMORY_TIMELINE)
        try:
            prof.export_memory_timeline(path, device=device)
        except Exception as e:  # the trace is still good: say why the timeline is missing
            traceback.print_exc()
            self.session["notes"].append(f"the memory timeline was not written: {type(e).__name__}: {e}")
            return
        emit("artifact", kind="memory_timeline", path=path)
        self.session["memory_timeline"] = MEMORY_TIMELINE


def average_row(evt, by_shape):
    def first(*names):
        for n in names:
            if hasattr(evt, n):
                return getattr(evt, n)
        return 0
    return {
        "key": evt.key,
        "input_shapes": str(evt.input_shapes) if by_shape else None,
        "count": evt.count,
        "self_cpu_time_total_us": evt.self_cpu_time_total,
        "cpu_time_total_us": evt.cpu_time_total,
        "self_device_time_total_us": first("self_device_time_total", "self_cuda_time_total"),
        "device_time_total_us": first("device_time_total", "cuda_time_total"),
        "cpu_memory_usage": evt.cpu_memory_usage,
        "self_cpu_memory_usage": evt.self_cpu_memory_usage,
        "device_memory_usage": first("device_memory_usage", "cuda_memory_usage"),
        "self_device_memory_usage": first("self_device_memory_usage", "self_cuda_memory_usage"),
        "flops": evt.flops,
    }


def export(torch, prof, out, trace_name, keyavg_name, session, memory=None):
    """The trace and torch's own key_averages rows (the form of `tilescope-cli summary --format json`), and
    the memory timeline when asked for."""
    phase("export", f"exporting {trace_name}")
    trace_path = os.path.join(out, trace_name)
    prof.export_chrome_trace(trace_path)
    emit("artifact", kind="trace", path=trace_path)
    rows = [average_row(e, False) for e in prof.key_averages()]
    by_shape = [average_row(e, True) for e in prof.key_averages(group_by_input_shape=True)] \
        if session["cfg"].get("record_shapes", True) else []
    keyavg_path = os.path.join(out, keyavg_name)
    with open(keyavg_path, "w") as f:
        json.dump({"trace": trace_path, "torch": torch.__version__, "sort_by": "self_cpu_time_total",
                   "rows": rows, "rows_by_input_shape": by_shape}, f, indent=1)
        f.write("\n")
    emit("artifact", kind="key_averages", path=keyavg_path)
    if memory is not None:
        memory.export_timeline(prof)
    return trace_path, keyavg_path


def synchronize(torch, device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def pick_device(torch, wanted):
    if not wanted or wanted == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if wanted.startswith("cuda") and not torch.cuda.is_available():
        raise SessionError(f"device '{wanted}' was asked for, but torch {torch.__version__} sees no CUDA device")
    if wanted != "cpu" and not wanted.startswith("cuda"):
        raise SessionError(f"unknown device '{wanted}' (cpu, cuda, cuda:N)")
    return wanted


def device_properties(torch, device):
    if not device.startswith("cuda"):
        return {"name": "cpu", "type": "cpu"}
    index = torch.device(device).index or 0
    p = torch.cuda.get_device_properties(index)
    return {"name": p.name, "type": "cuda", "index": index, "compute_capability": f"{p.major}.{p.minor}",
            "sm_count": p.multi_processor_count, "total_memory": p.total_memory}


# ---------------------------------------------------------------- script mode

class StepCounter:
    """Advances the profiler schedule on every optimizer step and on tilescope.step()."""

    def __init__(self, torch):
        self.torch = torch
        self.prof = None
        self.steps = 0
        self.total = None
        self._inside = False
        self.open_regions = 0  # record_function scopes open on the script's thread
        self.pending = 0

    def track_regions(self):
        """A step taken inside `with record_function(...)` (e.g. opt.step() inside a "train_step" region) is
        applied when the outermost region closes, so ProfilerStep#N never ends inside a user region and the
        ranges nest as torch.profiler expects (prof.step() outside every region)."""
        cls = self.torch.autograd.profiler.record_function
        enter, exit_ = cls.__enter__, cls.__exit__
        counter = self

        main_thread = threading.get_ident()

        def user_region(rf):  # torch's own ProfilerStep#N range is not one
            return threading.get_ident() == main_thread and not str(getattr(rf, "name", "")).startswith("ProfilerStep#")

        def tracked_enter(rf):
            if user_region(rf):
                counter.open_regions += 1
            return enter(rf)

        def tracked_exit(rf, *args):
            try:
                return exit_(rf, *args)
            finally:
                if user_region(rf):
                    counter.open_regions = max(0, counter.open_regions - 1)
                    if counter.open_regions == 0:
                        counter.flush()
        cls.__enter__, cls.__exit__ = tracked_enter, tracked_exit

    def flush(self):
        while self.pending and self.prof is not None:
            self.pending -= 1
            self.prof.step()

    def step(self):
        self.steps += 1
        if self.prof is not None:
            if self.open_regions > 0:
                self.pending += 1  # inside a user region: step when the outermost one closes
            else:
                self.prof.step()
        within = self.total is not None and self.steps <= self.total
        if within:
            phase("profile", f"step {self.steps}", step=self.steps, of=self.total)
        elif self.steps % 100 == 0 or self.total is None and self.steps <= 3:
            log(f"step {self.steps}")

    def install_optimizer_hook(self):
        """Count every optimizer step, after its Optimizer.step record_function has closed.

        torch's global step hooks (torch >= 2.0) run inside that record_function, so a schedule advanced
        from them would end ProfilerStep#N in the middle of Optimizer.step and the ranges would not nest.
        Instead each optimizer class's step() gets an outermost wrapper, installed right after torch's
        own profiling wrapper (Optimizer.__init__ puts that on the class)."""
        torch = self.torch
        counter = self
        original_init = torch.optim.Optimizer.__init__

        def init(opt, *args, **kwargs):
            original_init(opt, *args, **kwargs)
            cls = type(opt)
            if not getattr(cls.step, "_tilescope_counts", False):
                cls.step = counter._wrap(cls.step)
        init.__wrapped__ = original_init
        torch.optim.Optimizer.__init__ = init
        return "every optimizer.step()"

    def _wrap(self, original):
        counter = self

        def step(opt, *args, **kwargs):
            if counter._inside:  # a subclass's step() calling its parent's counts once
                return original(opt, *args, **kwargs)
            counter._inside = True
            try:
                return original(opt, *args, **kwargs)
            finally:
                counter._inside = False
                counter.step()
        step.__wrapped__ = original
        step._tilescope_counts = True
        step.hooked = True  # torch's marker: do not wrap this step() in another profiling wrapper
        return step


def tilescope_module(counter, torch):
    """`import tilescope` inside a profiled script: step() and region(name)."""
    module = types.ModuleType("tilescope")
    module.step = counter.step
    module.region = lambda name: torch.autograd.profiler.record_function(name)
    module.profiling = True
    return module


def run_script(torch, cfg, out, session):
    script = cfg.get("script") or ""
    if not os.path.isfile(script):
        raise SessionError(f"script '{script}' does not exist")
    device = pick_device(torch, cfg.get("device"))
    session["device"] = device_properties(torch, device)
    memory = memory_recording(torch, cfg, device, out, session)
    prof_factory = Profiling(torch, cfg, device, session["notes"])
    session["profiler"] = prof_factory.kind
    counter = StepCounter(torch)
    sys.modules["tilescope"] = tilescope_module(counter, torch)
    how = counter.install_optimizer_hook()
    counter.track_regions()
    schedule = cfg.get("schedule")
    traces = []

    def on_ready(prof):
        n = len(traces)
        name = TRACE if n == 0 else f"trace.cycle{n + 1}.pt.trace.json"
        keyavg = "key_averages.json" if n == 0 else f"key_averages.cycle{n + 1}.json"
        traces.append(export(torch, prof, out, name, keyavg, session, memory))

    if schedule:
        counter.total = (schedule["wait"] + schedule["warmup"] + schedule["active"]) * max(schedule["repeat"], 1)
        log(f"schedule wait={schedule['wait']} warmup={schedule['warmup']} active={schedule['active']} "
            f"repeat={schedule['repeat']}; steps advance on {how} and on tilescope.step()")
    sys.argv = [script] + list(cfg.get("args") or [])
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    phase("profile", f"running {os.path.basename(script)}")
    failure = None
    prof = prof_factory.profile(schedule=schedule, on_trace_ready=on_ready if schedule else None)
    memory.start()
    prof.__enter__()
    counter.prof = prof if schedule else None
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            failure = f"the script exited with code {e.code}"
    except BaseException as e:  # the user's code failed: keep what was profiled so far
        traceback.print_exc()
        failure = f"the script raised {type(e).__name__}: {e}"
    finally:
        counter.open_regions = 0
        counter.flush()  # a step still waiting on a region the script never closed
        counter.prof = None
        try:
            prof.__exit__(None, None, None)
        finally:
            memory.stop()
    if not schedule:
        on_ready(prof)
    elif not traces:
        session["notes"].append(
            f"the schedule never completed an active window: the script made {counter.steps} steps, the schedule "
            f"needs {schedule['wait'] + schedule['warmup'] + schedule['active']} (call tilescope.step() per "
            f"iteration, or profile without a schedule)")
        if failure is None:
            failure = "no trace: the schedule never reached its active window"
    if schedule and traces and counter.steps < schedule["wait"] + schedule["warmup"] + schedule["active"]:
        session["notes"].append(
            f"the script ended after {counter.steps} steps, inside the first active window: the trace holds "
            f"{counter.steps - schedule['wait'] - schedule['warmup']} of {schedule['active']} active steps")
    if traces:
        session["trace"], session["key_averages"] = (os.path.relpath(p, out) for p in traces[0])
        if len(traces) > 1:
            session["more_traces"] = [os.path.relpath(t, out) for t, _ in traces[1:]]
    session["steps"] = counter.steps
    if failure:
        raise SessionError(failure)


# ---------------------------------------------------------------- kernel-vs-reference mode

def as_tensors(value):
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in as_tensors(v)]
    return [value]


def compare(torch, got, want, rtol, atol):
    got_t, want_t = as_tensors(got), as_tensors(want)
    check = {"name": "allclose", "rtol": rtol, "atol": atol}
    if not got_t:
        check.update(passed=False, detail="the kernel returned nothing to compare (an in-place kernel? return its output)")
        return check
    if len(got_t) != len(want_t):
        check.update(passed=False, detail=f"the kernel returned {len(got_t)} tensors, the reference {len(want_t)}")
        return check
    worst = 0.0
    passed = True
    for i, (g, w) in enumerate(zip(got_t, want_t)):
        if not (hasattr(g, "shape") and hasattr(w, "shape")):
            check.update(passed=False, detail=f"output {i} is not a tensor")
            return check
        if tuple(g.shape) != tuple(w.shape):
            check.update(passed=False, detail=f"output {i}: shape {tuple(g.shape)} vs reference {tuple(w.shape)}")
            return check
        g64, w64 = g.detach().double().cpu(), w.detach().double().cpu()
        if g64.numel():
            worst = max(worst, float((g64 - w64).abs().max()))
        passed = passed and bool(torch.allclose(g64, w64, rtol=rtol, atol=atol))
    check.update(passed=passed, max_abs_error=worst,
                 detail=f"{len(got_t)} output(s), max |kernel - reference| = {worst:.3g} "
                        f"(rtol={rtol:g}, atol={atol:g})")
    return check


def kernel_names(source):
    return re.findall(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?(\w+)\s*\(", source)


def save_kernel_source(kernel, out, session):
    getter = getattr(kernel, "get_kernel_source", None)
    if getter is None:
        return None
    try:
        source = getter()
    except Exception as e:
        session["notes"].append(f"get_kernel_source() failed: {type(e).__name__}: {e}")
        return None
    if not isinstance(source, str) or not source.strip():
        return None
    names = kernel_names(source)
    name = names[0] if names else "kernel"
    os.makedirs(os.path.join(out, "sources"), exist_ok=True)
    rel = os.path.join("sources", re.sub(r"[^\w.-]", "_", name) + ".cu")
    with open(os.path.join(out, rel), "w") as f:
        f.write(source)
    emit("artifact", kind="source", path=os.path.join(out, rel))
    session["sources"] = [{"kernel": n, "path": rel} for n in (names or [name])]
    return rel


def write_annotations(cfg, out, trace_rel, source_rel, session):
    flops, nbytes = cfg.get("flops"), cfg.get("bytes")
    if flops is None and nbytes is None:
        return
    # The reference does the same work unless told otherwise.
    ref_flops = cfg["ref_flops"] if cfg.get("ref_flops") is not None else flops
    ref_bytes = cfg["ref_bytes"] if cfg.get("ref_bytes") is not None else nbytes

    def entry(region, f, b, source=None):
        e = {"region": region}
        if f is not None:
            e["flops"] = f
        if b is not None:
            e["bytes"] = b
        if source:
            e["source"] = source
        return e
    doc = {"annotations": [entry(KERNEL_REGION, flops, nbytes, source_rel), entry(REFERENCE_REGION, ref_flops, ref_bytes)]}
    rel = trace_rel + ".annotations.json"
    with open(os.path.join(out, rel), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    emit("artifact", kind="annotations", path=os.path.join(out, rel))
    session["annotations"] = rel


def run_kernel(torch, cfg, out, session):
    device = pick_device(torch, cfg.get("device"))
    session["device"] = device_properties(torch, device)
    memory = memory_recording(torch, cfg, device, out, session)
    prof_factory = Profiling(torch, cfg, device, session["notes"])
    session["profiler"] = prof_factory.kind
    phase("setup", f"loading {cfg.get('kernel')} and {cfg.get('reference')} on {device}")
    kernel = load_callable(cfg.get("kernel", ""), "kernel")
    reference = load_callable(cfg.get("reference", ""), "reference")
    inputs = make_inputs(torch, cfg.get("inputs", ""), device)

    # Build, compile and the first (JIT) call stay outside the profiled window.
    phase("build", "building the kernel (outside the profiled window)")
    t0 = time.perf_counter()
    try:
        if cfg.get("kernel_factory"):
            kernel = kernel()
            if not callable(kernel):
                raise SessionError("the kernel factory did not return a callable")
        got = kernel(*inputs)
        synchronize(torch, device)
    except SessionError:
        raise
    except Exception as e:
        traceback.print_exc()
        raise SessionError(f"the kernel failed on its first call: {type(e).__name__}: {e}")
    build_s = time.perf_counter() - t0
    try:
        want = reference(*inputs)
        synchronize(torch, device)
    except Exception as e:
        traceback.print_exc()
        raise SessionError(f"the reference failed: {type(e).__name__}: {e}")
    session["notes"].append(f"build and first call took {build_s:.3f} s, outside the profiled window")
    source_rel = save_kernel_source(kernel, out, session)

    phase("check", "checking the kernel against the reference (allclose)")
    check = compare(torch, got, want, float(cfg.get("rtol", 1e-2)), float(cfg.get("atol", 1e-2)))
    session["checks"].append(check)
    log(("allclose passed: " if check["passed"] else "allclose FAILED: ") + check["detail"])

    warmup = int(cfg.get("warmup", 10))
    iters = int(cfg.get("iters", 5))
    for i in range(warmup):
        kernel(*inputs)
        reference(*inputs)
        phase("warmup", f"warm-up {i + 1}/{warmup}", step=i + 1, of=warmup)
    synchronize(torch, device)

    record = torch.autograd.profiler.record_function
    prof = prof_factory.profile()
    memory.start()
    try:
        with prof:
            for i in range(iters):
                with record(KERNEL_REGION):
                    kernel(*inputs)
                phase("profile", f"{KERNEL_REGION} {i + 1}/{iters}", step=i + 1, of=2 * iters)
            synchronize(torch, device)
            for i in range(iters):
                with record(REFERENCE_REGION):
                    reference(*inputs)
                phase("profile", f"{REFERENCE_REGION} {i + 1}/{iters}", step=iters + i + 1, of=2 * iters)
            synchronize(torch, device)
    finally:
        memory.stop()
    trace_path, keyavg_path = export(torch, prof, out, TRACE, "key_averages.json", session, memory)
    session["trace"], session["key_averages"] = os.path.relpath(trace_path, out), os.path.relpath(keyavg_path, out)
    write_annotations(cfg, out, session["trace"], source_rel, session)


# ---------------------------------------------------------------- main

def write_manifest(out, session):
    manifest = {"version": 1, "mode": session["cfg"].get("mode", "script"), "status": session["status"],
                "torch": session.get("torch", ""), "profiler": session.get("profiler", ""),
                "python": sys.executable, "device": session.get("device", {})}
    for key in ("trace", "key_averages", "annotations", "more_traces", "memory_snapshot", "memory_timeline", "steps"):
        if key in session:
            manifest[key] = session[key]
    manifest["sources"] = session.get("sources", [])
    manifest["checks"] = session["checks"]
    manifest["notes"] = session["notes"]
    if session.get("error"):
        manifest["error"] = session["error"]
    path = os.path.join(out, MANIFEST)
    with open(path, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    emit("artifact", kind="manifest", path=path)
    emit("result", manifest=path)


def main(argv=None):
    parser = argparse.ArgumentParser(description="TileScope profiling harness")
    parser.add_argument("--config", help="session config JSON (docs/sessions.md)")
    parser.add_argument("--out", help="output folder (overrides the config's)")
    args = parser.parse_args(argv)
    if args.config:
        with open(args.config) as f:
            cfg = json.load(f)
    elif EMBEDDED_CONFIG is not None:
        cfg = dict(EMBEDDED_CONFIG)
    else:
        parser.error("--config is required")
    if args.out:
        cfg["out"] = args.out
    out = os.path.abspath(cfg.get("out") or "tilescope-session")
    os.makedirs(out, exist_ok=True)
    session = {"cfg": cfg, "status": "failed", "checks": [], "notes": []}
    code = 1
    try:
        phase("setup", f"python {sys.version.split()[0]} at {sys.executable}")
        try:
            import torch
        except ImportError as e:
            raise SessionError(f"torch is not installed for {sys.executable} ({e}); pick the interpreter of an "
                               f"environment that has PyTorch")
        session["torch"] = torch.__version__
        mode = cfg.get("mode", "script")
        if mode == "script":
            run_script(torch, cfg, out, session)
        elif mode == "kernel":
            run_kernel(torch, cfg, out, session)
        else:
            raise SessionError(f"the Python harness runs 'script' and 'kernel' sessions, not '{mode}'")
        session["status"] = "ok"
        code = 0
        phase("done", "done")
    except SessionError as e:
        session["error"] = str(e)
        emit("error", message=str(e))
        print(f"tilescope harness: {e}", file=sys.stderr)
    except BaseException as e:
        traceback.print_exc()
        session["error"] = f"{type(e).__name__}: {e}"
        emit("error", message=session["error"])
    finally:
        write_manifest(out, session)
    return code


if __name__ == "__main__":
    sys.exit(main())
