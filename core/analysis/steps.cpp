// SPDX-License-Identifier: MIT
#include "analysis/steps.h"

#include "analysis/overlap.h"
#include "trace/eventsearch.h"
#include "trace/nesting.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace tilescope::analysis {

using trace::kNoIndex;

namespace {

// What one pass over the host ops finds: the ProfilerStep#N events and the top-level record_function
// regions with their families.
struct StepScan
{
    std::vector<uint32_t> profilerSteps;   // events
    std::vector<uint32_t> topRegions;      // events
    std::vector<uint32_t> regionFamily;    // by topRegions entry
    std::vector<uint32_t> familyCount;     // by family
    std::vector<int64_t> familyFirstStart; // by family
    std::vector<std::string_view> familyName;
};

// The user annotations that a host op holds whole, by event: a region that overlaps an op without nesting in it
// has no parent (Trace::sortAndNestTracks), yet an op further out may hold it (Optimizer.step#Adam.step inside
// step_N). One walk per lane in start order with the loader's own rule for what holds a slice.
std::vector<bool> annotationsHeldByHostOps(const trace::Trace& t)
{
    std::vector<bool> held(t.events.size(), false);
    std::vector<uint32_t> open; // the lane's host ops that may still hold a later one
    for (const trace::Track& track : t.tracks) {
        open.clear();
        for (const uint32_t index : track.events) {
            const trace::Event& e = t.events[index];
            if (!trace::isHostOp(e))
                continue;
            const bool holds = trace::innermostHolding(open, t.events, e) != kNoIndex; // drops the ended ones too
            if (e.kind == trace::EventKind::UserAnnotation)
                held[index] = holds;
            open.push_back(index);
        }
    }
    return held;
}

StepScan scanSteps(const trace::Trace& t)
{
    const std::vector<bool> held = annotationsHeldByHostOps(t);
    StepScan scan;
    enum : uint32_t { kUnknown = kNoIndex - 1 };
    std::vector<uint32_t> familyOfName(t.strings.size(), kUnknown); // family id, kNoIndex for ProfilerStep#N
    std::unordered_map<std::string_view, uint32_t> families;        // per distinct name, not per event
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (!trace::isHostOp(e) || e.name >= familyOfName.size())
            continue;
        uint32_t& family = familyOfName[e.name];
        if (family == kUnknown) {
            const std::string_view name = t.strings.view(e.name);
            if (trace::isProfilerStepName(name)) {
                family = kNoIndex;
            } else {
                family = families.emplace(stepFamily(name), static_cast<uint32_t>(families.size())).first->second;
                if (family == scan.familyCount.size()) {
                    scan.familyCount.push_back(0);
                    scan.familyFirstStart.push_back(std::numeric_limits<int64_t>::max());
                    scan.familyName.push_back(stepFamily(name));
                }
            }
        }
        if (family == kNoIndex) {
            scan.profilerSteps.push_back(i);
            continue;
        }
        if (e.kind != trace::EventKind::UserAnnotation)
            continue;
        bool topLevel = !held[i];
        for (uint32_t p = e.parent; p != kNoIndex && topLevel; p = t.events[p].parent) // a trace not laid out per lane
            topLevel = !trace::isHostOp(t.events[p]);
        if (!topLevel)
            continue;
        scan.topRegions.push_back(i);
        scan.regionFamily.push_back(family);
        ++scan.familyCount[family];
        scan.familyFirstStart[family] = std::min(scan.familyFirstStart[family], e.start);
    }
    return scan;
}

// The steps by the rule; the chosen family's name and those repeating as often (the tie the first start broke)
// when asked for.
std::vector<uint32_t> selectSteps(const trace::Trace& t, const StepScan& scan, StepSource& source, std::string* familyName,
                                  std::vector<std::string>* tiedFamilies = nullptr)
{
    std::vector<uint32_t> stepEvents = scan.profilerSteps;
    source = StepSource::ProfilerStep;
    if (stepEvents.empty()) {
        uint32_t best = kNoIndex;
        for (uint32_t f = 0; f < scan.familyCount.size(); ++f) {
            if (scan.familyCount[f] < kMinRepeatsForSteps)
                continue;
            if (best == kNoIndex || scan.familyCount[f] > scan.familyCount[best]
                || (scan.familyCount[f] == scan.familyCount[best] && scan.familyFirstStart[f] < scan.familyFirstStart[best]))
                best = f;
        }
        for (size_t k = 0; k < scan.topRegions.size(); ++k)
            if (scan.regionFamily[k] == best)
                stepEvents.push_back(scan.topRegions[k]);
        source = StepSource::RepeatedRegion;
        if (familyName && best != kNoIndex)
            *familyName = std::string(scan.familyName[best]);
        if (tiedFamilies && best != kNoIndex)
            for (uint32_t f = 0; f < scan.familyCount.size(); ++f)
                if (f != best && scan.familyCount[f] == scan.familyCount[best])
                    tiedFamilies->emplace_back(scan.familyName[f]);
    }
    if (stepEvents.empty())
        source = StepSource::None;
    std::stable_sort(stepEvents.begin(), stepEvents.end(), [&](uint32_t a, uint32_t b) { return t.events[a].start < t.events[b].start; });
    return stepEvents;
}

// The number a name ends with, nullopt when it ends with none, is all digits (its own family, no running
// number) or is too long for int64.
std::optional<int64_t> trailingNumber(std::string_view name)
{
    const std::string_view family = stepFamily(name);
    if (family.size() == name.size())
        return std::nullopt;
    const std::string_view digits = name.substr(family.size());
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

// The names' numbers when every step has one and no two are equal; empty otherwise.
std::vector<int64_t> numbersFromNames(const trace::Trace& t, const std::vector<Step>& steps)
{
    std::vector<int64_t> numbers;
    std::set<int64_t> seen;
    for (const Step& s : steps) {
        const std::optional<int64_t> n = trailingNumber(t.strings.view(t.events[s.event].name));
        if (!n || !seen.insert(*n).second)
            return {};
        numbers.push_back(*n);
    }
    return numbers;
}

// "0-4" for consecutive numbers, else "0, 2, 5, ..." (at most 10 listed).
std::string numbersText(std::vector<int64_t> numbers)
{
    std::sort(numbers.begin(), numbers.end());
    bool consecutive = true;
    for (size_t k = 1; k < numbers.size(); ++k)
        consecutive = consecutive && numbers[k] == numbers[k - 1] + 1;
    if (consecutive && numbers.size() > 1)
        return std::to_string(numbers.front()) + "-" + std::to_string(numbers.back());
    std::string out;
    for (size_t k = 0; k < numbers.size() && k < 10; ++k)
        out += (k ? ", " : "") + std::to_string(numbers[k]);
    if (numbers.size() > 10)
        out += ", ... (" + std::to_string(numbers.size()) + " steps)";
    return out;
}

// The steps' windows (findSteps says the rule). `events` by start.
std::vector<Step> stepWindows(const trace::Trace& t, const std::vector<uint32_t>& events, StepSource source)
{
    std::vector<Step> steps;
    steps.reserve(events.size());
    for (const uint32_t e : events)
        steps.push_back({e, t.events[e].start, t.events[e].end()});
    if (source != StepSource::RepeatedRegion || steps.size() < 2)
        return steps;
    std::vector<int64_t> gaps; // start to start
    for (size_t k = 0; k + 1 < steps.size(); ++k) {
        gaps.push_back(steps[k + 1].start - steps[k].start);
        steps[k].end = std::max(steps[k].end, steps[k + 1].start);
    }
    // The last has no next start: it runs on over what its thread does next beside the region (at the top level,
    // or under the same Python frame with stacks) while that is of a family the steps before held
    // (streams_overlap's copy_stream, gemm_compare's torch_ref, fwd_3 after bwd_0..2), up to one typical step
    // (the median: the longest is mostly the warm-up's), and stops at the first thing they never held (the
    // cudaDeviceSynchronize after the loop).
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<ptrdiff_t>(gaps.size() / 2), gaps.end());
    const int64_t typical = gaps[gaps.size() / 2];
    Step& last = steps.back();
    const trace::Event& region = t.events[last.event];
    const trace::Track& track = t.tracks[region.track];
    const auto from = [&](int64_t time) {
        return std::lower_bound(track.events.begin(), track.events.end(), time,
                                [&](uint32_t e, int64_t at) { return t.events[e].start < at; });
    };
    std::unordered_set<uint32_t> regionParents;
    for (const Step& s : steps)
        regionParents.insert(t.events[s.event].parent);
    std::unordered_set<std::string_view> held; // families (stepFamily) beside the regions before the last
    for (auto it = from(steps.front().start); it != track.events.end() && t.events[*it].start < last.start; ++it)
        if (regionParents.contains(t.events[*it].parent))
            held.insert(stepFamily(t.strings.view(t.events[*it].name)));
    const int64_t reach = last.start + typical;
    for (auto it = from(last.end); it != track.events.end() && t.events[*it].start < reach; ++it) {
        const trace::Event& e = t.events[*it];
        if (e.parent != region.parent || *it == last.event)
            continue;
        if (!held.contains(stepFamily(t.strings.view(e.name))))
            break;
        last.end = std::max(last.end, std::min(e.end(), reach));
    }
    return steps;
}

} // namespace

std::string_view stepFamily(std::string_view name)
{
    size_t end = name.size();
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9')
        --end;
    return end == 0 ? name : name.substr(0, end); // an all-digit name is its own family
}

std::vector<Step> findSteps(const trace::Trace& t, StepSource* source)
{
    StepSource found = StepSource::None;
    const std::vector<uint32_t> events = selectSteps(t, scanSteps(t), found, nullptr);
    if (source)
        *source = found;
    return stepWindows(t, events, found);
}

std::vector<int64_t> stepNumbers(const trace::Trace& t, const std::vector<Step>& steps)
{
    std::vector<int64_t> numbers = numbersFromNames(t, steps);
    if (numbers.size() == steps.size())
        return numbers;
    for (size_t k = 0; k < steps.size(); ++k)
        numbers.push_back(static_cast<int64_t>(k));
    return numbers;
}

StepTable computeStepTable(const trace::Trace& t)
{
    StepTable table;
    const std::vector<uint32_t> events = selectSteps(t, scanSteps(t), table.source, &table.family, &table.tiedFamilies);
    const std::vector<Step> steps = stepWindows(t, events, table.source);
    if (steps.empty())
        return table;
    const std::vector<int64_t> numbers = stepNumbers(t, steps);
    const OverlapIndex index(t);
    for (uint32_t k = 0; k < steps.size(); ++k) {
        StepRow row;
        row.index = k;
        row.number = numbers[k];
        row.event = steps[k].event;
        row.name = t.events[steps[k].event].name;
        row.start = steps[k].start;
        row.end = steps[k].end;
        row.durationNs = row.end - row.start;
        const OverlapReport f = index.figures({row.start, row.end});
        // |gpu| = |cpu ∪ gpu| − |cpu| + |cpu ∩ gpu|, from the figures' scalars (figures() builds no sets).
        row.gpuBusyNs = (row.durationNs - f.bothIdleNs) - f.cpuBusyNs + f.overlapNs;
        row.gpuUtilization = row.durationNs > 0 ? double(row.gpuBusyNs) / double(row.durationNs) : 0.0;
        for (const DeviceBusy& d : f.devices)
            row.kernels += d.kernels;
        row.cpuBusyNs = f.cpuBusyNs;
        table.steps.push_back(row);
    }
    return table;
}

std::string stepSourceText(const StepTable& table)
{
    switch (table.source) {
    case StepSource::ProfilerStep: return "ProfilerStep#N";
    case StepSource::RepeatedRegion: return "repeated region " + table.family;
    case StepSource::None: break;
    }
    return "none";
}

std::string stepSourceDescription(const StepTable& table)
{
    // A tie is said, not hidden: the other family was as good a guess, and its regions lie inside the steps.
    std::string text = stepSourceText(table);
    std::string others;
    for (size_t k = 0; k < table.tiedFamilies.size(); ++k)
        others += (k == 0 ? "" : ", ") + table.tiedFamilies[k];
    if (!others.empty())
        text += ", as often as " + others + ": the first to start is taken; each step runs to the next one's start, over any " + others
            + " between";
    return text;
}

std::optional<std::pair<int64_t, int64_t>> parseStepRange(std::string_view text)
{
    const auto number = [](std::string_view part) -> std::optional<int64_t> {
        int64_t v = 0;
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v < 0)
            return std::nullopt;
        return v;
    };
    const size_t dash = text.find('-');
    const auto first = number(text.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : number(text.substr(dash + 1));
    if (!first || !last || *first > *last)
        return std::nullopt;
    return std::pair{*first, *last};
}

std::optional<Interval> stepWindow(const trace::Trace& t, int64_t first, int64_t last)
{
    const std::vector<Step> steps = findSteps(t);
    if (steps.empty())
        return std::nullopt;
    const std::vector<int64_t> numbers = stepNumbers(t, steps);
    const bool hasFirst = std::find(numbers.begin(), numbers.end(), first) != numbers.end();
    const bool hasLast = std::find(numbers.begin(), numbers.end(), last) != numbers.end();
    if (first > last || !hasFirst || !hasLast) {
        const std::string what = first > last ? "steps " + std::to_string(first) + "-" + std::to_string(last) + " is an empty range"
                                              : "no step " + std::to_string(!hasFirst ? first : last);
        const bool byName = numbersFromNames(t, steps).size() == steps.size();
        const std::string firstName(t.strings.view(t.events[steps.front().event].name));
        throw StepSelectionError(
            what + "; the trace has steps " + numbersText(numbers) + " ("
            + (byName ? "the numbers in their names, e.g. " + firstName : "numbered by start from 0; the first is " + firstName) + ")");
    }
    std::optional<Interval> window;
    for (size_t k = 0; k < steps.size(); ++k) {
        if (numbers[k] < first || numbers[k] > last)
            continue;
        if (!window)
            window = Interval{steps[k].start, steps[k].end};
        window->start = std::min(window->start, steps[k].start);
        window->end = std::max(window->end, steps[k].end);
    }
    return window;
}

} // namespace tilescope::analysis
