// SPDX-License-Identifier: MIT
// The SQL export against the load, in one run: loads TRACE as `tilescope-cli export` does (raw args not
// kept), then writes it with its derived tables into a fresh SQLite file, and prints both times, their
// ratio (issue #14's goal: the export within 2x the load), the peak RSS of the load and the peak RSS
// during the export (reset between the two, so the second is what the export itself holds on top of the
// model), and the database's size. The database goes to DB (default /tmp/bench_export.db) and is deleted.
//   bench_export TRACE [DB]
#include "benchtimer.h"
#include "export/sqliteexport.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>

using namespace tilescope;

namespace {

// VmHWM and VmRSS of this process in MiB, from /proc/self/status.
double statusMb(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0)
            return std::stod(line.substr(std::string(key).size())) / 1024.0;
    return 0;
}

// Resets VmHWM to the current RSS (Linux's clear_refs 5), so the next peak is the export's own.
bool resetPeak()
{
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    return static_cast<bool>(clear);
}

// CPU seconds (user + system) of the whole process (RUSAGE_SELF) or of this thread (RUSAGE_THREAD): what
// the work costs whatever else runs on the machine (the wall times stretch when other jobs share the cores).
double cpuSeconds(int who = RUSAGE_SELF)
{
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_export TRACE [DB]\n");
        return 2;
    }
    const std::string path = argv[1];
    const std::string db = argc > 2 ? argv[2] : "/tmp/bench_export.db";
    try {
        std::filesystem::remove(db);
        auto start = bench::Clock::now();
        double cpuStart = cpuSeconds();
        trace::LoadOptions options;
        options.keepRawArgs = false;
        const auto t = trace::loadTrace(path, options);
        const double load = bench::secondsSince(start);
        const double loadCpu = cpuSeconds() - cpuStart;
        const double loadPeak = statusMb("VmHWM:");
        const double modelRss = statusMb("VmRSS:");
        const bool reset = resetPeak();

        start = bench::Clock::now();
        cpuStart = cpuSeconds();
        const double writerStart = cpuSeconds(RUSAGE_THREAD);
        sqlexport::SqliteExport out(db, false);
        const sqlexport::TraceCounts counts = out.addTrace(*t, {path, std::nullopt, std::nullopt, "", {}});
        out.finish();
        const double exportSeconds = bench::secondsSince(start);
        const double exportCpu = cpuSeconds() - cpuStart;
        const double writerCpu = cpuSeconds(RUSAGE_THREAD) - writerStart; // this thread writes the rows
        const double exportPeak = statusMb("VmHWM:");
        const double dbMb = static_cast<double>(std::filesystem::file_size(db)) / (1024.0 * 1024.0);
        std::filesystem::remove(db);

        std::printf("trace: %s (%.1f MB, %zu events, %llu launches, %llu ops)\n", path.c_str(),
                    static_cast<double>(std::filesystem::file_size(path)) / 1e6, t->events.size(),
                    static_cast<unsigned long long>(counts.launches), static_cast<unsigned long long>(counts.ops));
        std::printf("load:   %.2f s (CPU %.2f s), peak RSS %.0f MB (model %.0f MB)\n", load, loadCpu, loadPeak, modelRss);
        std::printf("export: %.2f s (CPU %.2f s), peak RSS during it %.0f MB%s (+%.0f MB over the model), database %.0f MB\n",
                    exportSeconds, exportCpu, exportPeak, reset ? "" : " (peak not reset: includes the load)", exportPeak - modelRss, dbMb);
        std::printf("ratio export/load: %.2fx   (load + export)/load: %.2fx   CPU export/load: %.2fx\n", exportSeconds / load,
                    (load + exportSeconds) / load, exportCpu / loadCpu);
        // The rows are written on this thread while the analyses run on another: with a core each, the export
        // takes the longer of the two.
        std::printf("export CPU: writer thread %.2f s, analyses thread %.2f s; with two free cores export/load ~ %.2fx\n", writerCpu,
                    exportCpu - writerCpu, std::max(writerCpu, exportCpu - writerCpu) / loadCpu);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_export: %s\n", e.what());
        std::filesystem::remove(db);
        return 1;
    }
    return 0;
}
