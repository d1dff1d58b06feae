// SPDX-License-Identifier: MIT
#include "report/sequencereport.h"

#include "io/smalljson.h"
#include "report/texttable.h"
#include "stats/timetext.h"
#include "trace/namefit.h"
#include "trace/trace.h"

#include <array>

namespace tilescope::report {

namespace {

constexpr size_t kListedOccurrences = 5;

constexpr size_t kKernelNameWidth = 80; // characters: a step's kernel on one line

double shareOf(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

} // namespace

std::string sequenceRuleText(const analysis::KernelSequenceOptions& o)
{
    return "runs of " + std::to_string(o.minLength) + ".." + std::to_string(o.maxLength)
        + " consecutive op -> kernel steps on one stream that occur at least twice, chosen greedily by kernels covered "
          "(occurrences x length); each kernel counts in one sequence at most";
}

std::string sequencesJson(const trace::Trace& t, const analysis::KernelSequenceReport& r)
{
    io::Json out = io::Json::object();
    out["window_start_us"] = r.options.window ? io::jsonMicroseconds(r.options.window->start) : io::Json(nullptr);
    out["window_end_us"] = r.options.window ? io::jsonMicroseconds(r.options.window->end) : io::Json(nullptr);
    out["kernels"] = r.kernels;
    out["kernels_with_op"] = r.steps;
    out["kernel_time_us"] = io::jsonMicroseconds(r.kernelNs);
    out["min_length"] = r.options.minLength;
    out["max_length"] = r.options.maxLength;
    out["rule"] = sequenceRuleText(r.options);
    io::Json list = io::Json::array();
    for (const analysis::KernelSequence& q : r.sequences) {
        io::Json row = io::Json::object();
        row["length"] = q.steps.size();
        row["occurrences"] = q.occurrences.size();
        row["kernels"] = q.steps.size() * q.occurrences.size();
        row["gpu_time_us"] = io::jsonMicroseconds(q.gpuNs);
        row["gpu_time_per_occurrence_us"] = io::jsonNumber(static_cast<double>(q.gpuNs) / 1000.0
                                                           / static_cast<double>(q.occurrences.size()));
        row["share_of_kernel_time"] = shareOf(q.gpuNs, r.kernelNs);
        row["elementwise"] = q.elementwise;
        row["fusion_candidate"] = q.elementwise;
        row["next_step"] = q.elementwise ? io::Json(analysis::fusionAdviceText()) : io::Json(nullptr);
        io::Json steps = io::Json::array();
        for (const analysis::SequenceStep& step : q.steps)
            steps.push_back(io::Json{{"op", std::string(t.strings.view(step.op))}, {"kernel", std::string(t.strings.view(step.kernel))}});
        row["steps"] = std::move(steps);
        io::Json first = io::Json::array();
        for (size_t k = 0; k < q.occurrences.size() && k < kListedOccurrences; ++k)
            first.push_back(io::Json{{"event", q.occurrences[k]}, {"start_us", io::jsonMicroseconds(t.events[q.occurrences[k]].start)}});
        row["first_occurrences"] = std::move(first);
        list.push_back(std::move(row));
    }
    out["sequences"] = std::move(list);
    return io::dumpJson(out) + "\n";
}

std::string sequencesText(const trace::Trace& t, const analysis::KernelSequenceReport& r)
{
    std::string out = std::to_string(r.kernels) + " kernels on GPU streams, " + std::to_string(r.steps) + " with a launching op; "
        + sequenceRuleText(r.options) + "\n";
    if (r.sequences.empty())
        return out + "no repeated kernel sequence\n";
    std::vector<std::array<std::string, 7>> rows{{"#", "length", "occurrences", "GPU time", "per occurrence", "share", "fusion candidate"}};
    for (size_t i = 0; i < r.sequences.size(); ++i) {
        const analysis::KernelSequence& q = r.sequences[i];
        rows.push_back({std::to_string(i + 1), std::to_string(q.steps.size()), std::to_string(q.occurrences.size()),
                        stats::formatDuration(q.gpuNs), stats::formatDuration(q.gpuNs / static_cast<int64_t>(q.occurrences.size())),
                        percentText(shareOf(q.gpuNs, r.kernelNs)), q.elementwise ? "yes (all elementwise)" : "-"});
    }
    out += renderTable(rows);
    trace::NameShortener kernels(kKernelNameWidth); // different kernels read apart across the listing
    for (const analysis::KernelSequence& q : r.sequences)
        for (const analysis::SequenceStep& step : q.steps)
            kernels.add(t.strings.view(step.kernel));
    for (size_t i = 0; i < r.sequences.size(); ++i) {
        const analysis::KernelSequence& q = r.sequences[i];
        out += "\n#" + std::to_string(i + 1) + " (first at ts " + stats::formatMicroseconds(t.events[q.occurrences.front()].start)
            + " us):\n";
        for (const analysis::SequenceStep& step : q.steps)
            out += "    " + std::string(t.strings.view(step.op)) + " -> " + kernels.apply(std::string(t.strings.view(step.kernel))) + "\n";
        if (q.elementwise)
            out += "  next step: " + std::string(analysis::fusionAdviceText()) + "\n";
    }
    return out;
}

} // namespace tilescope::report
