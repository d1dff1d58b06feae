#!/usr/bin/env python3
"""Make a large torch.profiler (Kineto) Chrome trace for benchmarks.

The real events of SOURCE are replicated K times. Copy c (0-based) is shifted
in time by c * (span of the source events + gap) and its ids are offset so
that copies do not collide:

  * args "External id", "correlation", "Python id", "Python parent id"
    (when not null), "Record function id" (when non-zero), "Ev Idx":
    + c * (max value of that key in the source + 1)
    ("Python id"/"Python parent id" share one stride, and "correlation"
    shares its stride with the ac2g flow ids so flows keep matching);
  * flow events (ph "s"/"f") "id": + c * (max flow id of that cat + 1);
  * names "ProfilerStep#N": N + c * (max step number + 1).

ph "M" metadata, the cat "Trace" span and global instants (ph "i", s "g")
are written once; the Trace span is extended to cover every copy, and a
global instant that lies after all source events (e.g. "Record Window End")
is moved along with the last copy.

Timestamps are handled as exact integers (nanoseconds for Kineto's
3-decimal microsecond text); numbers are never round-tripped through float,
every other number is written back with its source text.

Usage:
  python3 tools/make_large_trace.py SOURCE.json[.gz] OUT.json[.gz] --size-mb N
  python3 tools/make_large_trace.py SOURCE.json[.gz] OUT.json[.gz] --copies K
"""

import argparse
import gzip
import json
import math
import os
import re
import sys
import time


class Raw(str):
    """Source text of a JSON number that is not a plain integer."""


_STEP_RE = re.compile(r"^ProfilerStep#(\d+)")
ID_KEYS = ("External id", "correlation", "Python id", "Python parent id",
           "Record function id", "Ev Idx")


# ---------------------------------------------------------------- numbers --

class Time:
    """A ts/dur value as an exact integer in units of 10**-digits us."""
    __slots__ = ("units", "digits", "is_int")

    def __init__(self, units, digits, is_int):
        self.units, self.digits, self.is_int = units, digits, is_int


def parse_time(v):
    """Return Time for a ts/dur JSON value, or None if it is not a number."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return Time(v, 0, True)
    if isinstance(v, Raw):
        s = str(v)
        if "e" in s or "E" in s or s in ("NaN", "Infinity", "-Infinity"):
            from decimal import Decimal
            d = Decimal(s)
            if not d.is_finite():
                return None
            # exact: express with enough fractional digits, at least 3
            exp = -d.as_tuple().exponent
            digits = max(3, exp)
            return Time(int(d.scaleb(digits)), digits, False)
        neg = s.startswith("-")
        if neg:
            s = s[1:]
        ip, _, fp = s.partition(".")
        digits = max(3, len(fp))
        units = int(ip) * 10 ** digits + int(fp.ljust(digits, "0") or "0")
        return Time(-units if neg else units, digits, False)
    return None


def fmt_units(units, digits):
    if digits == 0:
        return str(units)
    sign = "-" if units < 0 else ""
    q, r = divmod(abs(units), 10 ** digits)
    return "%s%d.%0*d" % (sign, q, digits, r)


def ns_value(t):
    """Time -> value in ns (int when exact, else fractions.Fraction)."""
    if t.digits == 0:
        return t.units * 1000
    if t.digits == 3:
        return t.units
    from fractions import Fraction
    return Fraction(t.units, 10 ** (t.digits - 3))


def shifted_text(t, shift_ns):
    """Text of a ts value shifted by shift_ns (an int, multiple of 1000 when
    the value is an integer-microsecond ts)."""
    if t.digits == 0:
        if shift_ns % 1000 == 0:
            return str(t.units + shift_ns // 1000)
        return fmt_units(t.units * 1000 + shift_ns, 3)
    return fmt_units(t.units + shift_ns * 10 ** (t.digits - 3), t.digits)


# ---------------------------------------------------------- serialization --

def dump(v):
    """Serialize a parsed JSON value, numbers with their source text."""
    if isinstance(v, Raw):
        return str.__str__(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):  # not produced by our loader, but be safe
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(dump(k) + ": " + dump(x) for k, x in v.items()) + "}"
    raise TypeError("cannot serialize %r" % (v,))


def dump_pretty(v, indent):
    """Indented serialization for the (small) top-level metadata values."""
    pad = "  " * indent
    if isinstance(v, dict) and v:
        items = [pad + "  " + dump(k) + ": " + dump_pretty(x, indent + 1)
                 for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list) and v and any(isinstance(x, (dict, list)) for x in v):
        items = [pad + "  " + dump_pretty(x, indent + 1) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return dump(v)


class Template:
    """An event pre-serialized into static text and per-copy slots.

    parts: list of str (static) or tuples:
      ("ts", Time)              -> shifted ts text
      ("id", base, stride)      -> str(base + c*stride)
      ("step", pre, n, post, s) -> json string of pre + str(n + c*s) + post
    """
    __slots__ = ("parts", "static")

    def __init__(self, parts):
        merged = []
        for p in parts:
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            else:
                merged.append(p)
        self.parts = merged
        self.static = merged[0] if len(merged) == 1 and isinstance(merged[0], str) else None

    def render(self, c, shift):
        if self.static is not None:
            return self.static
        out = []
        for p in self.parts:
            if isinstance(p, str):
                out.append(p)
            else:
                kind = p[0]
                if kind == "ts":
                    out.append(shifted_text(p[1], c * shift))
                elif kind == "id":
                    out.append(str(p[1] + c * p[2]))
                else:  # step
                    out.append(json.dumps(p[1] + str(p[2] + c * p[4]) + p[3],
                                          ensure_ascii=False))
        return "".join(out)


# ------------------------------------------------------------------ logic --

def is_once(e):
    ph = e.get("ph")
    if ph == "M" or e.get("cat") == "Trace":
        return True
    return ph == "i" and e.get("s") == "g"


def int_val(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source")
    ap.add_argument("out")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--size-mb", type=float,
                   help="target size in MiB: K = ceil(N MiB / uncompressed source size)")
    g.add_argument("--copies", type=int, help="number of copies K")
    ap.add_argument("--gap-ms", type=float, default=1.0,
                    help="gap between copies in ms (default 1)")
    a = ap.parse_args()
    t0 = time.monotonic()

    with open(a.source, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    src_size = len(raw)
    doc = json.loads(raw.decode("utf-8"), parse_float=Raw, parse_constant=Raw)
    del raw
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        sys.exit("error: %s is not a Chrome trace object with traceEvents" % a.source)
    events = doc["traceEvents"]

    if a.copies is not None:
        K = a.copies
    else:
        K = math.ceil(a.size_mb * 1024 * 1024 / src_size)
    K = max(1, K)

    # ---- pass 1: span, maxima
    lo = hi = None
    any_int_ts = False
    maxk = {k: -1 for k in ID_KEYS}
    flow_max = {}
    max_step = -1
    trace_idx = None
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        name = e.get("name")
        if isinstance(name, str):
            m = _STEP_RE.match(name)
            if m:
                max_step = max(max_step, int(m.group(1)))
        args = e.get("args")
        if isinstance(args, dict):
            for k in ID_KEYS:
                v = int_val(args.get(k))
                if v is not None and v > maxk[k]:
                    maxk[k] = v
        if e.get("ph") in ("s", "f"):
            v = int_val(e.get("id"))
            if v is not None:
                cat = e.get("cat")
                flow_max[cat] = max(flow_max.get(cat, -1), v)
        if e.get("cat") == "Trace" and e.get("ph") == "X" and trace_idx is None:
            trace_idx = i
        if is_once(e):
            continue
        t = parse_time(e.get("ts"))
        if t is None:
            continue
        any_int_ts |= t.is_int
        s = ns_value(t)
        d = parse_time(e.get("dur"))
        end = s + (ns_value(d) if d is not None else 0)
        lo = s if lo is None or s < lo else lo
        hi = end if hi is None or end > hi else hi
    if lo is None:
        sys.exit("error: no events with ts to replicate")

    span_ns = hi - lo
    shift = math.ceil(span_ns) + round(a.gap_ms * 1_000_000)
    if any_int_ts:  # integer-us ts must stay integers
        shift = -(-shift // 1000) * 1000

    py_stride = max(maxk["Python id"], maxk["Python parent id"]) + 1
    corr_stride = max(maxk["correlation"], flow_max.get("ac2g", -1)) + 1
    stride = {k: maxk[k] + 1 for k in ID_KEYS}
    stride["Python id"] = stride["Python parent id"] = py_stride
    stride["correlation"] = corr_stride
    flow_stride = {cat: m + 1 for cat, m in flow_max.items()}
    flow_stride["ac2g"] = corr_stride
    step_stride = max_step + 1
    last = (K - 1) * shift

    # ---- pass 2: templates
    def ts_slot(v):
        t = parse_time(v)
        return ("ts", t) if t is not None else dump(v)

    def event_template(e):
        """Kineto-like layout: other keys / ts, dur / args block."""
        ph = e.get("ph")
        line1, ts_part, dur_part = [], [], []
        for k, v in e.items():
            if k == "args":
                continue
            key = dump(k) + ": "
            if k == "ts":
                ts_part = [key, ts_slot(v)]
                continue
            if k == "dur":
                dur_part = [key, dump(v)]  # dur text is kept as is
                continue
            if line1:
                line1.append(", ")
            if k == "id" and ph in ("s", "f") and int_val(v) is not None \
                    and flow_stride.get(e.get("cat"), 0):
                line1 += [key, ("id", v, flow_stride[e.get("cat")])]
            elif k == "name" and isinstance(v, str) and _STEP_RE.match(v) and step_stride:
                m = _STEP_RE.match(v)
                line1 += [key, ("step", v[:m.start(1)], int(m.group(1)),
                                v[m.end(1):], step_stride)]
            else:
                line1 += [key, dump(v)]
        line2 = ts_part + ([", "] if ts_part and dur_part else []) + dur_part
        parts = ["  {\n"]
        groups = [g for g in (line1, line2) if g]
        args = e.get("args")
        for gi, g in enumerate(groups):
            parts.append("    ")
            parts += g
            parts.append(",\n" if gi < len(groups) - 1 or "args" in e else "\n")
        if "args" in e:
            if isinstance(args, dict) and args:
                parts.append('    "args": {\n      ')
                first = True
                for k, v in args.items():
                    if not first:
                        parts.append(", ")
                    first = False
                    parts.append(dump(k) + ": ")
                    iv = int_val(v)
                    if k in ID_KEYS and iv is not None and stride[k] and \
                            not (k == "Record function id" and iv == 0):
                        parts.append(("id", iv, stride[k]))
                    else:
                        parts.append(dump(v))
                parts.append("\n    }\n")
            else:
                parts.append('    "args": ' + dump(args) + "\n")
        parts.append("  }")
        return Template(parts)

    once_text = {}   # index -> text (written once, with copy 0)
    copies = []      # (index, Template) for replicated events
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            once_text[i] = "  " + dump(e)
            continue
        if is_once(e):
            if i == trace_idx:
                t = parse_time(e.get("ts"))
                d = parse_time(e.get("dur"))
                if t is not None and d is not None:
                    tend = ns_value(t) + ns_value(d)
                    new_dur = max(tend, hi) + last - ns_value(t)
                    e = dict(e)
                    if d.is_int and new_dur % 1000 == 0:
                        e["dur"] = new_dur // 1000
                    else:
                        ns = math.ceil(new_dur)
                        e["dur"] = Raw(fmt_units(ns, 3))
            elif e.get("ph") == "i" and e.get("s") == "g":
                t = parse_time(e.get("ts"))
                if t is not None and ns_value(t) >= hi and last:
                    e = dict(e)
                    e["ts"] = Raw(shifted_text(t, last)) if not t.is_int or last % 1000 \
                        else t.units + last // 1000
            once_text[i] = event_template(e).render(0, 0)
        else:
            copies.append((i, event_template(e)))

    # ---- write
    out_gz = a.out.endswith(".gz")
    if out_gz:
        f = gzip.open(a.out, "wt", encoding="utf-8", compresslevel=6, newline="")
    else:
        f = open(a.out, "w", encoding="utf-8", buffering=1 << 20, newline="")
    written = 0
    nbytes = 0
    with f:
        def w(s):
            nonlocal nbytes
            f.write(s)
            nbytes += len(s)  # chars; == bytes for ASCII traces

        w("{\n")
        keys = list(doc.keys())
        for ki, k in enumerate(keys):
            sep = ",\n" if ki < len(keys) - 1 else "\n"
            if k != "traceEvents":
                w("  " + dump(k) + ": " + dump_pretty(doc[k], 1) + sep)
                continue
            w('  "traceEvents": [')
            first = True
            for c in range(K):
                if c == 0:
                    # copy 0 in source order, once-events in their place
                    ci = 0
                    for i in range(len(events)):
                        if i in once_text:
                            s = once_text[i]
                        else:
                            s = copies[ci][1].render(0, shift)
                            ci += 1
                        w(("\n" if first else ",\n") + s)
                        first = False
                        written += 1
                else:
                    for _, tpl in copies:
                        w(",\n" + tpl.render(c, shift))
                        written += 1
            w("\n  ]" + sep)
        w("}\n")

    size = os.path.getsize(a.out)
    dt = time.monotonic() - t0
    print("make_large_trace: %d copies x %d events + %d once = %d events written; "
          "shift %s us; output %s: %d bytes (%.1f MiB)%s; source %.1f MiB; %.1f s"
          % (K, len(copies), len(once_text), written, fmt_units(shift, 3), a.out, size,
             size / 1048576, (", %.1f MiB uncompressed" % (nbytes / 1048576)) if out_gz else "",
             src_size / 1048576, dt), file=sys.stderr)


if __name__ == "__main__":
    main()
