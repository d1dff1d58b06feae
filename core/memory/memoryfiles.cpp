// SPDX-License-Identifier: MIT
#include "memory/memoryfiles.h"

#include "memory/allocatorsnapshot.h"
#include "memory/epochtime.h"

#include <algorithm>
#include <limits>
#include <filesystem>
#include <system_error>
#include <vector>

namespace tilescope::memory {

namespace {

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isTimelineName(const std::string& name)
{
    return name.find(kTimelineStem) != std::string::npos && (endsWith(name, ".json") || endsWith(name, ".json.gz"));
}

bool isSnapshotName(const std::string& name) { return endsWith(name, ".pickle") || endsWith(name, ".pickle.gz"); }

std::optional<std::string> choose(std::vector<std::filesystem::path> candidates, const std::string& stem)
{
    std::sort(candidates.begin(), candidates.end());
    if (candidates.size() == 1)
        return candidates.front().string();
    std::vector<std::filesystem::path> matching;
    for (const auto& c : candidates)
        if (!stem.empty() && c.filename().string().starts_with(stem))
            matching.push_back(c);
    if (matching.size() == 1)
        return matching.front().string();
    return std::nullopt;
}

} // namespace

MemoryFilesBeside findMemoryFilesBeside(const std::string& tracePath)
{
    namespace fs = std::filesystem;
    const fs::path trace(tracePath);
    std::error_code error;
    const fs::path folder = trace.has_parent_path() ? trace.parent_path() : fs::path(".");
    std::vector<fs::path> timelines, snapshots;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        if (!it->is_regular_file(error))
            continue;
        const std::string name = it->path().filename().string();
        if (it->path().filename() == trace.filename())
            continue;
        if (isTimelineName(name))
            timelines.push_back(it->path());
        else if (isSnapshotName(name))
            snapshots.push_back(it->path());
    }
    const std::string filename = trace.filename().string();
    const std::string stem = filename.substr(0, filename.find('.'));
    MemoryFilesBeside found{choose(std::move(timelines), stem), choose(std::move(snapshots), stem)};
    if (found.snapshot) {
        const std::string name = fs::path(*found.snapshot).filename().string();
        found.snapshotNamedForTrace = (!stem.empty() && name.starts_with(stem)) || name.starts_with(kSessionSnapshotFile);
    }
    return found;
}

std::string snapshotBesideProblem(const AllocatorSnapshot& snapshot, bool namedForTrace, int64_t firstNs, int64_t lastNs,
                                  std::optional<int64_t> baseTimeNs)
{
    int64_t from = std::numeric_limits<int64_t>::max(), to = std::numeric_limits<int64_t>::min();
    const auto widen = [&](int64_t us) {
        if (us != kNoTimeUs) {
            from = std::min(from, us);
            to = std::max(to, us);
        }
    };
    for (const auto& entries : snapshot.deviceTraces)
        for (const TraceEntry& e : entries)
            widen(e.timeUs);
    for (const ExternalAnnotation& a : snapshot.externalAnnotations)
        widen(a.timeUs);
    if (from > to) // no times: only its name can tie it to the trace
        return namedForTrace ? std::string()
                             : snapshot.path
                + ": the allocator snapshot beside the trace records no times and its name is not the trace's, so nothing ties "
                  "it to this trace (File > Open Memory Snapshot opens it anyway)";
    if (epochRangeMeetsTrace(from, to, firstNs, lastNs, baseTimeNs))
        return {};
    return snapshot.path + ": the allocator snapshot's history was recorded "
        + (epochMicrosecondsToTraceNs(to, baseTimeNs) < firstNs ? "before the trace starts" : "after the trace ends")
        + ": it is from another run (File > Open Memory Snapshot opens it anyway)";
}

} // namespace tilescope::memory
