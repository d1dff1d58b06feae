// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "trace/trace.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::analysis {

// Steps: the iterations of a training or inference loop, a trace-level concept every analysis may cut
// by (issue #13). The rule: the ProfilerStep#N events when the trace has any, else the top-level
// record_function regions (user annotations with no host op around them) of the most repeated family
// (stepFamily: "step_0", "step_1"... are one family), at least kMinRepeatsForSteps of them; ties go to
// the family that starts first.

enum class StepSource : uint8_t {
    None,
    ProfilerStep,  // ProfilerStep#N
    RepeatedRegion // a top-level record_function region repeating by name or with a running number
};

// A region name must occur at least this often to be taken for a step.
constexpr uint32_t kMinRepeatsForSteps = 2;

// One step: its event (the ProfilerStep#N or the region) and its window [start, end) in trace ns.
struct Step
{
    uint32_t event = trace::kNoIndex;
    int64_t start = 0, end = 0;
};

// The steps by start (the rule above); `source` says which kind was found. A ProfilerStep#N's window is its
// own span: torch already runs it from one profiler.step() to the next. A repeated region's runs, as those
// do, from its start to the next region's start (its own end where that is later): a region often holds
// only the start of an iteration (streams_overlap's compute_stream holds its launches, 0.3 ms of a 43 ms
// iteration whose copies and waits follow it), and the iteration is what a step stands for; whatever lies
// between two regions is the first one's, as between two ProfilerStep#N. The last runs on over what its
// thread does next beside the region while that is of a family the steps before held (the last iteration's
// copies), up to one typical (median) step, and never ends before its own end. Regions on several threads
// are cut at each other's starts; the last one looks at its own thread only.
std::vector<Step> findSteps(const trace::Trace& trace, StepSource* source = nullptr);

// The name of a region that repeats with a running number, without its number: "step_12" -> "step_",
// "alloc_round_3" -> "alloc_round_", "forward" -> "forward".
std::string_view stepFamily(std::string_view name);

// Each step's number, the one --step N selects: the number its name ends with (ProfilerStep#7: 7,
// step_12: 12) when every step's name ends with one and no two are equal; otherwise its position by
// start, from 0. `steps` as findSteps returns them.
std::vector<int64_t> stepNumbers(const trace::Trace& trace, const std::vector<Step>& steps);

// One row of the per-step table. Times in trace ns; the step's window is [start, end).
struct StepRow
{
    uint32_t index = 0; // position by start, from 0
    int64_t number = 0; // stepNumbers
    uint32_t event = trace::kNoIndex;
    trace::StringId name = trace::kNoIndex;
    int64_t start = 0, end = 0;
    int64_t durationNs = 0;
    int64_t gpuBusyNs = 0;     // union of kernels, memcpy and memset of all devices, clipped to the window
    double gpuUtilization = 0; // gpuBusyNs / durationNs
    uint64_t kernels = 0;      // kernels (all devices) that start inside the window
    int64_t cpuBusyNs = 0;     // CPU busy as computeOverlap defines it (overlap.h), within the window
};

struct StepTable
{
    StepSource source = StepSource::None;
    std::string family;                    // RepeatedRegion: the regions' family ("step_"); empty otherwise
    std::vector<std::string> tiedFamilies; // RepeatedRegion: other families repeating as often, in first-seen order
    std::vector<StepRow> steps;
};

// Every step's figures, each from OverlapIndex in O(log n) per step.
StepTable computeStepTable(const trace::Trace& trace);

// How the steps were found, in words: "ProfilerStep#N", "repeated region step_"; "none" when none.
std::string stepSourceText(const StepTable& table);
// The same with a tie said: "repeated region compute_stream, as often as copy_stream: the first to start is
// taken" (steps' table and the Steps dock).
std::string stepSourceDescription(const StepTable& table);

// A --step / --steps selection that names no step of the trace. The message lists the steps present.
class StepSelectionError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// "N" or "A-B" (numbers >= 0, A <= B) as {A, B}; nullopt when the text is neither.
std::optional<std::pair<int64_t, int64_t>> parseStepRange(std::string_view text);

// The window of steps first..last (step numbers, inclusive): [the earliest start, the latest end) of the
// steps numbered first to last. nullopt when the trace has no steps; StepSelectionError when `first` or
// `last` is not a step's number (or first > last).
std::optional<Interval> stepWindow(const trace::Trace& trace, int64_t first, int64_t last);

} // namespace tilescope::analysis
