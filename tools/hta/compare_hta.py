#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""TileScope against Holistic Trace Analysis (HTA) 0.5, side by side, with a third witness: the raw events.

For each trace, every HTA analysis that has a TileScope counterpart runs both ways and once more as a short,
independent computation from the trace's JSON events -- twice, once under each tool's definition:

  raw(TS)   the quantity as TileScope defines it (exact ns from the decimal text of ts/dur, every step);
  raw(HTA)  the quantity as HTA 0.5 defines it (its float parse, ts rounded up and end down on ns traces, the
            last ProfilerStep dropped, its name regexes for kernel types, every event with a `stream` arg).

TileScope must equal raw(TS); HTA should equal raw(HTA), which shows that each remaining difference between the
two tools is the definition it is attributed to, not an unexplained error. Every figure is printed with the
wall time each tool took (HTA: load + analysis in this process; TileScope: the whole CLI run, load included).

Needs HTA 0.5 (pip install HolisticTraceAnalysis==0.5.0) and a built tilescope-cli; not part of the test suite.
A comparison whose tilescope-cli command does not exist yet is skipped with a message.

  python tools/hta/compare_hta.py [--cli build/app/tilescope-cli] [--json OUT.json] [--only temporal,kinds,...]
                                  [TRACE ...]    (default: the shared HTA traces and three H200 traces)
"""

import argparse
import bisect
import gzip
import json
import logging
import math
import os
import re
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

SHARED = "/work/shared/traces"
DEFAULT_TRACES = [
    f"{SHARED}/external/hta/{name}"
    for name in (
        "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
        "critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz",
        "df_index_resolver_df_index_resolver.json.gz",
        "nccl_parser_config_nccl_data.json.gz",
        "negative_queue_length_values_check_rank0.json.gz",
        "ns_resolution_trace_rank0.json.gz",
        "trace_diff_control_control.json.gz",
        "trace_diff_test_test.json.gz",
        "trace_filter_sampled_rank-0.json.gz",
        "trace_filter_sampled_rank-1.json.gz",
        "triton_example_triton_example.json.gz",
        "cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
        "cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz",
    )
] + [f"{SHARED}/h200/{name}" for name in ("train_scheduled/trace.json.gz", "streams_overlap/trace.json",
                                         "launch_bound/trace.json.gz")]
DIFF_PAIR = (
    f"{SHARED}/external/hta/trace_diff_control_control.json.gz",
    f"{SHARED}/external/hta/trace_diff_test_test.json.gz",
)
ANALYSES = ("temporal", "kinds", "commcomp", "idle", "queue", "launches", "sequences", "diff")


# ----------------------------------------------------------------------------------------------------------------
# Raw events: one independent reading of the JSON, used by both definitions below.


def display_name(path):
    """A short name: the shared HTA file without its test-data suffixes, or h200/<recording>."""
    if "/h200/" in path:
        return "h200/" + path.split("/")[-2]
    name = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", os.path.basename(path))
    return re.sub(r"[_.](benchmark_result|Jul_15).*$|_(trace|rank)$", "", name)


def open_json(path, parse_float=None):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=parse_float) if parse_float else json.load(f)


def to_ns(value):
    """Exact ns from the decimal µs text (Decimal or int), half away from zero like TileScope's loader."""
    return int((Decimal(value) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


GPU_CATS = {"kernel": "kernel", "gpu_memcpy": "memory", "memcpy": "memory", "gpu_memset": "memory", "memset": "memory"}


def ts_kind(e):
    """TileScope's kernel type of a GPU activity (trace::isCommunicationKernel); None for anything else."""
    kind = GPU_CATS.get(str(e.get("cat", "")).lower())
    if kind == "kernel":
        name = e.get("name", "")
        name = name[5:] if name.startswith("void ") else name
        kind = "communication" if name.startswith(("ncclKernel_", "ncclDevKernel_")) else "computation"
    return kind


class RawTrace:
    def __init__(self, path):
        self.path = path
        exact = open_json(path, parse_float=Decimal)
        events = exact["traceEvents"] if isinstance(exact, dict) else exact
        self.events = [e for e in events if e.get("ph") == "X" and "ts" in e and "dur" in e]
        # The same events as HTA's float parse sees them (json floats), for HTA's definition.
        self.float_events = [
            dict(e, ts=float(e["ts"]) if isinstance(e["ts"], Decimal) else e["ts"],
                 dur=float(e["dur"]) if isinstance(e["dur"], Decimal) else e["dur"], _exact=e)
            for e in self.events
        ]

    # --- TileScope's definition ---------------------------------------------------------------------------------
    def gpu_activities(self):
        """(device, kind, start_ns, end_ns, event) of kernels, memcpy and memset; kind computation/communication/memory."""
        out = []
        for e in self.events:
            kind = ts_kind(e)
            if kind is None:
                continue
            args = e.get("args") or {}
            device = int(args["device"]) if "device" in args else int(e.get("pid", 0))
            start = to_ns(e["ts"])
            out.append((device, kind, start, start + to_ns(e["dur"]), e))
        return out


    def overlap_window(self):
        """TileScope's default window (`overlap`, `breakdown`): from the first to the last end of GPU activity and
        CPU work; CPU work is every cpu_op, cuda_runtime and cuda_driver event, and a user annotation that holds
        none of them on its thread (a bare record_function region)."""
        recorded = defaultdict(list)
        spans = [(s, e) for _, _, s, e, _ in self.gpu_activities()]
        for e in self.events:
            if str(e.get("cat", "")).lower() in ("cpu_op", "operator", "cuda_runtime", "runtime", "cuda_driver"):
                start = to_ns(e["ts"])
                recorded[(e.get("pid"), e.get("tid"))].append((start, start + to_ns(e["dur"])))
                spans.append(recorded[(e.get("pid"), e.get("tid"))][-1])
        for v in recorded.values():
            v.sort()
        for e in self.events:
            if str(e.get("cat", "")).lower() != "user_annotation":
                continue
            start = to_ns(e["ts"])
            end = start + to_ns(e["dur"])
            inside = recorded.get((e.get("pid"), e.get("tid")), [])
            holds_work = False
            for r_start, r_end in inside[bisect.bisect_left(inside, (start, -(1 << 62))):]:
                if r_start > end or holds_work:
                    break
                holds_work = r_end <= end
            if not holds_work:
                spans.append((start, end))
        return (min(s for s, _ in spans), max(e for _, e in spans)) if spans else None


# ----------------------------------------------------------------------------------------------------------------
# Interval arithmetic (half-open [start, end)).


def union(intervals):
    merged = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def length(merged):
    return sum(e - s for s, e in merged)


def clip(merged, lo, hi):
    return [[max(s, lo), min(e, hi)] for s, e in merged if min(e, hi) > max(s, lo)]


def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s:
            out.append([s, e])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


# ----------------------------------------------------------------------------------------------------------------
# HTA 0.5's definitions, re-implemented from its source (hta/common/trace.py, trace_parser.py, utils/utils.py,
# analyzers/breakdown_analysis.py, communication_analysis.py) to show where each difference comes from.

HTA_NCCL_RE = re.compile(r"^nccl.*Kernel")
HTA_MEMORY_RE = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
HTA_NOT_COMPUTE_RE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


def hta_kernel_type(name):
    if HTA_NCCL_RE.match(name):
        return "communication"
    if HTA_MEMORY_RE.match(name):
        return "memory"
    if not HTA_NOT_COMPUTE_RE.match(name):
        return "computation"
    return "other"


def hta_int(value, default=-1):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def hta_gpu_events(raw, drop_last_step=True, round_ns=True, activity_only=False, ts_types=False):
    """The events HTA's analyses call GPU work (`stream != -1`), as (type, ts_us, end_us, event), in HTA's µs.
    Each HTA rule can be switched to TileScope's, to attribute a difference to its rules one at a time:
    drop_last_step=False keeps the last step; round_ns=False takes exact ns from the decimal text (the times
    are then integer ns, not µs);
    activity_only=True takes kernels, memcpy and memset only; ts_types=True classifies as TileScope does."""
    events = [e for e in raw.float_events if e.get("cat") is not None and e.get("cat") != "Trace"]
    # trace_parser.round_down_time_stamps: only when the ts column is float (any float ts in the file).
    rounding = round_ns and any(isinstance(e["ts"], float) for e in events)

    def span(e):
        if rounding:
            return math.ceil(e["ts"]), math.floor(e["ts"] + e["dur"])
        if not round_ns:  # integer ns: exact sums (divide the figures by 1000)
            start = to_ns(e["_exact"]["ts"])
            return start, start + to_ns(e["_exact"]["dur"])
        return e["ts"], e["ts"] + e["dur"]

    def stream(e):
        return hta_int((e.get("args") or {}).get("stream", -1))

    def correlation(e):
        return hta_int((e.get("args") or {}).get("correlation", -1))

    def is_gpu(e):  # trace_filter._filter_gpu_kernels_with_cuda_sync
        return (stream(e) >= 0 and correlation(e) >= 0) or e.get("name") in ("Event Sync", "Context Sync")

    kept = events
    step_names = {e["name"] for e in events if "ProfilerStep" in str(e.get("name", ""))}
    if drop_last_step and len(step_names) > 1:  # Trace._filter_irrelevant_gpu_kernels
        cpu = [e for e in events if not is_gpu(e)]
        last_start = max(span(e)[0] for e in cpu if e.get("name") in step_names)
        launched = {correlation(e) for e in cpu if span(e)[0] < last_start}
        kept = [e for e in events if is_gpu(e) and correlation(e) in launched]
        kept += [e for e in cpu if span(e)[0] < last_start]
    out = []
    for e in kept:
        if stream(e) == -1 or (activity_only and ts_kind(e) is None):
            continue
        ts, end = span(e)
        kind = (ts_kind(e) or "other") if ts_types else hta_kernel_type(e.get("name", ""))
        out.append((kind, ts, end, e))
    return out


ATTRIBUTION_STAGES = (
    ("HTA's rules", {}),
    ("+ last step kept", dict(drop_last_step=False)),
    ("+ exact ns (no rounding)", dict(drop_last_step=False, round_ns=False)),
    ("+ kernels/memcpy/memset only", dict(drop_last_step=False, round_ns=False, activity_only=True)),
    ("+ TileScope's kernel types", dict(drop_last_step=False, round_ns=False, activity_only=True, ts_types=True)),
)


def attribution(raw):
    """HTA's temporal figures and type unions as each HTA rule is replaced by TileScope's, one at a time; the
    last stage is TileScope's definition over the GPU activity span (TileScope's window then adds CPU time)."""
    rows = []
    for label, options in ATTRIBUTION_STAGES:
        gpu = hta_gpu_events(raw, **options)
        temporal = hta_temporal(gpu) or {}
        parts = hta_kind_partition(gpu)
        unions = {t: sum(v for part, v in parts.items() if t in part) for t in HTA_TYPE_FLAGS}
        scale = 1000 if options.get("round_ns") is False else 1
        rows.append((label, {k: v / scale for k, v in dict(temporal, **unions).items()}))
    return rows


def hta_merge(intervals):
    """utils.merge_kernel_intervals: sorted by start, a new group when a start exceeds every end so far; each group
    (first start, last end). Unlike a union it keeps zero-length events (they can open the window) and events that
    rounding left with end < start (a group of one such event has negative length)."""
    merged, reach = [], None
    for s, e in sorted(intervals):
        if reach is None or s > reach:
            merged.append([s, e])
        else:
            merged[-1][1] = max(merged[-1][1], e)
        reach = e if reach is None else max(reach, e)
    return merged


def hta_temporal(gpu):
    """BreakdownAnalysis.get_temporal_breakdown for one rank: (idle, compute, non_compute, kernel_time) in µs."""
    if not gpu:
        return None
    merged = hta_merge([(ts, end) for _, ts, end, _ in gpu])
    kernel_time = merged[-1][1] - merged[0][0]
    idle = kernel_time - length(merged)
    compute = length(hta_merge([(ts, end) for k, ts, end, _ in gpu if k == "computation"]))
    return {"idle": idle, "compute": compute, "non_compute": kernel_time - compute - idle, "window": kernel_time}


def hta_sweep(merged_by_flag):
    """The sweep of BreakdownAnalysis._get_gpu_kernel_type_time and CommunicationAnalysis: +flag at each merged
    interval's start, -flag at its end, sorted by time; the time until the next change goes to the running sum of
    flags (only positive sums are kept). Returns {running sum: µs}."""
    changes = sorted([(s, f) for f, merged in merged_by_flag.items() for s, _ in merged]
                     + [(e, -f) for f, merged in merged_by_flag.items() for _, e in merged], key=lambda c: c[0])
    spent, running = defaultdict(int), 0
    for (t, change), (t_next, _) in zip(changes, changes[1:]):
        running += change
        if running > 0:
            spent[running] += t_next - t
    return spent


HTA_TYPE_FLAGS = {"computation": 1, "communication": 2, "memory": 4}  # get_gpu_kernel_breakdown's order


def hta_kind_partition(gpu):
    """get_gpu_kernel_breakdown's kernel-type rows as {frozenset of types: µs} (exclusive: 'A overlapping B')."""
    merged = {f: hta_merge([(ts, end) for k, ts, end, _ in gpu if k == t]) for t, f in HTA_TYPE_FLAGS.items()}
    parts = defaultdict(int)
    for running, spent in hta_sweep(merged).items():
        parts[frozenset(t for t, f in HTA_TYPE_FLAGS.items() if running & f)] += spent
    return parts


def hta_comm_comp(gpu):
    """get_comm_comp_overlap: time with both running over the summed merged communication intervals, in %."""
    comm = hta_merge([(ts, end) for k, ts, end, _ in gpu if k == "communication"])
    comp = hta_merge([(ts, end) for k, ts, end, _ in gpu if k == "computation"])
    total = length(comm)
    return round(100 * hta_sweep({1: comm, 2: comp}).get(3, 0) / total, 2) if total else float("nan")


# ----------------------------------------------------------------------------------------------------------------
# Running the two tools.


class Cli:
    def __init__(self, path):
        self.path = path
        self._commands = None

    def has(self, command):
        if self._commands is None:
            proc = subprocess.run([self.path, "--help"], capture_output=True, text=True)
            self._commands = set(re.findall(r"^  ([a-z]+) ", proc.stdout + proc.stderr, re.MULTILINE))
        return command in self._commands

    def json(self, *args):
        t0 = time.perf_counter()
        proc = subprocess.run([self.path, *args, "--format", "json"], capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"tilescope-cli {' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()[:300]}")
        return json.loads(proc.stdout), seconds


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def hta_timed(fn):
    """(value, seconds, error): HTA raises on some traces (an assertion, an empty frame); the error is a figure too."""
    t0 = time.perf_counter()
    try:
        return fn(), time.perf_counter() - t0, None
    except Exception as e:
        return None, time.perf_counter() - t0, f"fails: {type(e).__name__} {str(e)[:40]}".strip()


class HtaRank:
    """One trace loaded by HTA as rank 0 (HTA's default: the last profiler step dropped)."""

    def __init__(self, path):
        from hta.trace_analysis import TraceAnalysis

        self.analysis, self.load_s = timed(lambda: TraceAnalysis(trace_files={0: path}, trace_dir="/"))


# ----------------------------------------------------------------------------------------------------------------
# Rows: (trace, analysis, quantity, hta, ts, raw_ts, raw_hta, hta_s, ts_s, note)


def us(ns):
    return None if ns is None else ns / 1000.0


class Report:
    def __init__(self):
        self.rows = []
        self.skipped = []
        self.attributions = {}  # trace -> [(stage, figures)]

    def add(self, trace, analysis, quantity, hta, ts, raw_ts, raw_hta, hta_s=None, ts_s=None, note=""):
        self.rows.append(dict(trace=trace, analysis=analysis, quantity=quantity, hta=hta, tilescope=ts, raw_ts=raw_ts,
                              raw_hta=raw_hta, hta_s=hta_s, tilescope_s=ts_s, note=note))

    def skip(self, trace, analysis, why):
        self.skipped.append(dict(trace=trace, analysis=analysis, why=why))
        print(f"  skipped {analysis}: {why}", flush=True)


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.3f}".rstrip("0").rstrip(".") if abs(v) < 1e12 else f"{v:.6g}"
    return str(v)


def close(a, b, tol=0.0015):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def us_text(ns):
    return f"{'-' if ns < 0 else ''}{abs(ns) // 1000}.{abs(ns) % 1000:03d}"


ATTRIBUTION_KEYS = ("window", "compute", "non_compute", "idle", "computation", "communication", "memory")


def ts_figures(ts_json):
    d = ts_json["devices"][0]
    k = d["kinds"]
    window = to_ns(Decimal(str(ts_json["window_end_us"]))) - to_ns(Decimal(str(ts_json["window_start_us"])))
    return dict(window=window / 1000, compute=d["compute_us"], non_compute=d["non_compute_us"], idle=d["idle_us"],
                computation=k["computation_us"], communication=k["communication_us"], memory=k["memory_us"])


def print_attribution(stages):
    table = [["why (temporal µs, type unions µs)", *ATTRIBUTION_KEYS]]
    for label, figures in stages:
        table.append([label, *(fmt(round(figures[k], 3)) if k in figures else "-" for k in ATTRIBUTION_KEYS)])
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))


def print_rows(rows):
    header = ["analysis", "quantity", "HTA", "TileScope", "TS-HTA", "raw(TS)", "raw(HTA)", "HTA s", "TS s", ""]
    table = [header]
    for r in rows:
        numbers = all(isinstance(r[k], (int, float)) for k in ("hta", "tilescope"))
        diff = r["tilescope"] - r["hta"] if numbers else None
        flag = ""
        if r["raw_ts"] is not None and r["tilescope"] is not None and not close(r["raw_ts"], r["tilescope"]):
            flag += " TS!=raw"
        if isinstance(r["hta"], (int, float)) and r["raw_hta"] is not None and not close(r["raw_hta"], r["hta"], 0.011):
            flag += " HTA!=raw(HTA)"
        table.append([r["analysis"], r["quantity"], fmt(r["hta"]), fmt(r["tilescope"]), fmt(diff), fmt(r["raw_ts"]),
                      fmt(r["raw_hta"]), fmt(r["hta_s"]), fmt(r["tilescope_s"]), (r["note"] + flag).strip()])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  " + "  ".join(c.ljust(w) if i < 2 or i == len(row) - 1 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())


# ----------------------------------------------------------------------------------------------------------------
# The comparisons.


def compare_breakdown(name, raw, hta, cli, report, wanted):
    """temporal, kinds and commcomp: HTA's three breakdown analyses against one `tilescope-cli breakdown` run."""
    if not cli.has("breakdown"):
        for a in ("temporal", "kinds", "commcomp"):
            if a in wanted:
                report.skip(name, a, "tilescope-cli has no `breakdown` command")
        return
    ts, ts_s = cli.json("breakdown", raw.path)
    activities = raw.gpu_activities()
    hta_gpu = hta_gpu_events(raw)
    devices = ts["devices"]
    if len(devices) > 1:
        report.skip(name, "temporal", f"{len(devices)} devices: HTA merges a file's devices into one rank")
        return
    if not devices:
        report.skip(name, "temporal", "no GPU activity (TileScope reports no device)")
        return
    dev = devices[0]
    # raw(TS) over TileScope's window as computed from the raw events (the window row shows both agree).
    lo, hi = raw.overlap_window()
    ts_window_ns = to_ns(Decimal(str(ts["window_end_us"]))) - to_ns(Decimal(str(ts["window_start_us"])))
    kinds = {k: clip(union([(s, e) for _, kk, s, e, _ in activities if kk == k]), lo, hi)
             for k in ("computation", "communication", "memory")}
    everything = union([iv for v in kinds.values() for iv in v])
    span = union([(s, e) for _, _, s, e, _ in activities])
    gpu_span = (span[0][0], span[-1][1]) if span else (lo, lo)
    raw_hta = hta_temporal(hta_gpu)

    if "temporal" in wanted:
        hta_df, hta_s, error = hta_timed(lambda: hta.analysis.get_temporal_breakdown(visualize=False))
        h = defaultdict(lambda: error) if error else {k: float(v) for k, v in hta_df.iloc[0].items()}
        t_all = hta.load_s + hta_s
        report.add(name, "temporal", "window_us", h["kernel_time(us)"], us(ts_window_ns), us(hi - lo),
                   raw_hta and raw_hta["window"], t_all, ts_s,
                   "HTA: first to last GPU event, last step dropped; TS: CPU work and GPU activity")
        report.add(name, "temporal", "  (GPU activity span)", None, None, us(gpu_span[1] - gpu_span[0]), None)
        report.add(name, "temporal", "compute_us", h["compute_time(us)"], dev["compute_us"],
                   us(length(kinds["computation"])), raw_hta and raw_hta["compute"])
        report.add(name, "temporal", "non_compute_us", h["non_compute_time(us)"], dev["non_compute_us"],
                   us(length(everything) - length(kinds["computation"])), raw_hta and raw_hta["non_compute"])
        report.add(name, "temporal", "idle_us", h["idle_time(us)"], dev["idle_us"],
                   us((hi - lo) - length(everything)), raw_hta and raw_hta["idle"])
        report.add(name, "temporal", "idle_share_%", h["idle_time_pctg"], round(100 * dev["idle_share"], 2),
                   round(100 * ((hi - lo) - length(everything)) / (hi - lo), 2) if hi > lo else None,
                   raw_hta and round(100 * raw_hta["idle"] / raw_hta["window"], 2) if raw_hta and raw_hta["window"] else None)

    if "temporal" in wanted and span:
        # Why: HTA's figures as each of its rules becomes TileScope's, then tilescope-cli over the GPU activity
        # span (must equal the last stage exactly) and over its own window.
        stages = attribution(raw)
        narrowed, _ = cli.json("breakdown", raw.path, "--window", f"{us_text(gpu_span[0])},{us_text(gpu_span[1])}")
        stages.append(("tilescope-cli --window GPU span", ts_figures(narrowed)))
        stages.append(("tilescope-cli (its window)", ts_figures(ts)))
        report.attributions[name] = stages
        last, cli_span = stages[-3][1], stages[-2][1]
        bad = [k for k in ATTRIBUTION_KEYS if k != "window" and not close(last[k], cli_span[k])]
        if bad:
            report.add(name, "why", "TileScope over the GPU span != raw", None, None, None, None, note=", ".join(bad) + " TS!=raw")

    hta_parts = hta_kind_partition(hta_gpu)
    if "kinds" in wanted:
        kt, hta_s, error = hta_timed(lambda: hta.analysis.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True))
        # HTA's rows partition time exclusively ("COMPUTATION", "COMPUTATION overlapping COMMUNICATION", ...); a
        # type's union is the sum of the rows naming it, a pair's overlap the sum of the rows naming both.
        parts = {} if error else {row["kernel_type"]: float(row["sum"]) for _, row in kt[0].iterrows()}

        def hta_union(*types):
            return error or sum(v for k, v in parts.items() if all(t.upper() in k.split(" overlapping ") for t in types))

        k = dev["kinds"]
        t_all = hta.load_s + hta_s
        for label, types, ts_key in (
            ("computation_us", ("computation",), "computation_us"),
            ("communication_us", ("communication",), "communication_us"),
            ("memory_us", ("memory",), "memory_us"),
            ("computation∩communication_us", ("computation", "communication"), "computation_communication_overlap_us"),
            ("computation∩memory_us", ("computation", "memory"), "computation_memory_overlap_us"),
            ("communication∩memory_us", ("communication", "memory"), "communication_memory_overlap_us"),
        ):
            raw_v = kinds[types[0]] if len(types) == 1 else intersect(kinds[types[0]], kinds[types[1]])
            hv = sum(v for part, v in hta_parts.items() if set(types) <= part)
            report.add(name, "kinds", label, hta_union(*types), k[ts_key], us(length(raw_v)), hv,
                       t_all if label == "computation_us" else None, ts_s if label == "computation_us" else None)

    if "commcomp" in wanted:
        cc_df, hta_s, error = hta_timed(lambda: hta.analysis.get_comm_comp_overlap(visualize=False))
        comm = length(kinds["communication"])
        raw_share = round(100 * length(intersect(kinds["computation"], kinds["communication"])) / comm, 2) if comm else None
        raw_hta_share = hta_comm_comp(hta_gpu)
        ts_share = round(100 * dev["kinds"]["communication_overlapped_share"], 2) if comm else None
        report.add(name, "commcomp", "comm_overlapped_by_comp_%", error or float(cc_df.iloc[0]["comp_comm_overlap_pctg"]), ts_share,
                   raw_share, raw_hta_share, hta.load_s + hta_s, ts_s,
                   "" if comm else "no communication kernels: HTA divides by zero (nan)")


def compare_missing(name, command, analysis, cli, report):
    if not cli.has(command):
        report.skip(name, analysis, f"tilescope-cli has no `{command}` command yet")
        return True
    return False


def launches_by_correlation(raw):
    """{correlation: (call name, start ns, end ns)} of the CUDA runtime and driver API calls."""
    calls = {}
    for e in raw.events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "runtime", "cuda_driver") and "correlation" in args:
            start = to_ns(e["ts"])
            calls[args["correlation"]] = (e.get("name", ""), start, start + to_ns(e["dur"]))
    return calls


def streams_of(raw):
    """{(device, stream): [(start ns, end ns, correlation)]} of the GPU activities, sorted."""
    out = defaultdict(list)
    for device, _, start, end, e in raw.gpu_activities():
        args = e.get("args") or {}
        out[(device, hta_int(args.get("stream", e.get("tid"))))].append((start, end, args.get("correlation")))
    for v in out.values():
        v.sort()
    return out


IDLE_CATEGORIES = ("host_wait", "kernel_wait", "other")


def raw_idle_ts(raw, threshold_ns):
    """TileScope's idle split per stream: gaps after everything before them, classified whole (see streamidle.h)."""
    calls = launches_by_correlation(raw)
    result = {}
    for key, acts in streams_of(raw).items():
        split = dict.fromkeys(IDLE_CATEGORIES, 0)
        reach = acts[0][1]
        for start, end, corr in acts[1:]:
            if start > reach:
                call = calls.get(corr)
                kind = ("host_wait" if call and call[1] > reach else "kernel_wait" if start - reach < threshold_ns
                        else "other")
                split[kind] += start - reach
            reach = max(reach, end)
        result[key[1]] = {k: v / 1000 for k, v in split.items()}
    return result


def raw_idle_hta(raw, threshold_us):
    """BreakdownAnalysis.get_idle_time_breakdown: per stream, its kernel/memcpy/memset events in start order; each
    gap is start - the previous event's end (negative on overlap); host wait when the launching CPU event started
    after that end, kernel wait when the gap is below the threshold, else other. HTA's µs and step filter."""
    gpu = [g for g in hta_gpu_events(raw) if GPU_CATS.get(str(g[3].get("cat", "")).lower())]
    cpu_start = {}
    for e in raw.float_events:  # the CPU side of each correlation (HTA's index_correlation), in HTA's µs
        args = e.get("args") or {}
        if hta_int(args.get("stream", -1)) < 0 and hta_int(args.get("correlation", -1)) >= 0:
            ts = math.ceil(e["ts"]) if isinstance(e["ts"], float) else e["ts"]
            cpu_start[hta_int(args["correlation"])] = ts
    per_stream = defaultdict(list)
    for _, ts, end, e in gpu:
        per_stream[hta_int(e["args"]["stream"])].append((ts, end, hta_int(e["args"].get("correlation", -1))))
    result = {}
    for stream, acts in per_stream.items():
        acts.sort(key=lambda a: a[0])
        split = dict.fromkeys(IDLE_CATEGORIES, 0)
        for (_, prev_end, _), (ts, _, corr) in zip(acts, acts[1:]):
            launched = cpu_start.get(corr)
            kind = ("host_wait" if launched is not None and launched > prev_end else "kernel_wait"
                    if ts - prev_end < threshold_us else "other")
            split[kind] += ts - prev_end
        result[stream] = split
    return result


def compare_idle(name, raw, hta, cli, report):
    """get_idle_time_breakdown against `tilescope-cli idle`, both with HTA's 30 µs kernel-wait threshold."""
    if compare_missing(name, "idle", "idle", cli, report):
        return
    threshold_us = 30
    ts, ts_s = cli.json("idle", raw.path, "--kernel-wait-threshold", str(threshold_us))
    (df, _), hta_s, error = (lambda r: ((r[0] if r[0] else (None, None)), r[1], r[2]))(hta_timed(
        lambda: hta.analysis.get_idle_time_breakdown(ranks=[0], visualize=False, consecutive_kernel_delay=threshold_us)))
    hta_split = defaultdict(dict)
    if not error:
        for _, row in df.iterrows():
            hta_split[int(row["stream"])][row["idle_category"]] = float(row["idle_time"])
    raw_ts, raw_hta = raw_idle_ts(raw, threshold_us * 1000), raw_idle_hta(raw, threshold_us)
    first = True
    for s in ts["streams"]:
        stream = s["stream"]
        for category in IDLE_CATEGORIES:
            h = error or hta_split.get(stream, {}).get(category, 0.0)
            report.add(name, "idle", f"stream {stream} {category}_us", h, s[f"{category}_us"],
                       raw_ts.get(stream, {}).get(category), raw_hta.get(stream, {}).get(category),
                       hta.load_s + hta_s if first else None, ts_s if first else None,
                       "threshold 30 µs on both" if first else "")
            first = False


def compare_launches(name, raw, hta, cli, report):
    """get_cuda_kernel_launch_stats against `tilescope-cli launches` (the whole trace)."""
    if compare_missing(name, "launches", "launches", cli, report):
        return
    ts, ts_s = cli.json("launches", raw.path)
    result, hta_s, error = hta_timed(lambda: hta.analysis.get_cuda_kernel_launch_stats(ranks=[0], visualize=False))
    df = None if error else result.get(0)
    calls = launches_by_correlation(raw)
    # raw, TileScope's rules: every runtime/driver call linked to activities; delay = first activity - call start.
    linked = defaultdict(list)
    for _, _, start, end, e in raw.gpu_activities():
        corr = (e.get("args") or {}).get("correlation")
        if corr in calls:
            linked[corr].append((start, end))
    raw_ts = dict(count=len(linked), cpu=sum(calls[c][2] - calls[c][1] for c in linked) / 1000,
                  gpu=sum(e - s for acts in linked.values() for s, e in acts) / 1000,
                  delay=sum(min(s for s, _ in acts) - calls[c][1] for c, acts in linked.items()) / 1000)
    # raw, HTA's rules: only calls named cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync,
    # one row per (call, activity), delay = activity start - call end clipped at 0; HTA's µs and step filter.
    named = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync")
    hta_gpu = hta_gpu_events(raw)
    cpu = {}
    for e in raw.float_events:
        args = e.get("args") or {}
        if e.get("name") in named and hta_int(args.get("stream", -1)) == -1:
            ts0 = math.ceil(e["ts"]) if isinstance(e["ts"], float) else e["ts"]
            end0 = math.floor(e["ts"] + e["dur"]) if isinstance(e["ts"], float) else e["ts"] + e["dur"]
            cpu[hta_int(args.get("correlation", -1))] = (ts0, end0)
    pairs = [(cpu[hta_int(e["args"].get("correlation", -1))], (ts0, end0)) for _, ts0, end0, e in hta_gpu
             if hta_int(e["args"].get("correlation", -1)) in cpu]
    raw_hta = dict(count=len(pairs), cpu=sum(c[1] - c[0] for c, _ in pairs), gpu=sum(g[1] - g[0] for _, g in pairs),
                   delay=sum(max(0, g[0] - c[1]) for c, g in pairs))
    a = ts["all"]
    ts_v = dict(count=a["launches"], cpu=a["cpu_duration"]["mean_us"] * a["cpu_duration"]["count"],
                gpu=a["gpu_duration"]["mean_us"] * a["gpu_duration"]["count"],
                delay=a["launch_delay"]["mean_us"] * a["launch_delay"]["count"])
    hta_v = defaultdict(lambda: error) if error or df is None else dict(
        count=len(df), cpu=float(df["cpu_duration"].sum()), gpu=float(df["gpu_duration"].sum()),
        delay=float(df["launch_delay"].sum()))
    for key, label in (("count", "launches"), ("cpu", "sum CPU duration us"), ("gpu", "sum GPU duration us"),
                       ("delay", "sum launch delay us")):
        report.add(name, "launches", label, hta_v[key], round(ts_v[key], 3), round(raw_ts[key], 3), raw_hta[key],
                   hta.load_s + hta_s if key == "count" else None, ts_s if key == "count" else None,
                   "HTA: 4 runtime names, delay from call end; TS: every linked runtime/driver call, from call start"
                   if key == "count" else "")


def compare_queue(name, raw, hta, cli, report):
    """get_queue_length_summary (max per stream) against `tilescope-cli queue`."""
    if compare_missing(name, "queue", "queue", cli, report):
        return
    ts, ts_s = cli.json("queue", raw.path)
    df, hta_s, error = hta_timed(lambda: hta.analysis.get_queue_length_summary(ranks=[0]))
    hta_max = {}
    if not error and df is not None:
        for (rank, stream), row in df.iterrows():
            hta_max[int(stream)] = float(row[("queue_length", "max")])
    # raw, TileScope's rules: +1 at each linked call's start, -1 at its activity's start; equal times net first.
    calls = launches_by_correlation(raw)
    raw_max = {}
    for (device, stream), acts in streams_of(raw).items():
        changes = defaultdict(int)
        for start, _, corr in acts:
            if corr in calls:
                changes[calls[corr][1]] += 1
                changes[start] -= 1
        length, best = 0, 0
        for t in sorted(changes):
            length += changes[t]
            best = max(best, length)
        raw_max[stream] = best
    first = True
    for s in ts["streams"]:
        report.add(name, "queue", f"stream {s['stream']} max", error or hta_max.get(s["stream"]), s["max"],
                   raw_max.get(s["stream"]), None, hta.load_s + hta_s if first else None, ts_s if first else None,
                   "HTA: named runtime calls only, equal times not netted" if first else "")
        first = False


def op_kernel_steps(raw):
    """Per stream, the GPU activities in start order as (op, kernel name) steps; op is the innermost cpu_op around
    the launch call on its thread, None for memcpy, memset and kernels without one (they end a run)."""
    calls = {}
    for e in raw.events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "runtime", "cuda_driver") and "correlation" in args:
            calls[args["correlation"]] = (e.get("pid"), e.get("tid"), to_ns(e["ts"]))
    ops = defaultdict(list)
    for e in raw.events:
        if str(e.get("cat", "")).lower() in ("cpu_op", "operator"):
            start = to_ns(e["ts"])
            ops[(e.get("pid"), e.get("tid"))].append((start, start + to_ns(e["dur"]), e.get("name")))
    steps = defaultdict(list)
    for device, kind, start, _, e in sorted(raw.gpu_activities(), key=lambda a: a[2]):
        args = e.get("args") or {}
        call = calls.get(args.get("correlation"))
        op = None
        if kind != "memory" and call:
            around = [o for o in ops.get(call[:2], []) if o[0] <= call[2] <= o[1]]
            op = min(around, key=lambda o: o[1] - o[0])[2] if around else None
        steps[(device, args.get("stream"))].append((op, e.get("name")) if op else None)
    return steps


def compare_sequences(name, raw, hta, cli, report):
    """`tilescope-cli sequences`' top sequence against its occurrences counted in the raw events, and HTA's
    get_frequent_cuda_kernel_sequences for the sequence's first op (another question: the kernels under each call
    of one named op, grouped by identical list)."""
    if compare_missing(name, "sequences", "sequences", cli, report):
        return
    ts, ts_s = cli.json("sequences", raw.path)
    if not ts.get("sequences"):
        report.add(name, "sequences", "top sequence occurrences", None, 0, None, None, None, ts_s, "none repeats")
        return
    top = ts["sequences"][0]
    pattern = [(s["op"], s["kernel"]) for s in top["steps"]]
    count = 0
    for stream_steps in op_kernel_steps(raw).values():
        i = 0
        while i + len(pattern) <= len(stream_steps):
            if stream_steps[i:i + len(pattern)] == pattern:
                count += 1
                i += len(pattern)
            else:
                i += 1
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        result, hta_s, error = hta_timed(lambda: hta.analysis.get_frequent_cuda_kernel_sequences(
            pattern[0][0], out, min_pattern_len=len(pattern), visualize=False))
    hta_v = error or (int(result.iloc[0]["count"]) if result is not None and len(result) and "count" in result.columns
                      else "no pattern")
    report.add(name, "sequences", f"top sequence ({len(pattern)} steps from {pattern[0][0]}) occurrences", hta_v,
               top["occurrences"], count, None, hta.load_s + hta_s, ts_s,
               "HTA: kernels under each call of that op, another question")


def compare_diff(cli, report):
    """HTA's TraceDiff.compare_traces (GPU, its default: the first iteration) against `tilescope-cli diff --step`."""
    before, after = DIFF_PAIR
    name = "trace_diff control -> test"
    if not cli.has("diff"):
        report.skip(name, "diff", "tilescope-cli has no `diff` command")
        return
    from hta.common.trace import Trace
    from hta.trace_diff import DeviceType, LabeledTrace, TraceDiff

    def hta_compare():
        control = LabeledTrace("control", t=Trace(trace_files={0: before}, trace_dir="/"))
        test = LabeledTrace("test", t=Trace(trace_files={0: after}, trace_dir="/"))
        return TraceDiff.compare_traces(control, test, device_type=DeviceType.GPU), control

    (hta_df, control), hta_s = timed(hta_compare)
    step = int(control.iterations()[0])
    ts, ts_s = cli.json("diff", before, after, "--step", str(step))
    # TileScope's GPU rows: key_averages rows of kernels, memcpy and memset (device time, no CPU time).
    ts_gpu = {}
    for row in ts["rows"]:
        sides = [row["before"], row["after"]]
        if any(s and s["self_cpu_time_total_us"] for s in sides) or not any(s and s["device_time_total_us"] for s in sides):
            continue
        b, a = sides
        ts_gpu[row["key"]] = (b["count"] if b else 0, a["count"] if a else 0,
                              b["self_device_time_total_us"] if b else 0.0, a["self_device_time_total_us"] if a else 0.0)
    hta_gpu = {key: (int(r["control_counts"]), int(r["test_counts"]), float(r["control_total_duration"]),
                     float(r["test_total_duration"])) for key, r in hta_df.iterrows()}
    raw_b, raw_a = gpu_by_name_in_step(before, step), gpu_by_name_in_step(after, step)

    def raw_table(rule):
        names = set(raw_b[rule]) | set(raw_a[rule])
        return {n: (raw_b[rule].get(n, (0, 0))[0], raw_a[rule].get(n, (0, 0))[0], raw_b[rule].get(n, (0, 0.0))[1],
                    raw_a[rule].get(n, (0, 0.0))[1]) for n in names}

    raw_ts, raw_hta = raw_table("start"), raw_table("launch")

    def total(d, i):
        return round(sum(v[i] for v in d.values()), 3)

    report.add(name, "diff", f"GPU names in step {step}", len(hta_gpu), len(ts_gpu), len(raw_ts), len(raw_hta), hta_s, ts_s,
               "HTA: kernels whose launch is in the step; TS: kernels that start in it")
    for label, i in (("before GPU events", 0), ("after GPU events", 1), ("before GPU us", 2), ("after GPU us", 3)):
        report.add(name, "diff", label, total(hta_gpu, i), total(ts_gpu, i), total(raw_ts, i), total(raw_hta, i))
    delta = lambda d: round(total(d, 3) - total(d, 2), 3)
    report.add(name, "diff", "delta GPU us", delta(hta_gpu), delta(ts_gpu), delta(raw_ts), delta(raw_hta))
    same = lambda d1, d2: sum(1 for n in d1 if n in d2 and d1[n][:2] == d2[n][:2] and all(close(x, y) for x, y in zip(d1[n][2:], d2[n][2:])))
    report.add(name, "diff", "names equal to raw (count, us)", same(hta_gpu, raw_hta), same(ts_gpu, raw_ts), len(raw_ts),
               len(raw_hta), note="raw columns: the names each raw table has")


def gpu_by_name_in_step(path, step):
    """Per GPU activity name, (count, total µs) in ProfilerStep#step under each rule, from the raw events:
    'start': the activity starts inside the step (TileScope's --step: events that start in the window);
    'launch': the CPU event that launched it (same correlation) starts inside the step (HTA's iteration)."""
    raw = RawTrace(path)
    steps = [e for e in raw.events if e.get("name") == f"ProfilerStep#{step}"]
    lo = to_ns(steps[0]["ts"])
    hi = lo + to_ns(steps[0]["dur"])
    launch_start = {}
    for e in raw.events:
        args = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "cuda_driver", "runtime") and "correlation" in args:
            launch_start[args["correlation"]] = to_ns(e["ts"])
    rules = {"start": defaultdict(lambda: [0, 0]), "launch": defaultdict(lambda: [0, 0])}
    for _, _, start, end, e in raw.gpu_activities():
        launched = launch_start.get((e.get("args") or {}).get("correlation"))
        for rule, t in (("start", start), ("launch", launched)):
            if t is not None and lo <= t < hi:
                rules[rule][e["name"]][0] += 1
                rules[rule][e["name"]][1] += end - start
    return {rule: {n: (c, d / 1000) for n, (c, d) in v.items()} for rule, v in rules.items()}


def markdown(report):
    """The README's tables: per trace, HTA and TileScope each next to the raw events under its own rules."""
    def cell(v):
        if v is None:
            return "-"
        if isinstance(v, str):
            return v.replace("|", "/")
        if isinstance(v, float) and math.isnan(v):
            return "nan"
        return f"{v:,.3f}".rstrip("0").rstrip(".") if isinstance(v, float) else f"{v:,}"

    by_trace = defaultdict(dict)
    for r in report.rows:
        by_trace[r["trace"]][(r["analysis"], r["quantity"])] = r
    out = ["| trace | by | window µs | compute µs | non-compute µs | idle µs | comm. overlapped by comp. % | seconds |",
           "|---|---|---|---|---|---|---|---|"]
    quantities = [("temporal", "window_us"), ("temporal", "compute_us"), ("temporal", "non_compute_us"),
                  ("temporal", "idle_us"), ("commcomp", "comm_overlapped_by_comp_%")]
    for trace, rows in by_trace.items():
        if ("temporal", "window_us") not in rows:
            continue
        seconds = rows[("temporal", "window_us")]
        for i, (label, key, time_key) in enumerate((("HTA 0.5", "hta", "hta_s"), ("raw, HTA's rules", "raw_hta", None),
                                                    ("TileScope", "tilescope", "tilescope_s"),
                                                    ("raw, TileScope's rules", "raw_ts", None))):
            cells = [cell(rows[q][key]) if q in rows else "-" for q in quantities]
            t = f"{seconds[time_key]:.2f}" if time_key and seconds[time_key] is not None else ""
            out.append(f"| {trace if i == 0 else ''} | {label} | " + " | ".join(cells) + f" | {t} |")
    out.append("")
    # Kernel types where there is communication: HTA's exclusive rows turned into unions and intersections.
    kinds = [("kinds", q) for q in ("computation_us", "communication_us", "memory_us", "computation∩communication_us",
                                     "computation∩memory_us", "communication∩memory_us")]
    out += ["| trace | by | " + " | ".join(q.replace("_us", " µs") for _, q in kinds) + " |", "|---" * (len(kinds) + 2) + "|"]
    for trace, rows in by_trace.items():
        if not rows.get(("kinds", "communication_us")) or not rows[("kinds", "communication_us")]["raw_ts"]:
            continue
        for i, (label, key) in enumerate((("HTA 0.5", "hta"), ("raw, HTA's rules", "raw_hta"), ("TileScope", "tilescope"),
                                          ("raw, TileScope's rules", "raw_ts"))):
            out.append(f"| {trace if i == 0 else ''} | {label} | " + " | ".join(cell(rows[q][key]) for q in kinds) + " |")
    out.append("")
    # Why: each HTA rule's share of the difference, as the change it makes when replaced by TileScope's.
    out += ["| trace | µs | HTA's rules (= HTA 0.5) | last step kept | exact ns | only kernels, memcpy, memset | TileScope's kernel "
            "types | = TileScope over the GPU span | TileScope's window (CPU work too) | = TileScope |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for trace, stages in report.attributions.items():
        figures = [f for _, f in stages]
        for key in ("compute", "idle"):
            values = [f.get(key) for f in figures]
            if None in values:
                continue
            steps = [values[i + 1] - values[i] for i in range(len(values) - 1)]
            # stages: HTA, 4 rule changes, cli over the span (equal to the last rule stage), cli over its window
            cells = [cell(values[0])] + [("+" if d > 0 else "") + cell(round(d, 3)) if abs(d) > 1e-9 else "0"
                                         for d in steps[:4]]
            cells += [cell(values[5]), ("+" if steps[5] > 0 else "") + cell(round(steps[5], 3)) if abs(steps[5]) > 1e-9
                      else "0", cell(values[6])]
            out.append(f"| {trace if key == 'compute' else ''} | {key.replace('_', '-')} | " + " | ".join(cells) + " |")
    out.append("")
    # Idle per stream (summed over streams), queue (largest per-stream max), launches, sequences.
    columns = [("idle", "host_wait", "idle host wait µs"), ("idle", "kernel_wait", "idle kernel wait µs"),
               ("idle", "other", "idle other µs"), ("queue", "max", "queue max"), ("launches", "launches", "launches"),
               ("launches", "sum CPU", "Σ CPU µs"), ("launches", "sum GPU", "Σ GPU µs"),
               ("launches", "sum launch delay", "Σ launch delay µs"), ("sequences", "top sequence", "top sequence ×")]

    def combined(rows, analysis, needle, key):
        values = [r[key] for r in rows if r["analysis"] == analysis and needle in r["quantity"]]
        if not values:
            return None
        if any(isinstance(v, str) for v in values):
            return next(v for v in values if isinstance(v, str))
        if any(v is None for v in values):
            return None
        return max(values) if needle == "max" else round(sum(values), 3)

    later = [(trace, [r for r in report.rows if r["trace"] == trace and r["analysis"] in
                      ("idle", "queue", "launches", "sequences")]) for trace in by_trace]
    later = [(t, rows) for t, rows in later if rows]
    if later:
        out += ["| trace | by | " + " | ".join(c[2] for c in columns) + " | seconds (idle, queue, launches) |",
                "|---" * (len(columns) + 3) + "|"]
        for trace, rows in later:
            for i, (label, key, time_key) in enumerate((("HTA 0.5", "hta", "hta_s"), ("raw, HTA's rules", "raw_hta", None),
                                                        ("TileScope", "tilescope", "tilescope_s"),
                                                        ("raw, TileScope's rules", "raw_ts", None))):
                times = [next((f"{r[time_key]:.2f}" for r in rows if r["analysis"] == a and r[time_key] is not None), "-")
                         for a in ("idle", "queue", "launches")] if time_key else []
                out.append(f"| {trace if i == 0 else ''} | {label} | "
                           + " | ".join(cell(combined(rows, a, n, key)) for a, n, _ in columns) + f" | {', '.join(times)} |")
        out.append("")
    diff = [r for r in report.rows if r["analysis"] == "diff"]
    if diff:
        out += ["| TraceDiff vs diff | HTA 0.5 | raw, HTA's rules | TileScope | raw, TileScope's rules |", "|---|---|---|---|---|"]
        out += [f"| {r['quantity'].strip()} | {cell(r['hta'])} | {cell(r['raw_hta'])} | {cell(r['tilescope'])} | {cell(r['raw_ts'])} |"
                for r in diff]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="*", help="traces (default: the shared HTA traces and three H200 traces)")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "app", "tilescope-cli"),
                    help="the tilescope-cli to run (default: build/app/tilescope-cli)")
    ap.add_argument("--only", default=",".join(ANALYSES), help="comma-separated: " + ",".join(ANALYSES))
    ap.add_argument("--json", help="write every row and skip as JSON here")
    ap.add_argument("--markdown", help="write the README's tables (Markdown) here")
    ap.add_argument("--from-json", help="only render --markdown from an earlier --json output")
    args = ap.parse_args()
    if args.from_json:
        saved, report = open_json(args.from_json), Report()
        report.rows, report.skipped, report.attributions = saved["rows"], saved["skipped"], saved["attributions"]
        with open(args.markdown or "/dev/stdout", "w") as f:
            f.write(markdown(report))
        return 0
    wanted = set(args.only.split(","))
    unknown = wanted - set(ANALYSES)
    if unknown:
        ap.error(f"unknown analyses {sorted(unknown)}; choose from {','.join(ANALYSES)}")
    if not os.access(args.cli, os.X_OK):
        ap.error(f"{args.cli}: no tilescope-cli there (build it: cmake --build build --target tilescope-cli)")
    try:
        import hta  # noqa: F401
    except ImportError:
        sys.exit("HTA is not installed: pip install HolisticTraceAnalysis==0.5.0")
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    cli = Cli(os.path.abspath(args.cli))
    report = Report()

    for path in args.traces or DEFAULT_TRACES:
        name = display_name(path)
        print(f"\n== {name}", flush=True)
        start = len(report.rows)
        try:
            hta = HtaRank(path)
        except Exception as e:  # HTA cannot read some files (e.g. a memory timeline): say so and go on
            report.skip(name, "all", f"HTA cannot load it: {type(e).__name__}: {str(e)[:160]}")
            continue
        raw = RawTrace(path)
        try:
            if wanted & {"temporal", "kinds", "commcomp"}:
                compare_breakdown(name, raw, hta, cli, report, wanted)
        except Exception as e:
            report.skip(name, "breakdown", f"{type(e).__name__}: {str(e)[:200]}")
        for analysis, compare in (("idle", compare_idle), ("queue", compare_queue), ("launches", compare_launches),
                                  ("sequences", compare_sequences)):
            if analysis in wanted:
                try:
                    compare(name, raw, hta, cli, report)
                except Exception as e:
                    report.skip(name, analysis, f"{type(e).__name__}: {str(e)[:200]}")
        print_rows(report.rows[start:])
        if name in report.attributions:
            print()
            print_attribution(report.attributions[name])

    if "diff" in wanted:
        print("\n== trace_diff control -> test", flush=True)
        start = len(report.rows)
        compare_diff(cli, report)
        print_rows(report.rows[start:])

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": report.rows, "skipped": report.skipped, "attributions": report.attributions}, f, indent=1,
                      default=str)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(report))
    mismatches = [r for r in report.rows if r["raw_ts"] is not None and r["tilescope"] is not None
                  and not close(r["raw_ts"], r["tilescope"])]
    print(f"\n{len(report.rows)} figures, {len(report.skipped)} comparisons skipped, "
          f"{len(mismatches)} where TileScope differs from raw(TS)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
