// SPDX-License-Identifier: MIT
#include "trace/rankset.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

namespace tilescope::trace {

namespace fs = std::filesystem;

DistributedInfo distributedInfoOf(const Trace& trace)
{
    DistributedInfo info;
    if (!trace.meta.distributedInfo)
        return info;
    io::Json json;
    try {
        json = io::Json::parse(*trace.meta.distributedInfo);
    } catch (const std::exception&) {
        return info; // the loader already checked it is JSON; a value we cannot read says nothing
    }
    info.rank = io::jsonInteger(io::jsonMember(json, "rank"));
    info.worldSize = io::jsonInteger(io::jsonMember(json, "world_size"));
    info.backend = io::jsonText(json, "backend");
    return info;
}

bool isFolder(const std::string& path)
{
    std::error_code ec;
    return fs::is_directory(path, ec);
}

namespace {

bool looksLikeTraceFile(const fs::path& p)
{
    const std::string name = p.filename().string();
    return name.ends_with(".json") || name.ends_with(".json.gz");
}

} // namespace

std::vector<std::string> traceFilesInFolder(const std::string& folder)
{
    std::vector<std::string> files;
    std::error_code ec;
    fs::directory_iterator it(folder, ec);
    if (ec)
        throw io::TraceFileError(folder, std::nullopt, "cannot read the folder: " + ec.message());
    for (const fs::directory_entry& entry : it) {
        std::error_code typeError;
        if (entry.is_regular_file(typeError) && looksLikeTraceFile(entry.path()))
            files.push_back(entry.path().string());
    }
    if (files.empty())
        throw io::TraceFileError(folder, std::nullopt, "no trace files (*.json, *.json.gz) in this folder");
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::string> expandRankPaths(const std::vector<std::string>& paths, std::set<std::string>* fromFolders)
{
    std::vector<std::string> files;
    for (const std::string& p : paths) {
        if (isFolder(p)) {
            const auto inFolder = traceFilesInFolder(p);
            files.insert(files.end(), inFolder.begin(), inFolder.end());
            if (fromFolders)
                fromFolders->insert(inFolder.begin(), inFolder.end());
        } else {
            files.push_back(p);
        }
    }
    return files;
}

RankSet loadRankSet(const std::vector<std::string>& files, const RankSetLoadOptions& options)
{
    if (files.empty())
        throw io::TraceFileError("(no files)", std::nullopt, "a rank set needs at least one trace file");
    std::vector<std::unique_ptr<Trace>> traces(files.size());
    std::vector<std::exception_ptr> errors(files.size());
    std::vector<std::string> skippedWhy(files.size()); // written by the file's worker only
    std::vector<std::exception_ptr> notTraces(files.size());

    // Progress: each file's latest figures, summed under a lock, so the caller sees one growing total.
    std::mutex progressLock;
    std::vector<LoadProgress> progress(files.size(), LoadProgress{0, 0, 0});
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    const auto worker = [&] {
        for (size_t i = next++; i < files.size(); i = next++) {
            if (failed) // one bad file fails the set: do not spend minutes loading the others
                return;
            LoadOptions load = options.load;
            // Files load side by side: each gets at most its share of the cores for its own parallel parse
            // (a limit, not a count asked for, so that a small file still streams).
            if (load.threads == 0)
                load.maxThreads = std::max<unsigned>(1,
                                                     loadThreads(options.load) / static_cast<unsigned>(std::max<size_t>(1, files.size())));
            if (options.load.progress)
                load.progress = [&, i](const LoadProgress& p) {
                    std::lock_guard lock(progressLock);
                    progress[i] = p;
                    LoadProgress sum{0, 0, 0};
                    for (const LoadProgress& q : progress) {
                        sum.inputBytesRead += q.inputBytesRead;
                        sum.inputBytesTotal += q.inputBytesTotal;
                        sum.events += q.events;
                    }
                    options.load.progress(sum);
                };
            try {
                traces[i] = loadTrace(files[i], load);
            } catch (const io::TraceFileError& e) {
                if (e.isNotATrace() && options.folderFiles.contains(files[i])) {
                    skippedWhy[i] = e.what();
                    notTraces[i] = std::current_exception();
                    continue;
                }
                errors[i] = std::current_exception();
                failed = true;
            } catch (...) {
                errors[i] = std::current_exception();
                failed = true;
            }
        }
    };
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<size_t>(threads, files.size()));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool)
        t.join();
    // A cancel wins over the errors it caused; otherwise the first failing file in the given order.
    if (options.load.cancel && options.load.cancel->load())
        throw io::LoadCancelled();
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);

    RankSet set;
    for (const std::string& why : skippedWhy)
        if (!why.empty())
            set.skipped.push_back(why);
    if (set.skipped.size() == files.size()) { // nothing but files passed over: the first one's error says why
        if (files.size() == 1)
            std::rethrow_exception(notTraces.front());
        try {
            std::rethrow_exception(notTraces.front());
        } catch (const io::TraceFileError& e) {
            throw io::TraceFileError(e.path(), e.offset(),
                                     e.problem() + "; nor is any of the other " + std::to_string(files.size() - 1)
                                         + (files.size() == 2 ? " file" : " files") + " a trace");
        }
    }
    std::map<int64_t, size_t> byRank; // rank -> index in files
    std::optional<size_t> worldSizeFile;
    for (size_t i = 0; i < files.size(); ++i) {
        if (!traces[i])
            continue; // passed over: not a trace
        const DistributedInfo info = distributedInfoOf(*traces[i]);
        if (!info.rank || *info.rank < 0)
            throw io::TraceFileError(
                files[i], std::nullopt,
                "no distributedInfo.rank: not one rank of a distributed run (torch.profiler writes it "
                "when torch.distributed is initialised)"
                    + std::string(files.size() - set.skipped.size() == 1 ? "; the only trace given: open it by itself, as one trace" : ""));
        if (!info.worldSize || *info.worldSize <= 0)
            throw io::TraceFileError(files[i], std::nullopt, "distributedInfo has no world_size");
        if (!worldSizeFile) {
            worldSizeFile = i;
            set.worldSize = *info.worldSize;
        } else if (*info.worldSize != set.worldSize) {
            throw io::TraceFileError(files[i], std::nullopt,
                                     "world size " + std::to_string(*info.worldSize) + ", but " + files[*worldSizeFile] + " has world size "
                                         + std::to_string(set.worldSize) + ": not one run");
        }
        if (*info.rank >= set.worldSize)
            throw io::TraceFileError(files[i], std::nullopt,
                                     "rank " + std::to_string(*info.rank) + " is not below the world size "
                                         + std::to_string(set.worldSize));
        if (const auto [it, inserted] = byRank.emplace(*info.rank, i); !inserted)
            throw io::TraceFileError(files[i], std::nullopt,
                                     "rank " + std::to_string(*info.rank) + " again: " + files[it->second] + " is rank "
                                         + std::to_string(*info.rank) + " too");
    }
    for (const auto& [rank, i] : byRank)
        set.ranks.push_back(RankTrace{rank, files[i], distributedInfoOf(*traces[i]).backend, std::move(traces[i])});
    return set;
}

} // namespace tilescope::trace
