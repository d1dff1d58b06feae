"""torch's key_averages as the reference rows TileScope is checked against (the form of
../shared/traces/h200/*/ref_key_averages*.json), written plain and by input shape. One home for the
scripts that record a trace with its reference (make_reference_trace.py, record_large_trace.py)."""
import json, os


def rows(prof, group):
    import torch
    res = []
    for e in prof.key_averages(group_by_input_shape=group):
        res.append({"key": e.key, "count": e.count,
                    "cpu_time_total_us": e.cpu_time_total, "self_cpu_time_total_us": e.self_cpu_time_total,
                    "device_time_total_us": e.device_time_total, "self_device_time_total_us": e.self_device_time_total,
                    "cpu_memory_usage": e.cpu_memory_usage, "self_cpu_memory_usage": e.self_cpu_memory_usage,
                    "device_memory_usage": e.device_memory_usage, "self_device_memory_usage": e.self_device_memory_usage,
                    "flops": e.flops, "input_shapes": str(e.input_shapes) if group else None,
                    "is_user_annotation": getattr(e, "is_user_annotation", False), "device_type": str(e.device_type)})
    return {"torch": torch.__version__, "rows": res}


def write_reference_rows(prof, out):
    """OUT/ref_key_averages.json and OUT/ref_key_averages_by_shape.json."""
    for group, name in ((False, "ref_key_averages.json"), (True, "ref_key_averages_by_shape.json")):
        with open(os.path.join(out, name), "w") as f:
            json.dump(rows(prof, group), f, indent=1)
