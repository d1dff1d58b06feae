// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/overlap.h"
#include "stats/keyaveragesdiff.h"

#include <string>
#include <vector>

namespace tilescope::report {

// torch's time cell with a sign, for a delta in us: "+1.250ms", "-812.000us", "0.000us" (the diff table's and
// the app's compare columns).
std::string signedTime(double us);

// A total of both sides and its delta: "8.748ms before, 1.038ms after (-7.709ms)" (the diff table's
// totals lines and the app's compare title).
std::string totalChange(double beforeUs, double afterUs);

// Each side's totals as summary's footers, with their delta: "Self CPU time total:  ... before, ... after
// (...)" and, when either side ran on the GPU, the same for "Self CUDA time total: "; a line each.
std::string diffTotalsText(const stats::KeyAveragesDiff& diff);

// What differs between the two runs beside the code, a sentence each (none when nothing is known to differ):
// the GPUs (deviceProperties' names), where both traces name theirs, and the distributed run's size and rank
// (distributedInfo). A diff of an A100 trace against a V100 one lists cutlass_80_* kernels removed and
// volta_* added: the hardware's doing, not the code's. The CLI's diff prints them as notes, its JSON as
// "setup_differences", the app's compare title warns and its tooltip says them.
std::vector<std::string> diffSetupNotes(const trace::Trace& before, const trace::Trace& after);

// One trace of a diff: its path as given, the loaded trace and its whole-trace overlap.
struct DiffSide
{
    std::string path;
    const trace::Trace* trace = nullptr;
    const analysis::OverlapReport* overlap = nullptr;
};

// `tilescope-cli diff --format json`: {"before": PATH, "after": PATH, "setup_differences": [NOTE] (diffSetupNotes), "rows": [{"key",
// "device_type" (CPU or CUDA), "input_shapes", "before": ROW|null, "after": ROW|null, "delta_count", "delta_self_cpu_time_total_us",
// "delta_self_device_time_total_us", "delta_device_time_total_us"}], "overlap": {"before": OVERLAP, "after":
// OVERLAP}, "totals": {"before": TOTALS, "after": TOTALS}}; TOTALS is {"self_cpu_time_total_us",
// "self_device_time_total_us"}, what `summary --format json` prints as those keys; ROW is a `summary --format json` row (summaryRowJson),
// OVERLAP what `overlap --format json` prints (overlapJsonObject). Rows in the diff's order.
std::string diffJson(const DiffSide& before, const DiffSide& after, const stats::KeyAveragesDiff& diff);
// The table, after each side's totals (summary's footers) with their delta: name (cut at 80 columns as summary's), device, count
// before/after, self device time before/after/delta, device time total delta, self CPU delta, and added, removed, increased, decreased or
// unchanged (KeyAverageDiffRow::change); the diff's order.
// Names longer than nameWidth code points are cut as summary's table cuts them.
std::string diffText(const DiffSide& before, const DiffSide& after, const stats::KeyAveragesDiff& diff, int nameWidth = 80);
// The one CSV of a diff: `diff --format csv` and the compare table's Copy / Export CSV. A header line, then one
// line per row of `rows` (indexes into diff.rows), in that order: key, input_shapes, device_type,
// is_user_annotation, change (added, removed, increased, decreased, unchanged), then count,
// self_cpu_time_total_us, self_device_time_total_us and device_time_total_us each as _before, _after and
// delta_ (microseconds, shortest exact decimal; a side the row is missing from is an empty field, its delta
// counting it as 0), as keyAveragesCsv writes fields.
std::string diffCsv(const stats::KeyAveragesDiff& diff, const std::vector<size_t>& rows);

} // namespace tilescope::report
