// SPDX-License-Identifier: MIT
#include "memory/memoryfiles.h"

#include <algorithm>
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
    return name.find("memory_timeline") != std::string::npos && (endsWith(name, ".json") || endsWith(name, ".json.gz"));
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
    return {choose(std::move(timelines), stem), choose(std::move(snapshots), stem)};
}

} // namespace tilescope::memory
