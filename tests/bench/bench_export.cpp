// SPDX-License-Identifier: MIT
// The SQL export against the load, in one run: loads TRACE as `tilescope-cli export` does (raw args not
// kept), then writes it with its derived tables into a fresh SQLite file, and prints both times, their
// ratio (issue #14's goal: the export within 2x the load), the peak RSS of the load and the peak RSS
// during the export (reset between the two, so the second is what the export itself holds on top of the
// model), and the database's size. The database goes to DB (default /tmp/bench_export.db) and is deleted.
//   bench_export TRACE [DB]
#include "export/sqliteexport.h"
#include "trace/traceloader.h"

#include <chrono>
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

// CPU seconds of the whole process (all threads, user + system): what the work costs whatever else runs on
// the machine (the wall times stretch when other jobs share the cores).
double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
        auto start = std::chrono::steady_clock::now();
        double cpuStart = cpuSeconds();
        trace::LoadOptions options;
        options.keepRawArgs = false;
        const auto t = trace::loadTrace(path, options);
        const double load = secondsSince(start);
        const double loadCpu = cpuSeconds() - cpuStart;
        const double loadPeak = statusMb("VmHWM:");
        const double modelRss = statusMb("VmRSS:");
        const bool reset = resetPeak();

        start = std::chrono::steady_clock::now();
        cpuStart = cpuSeconds();
        sqlexport::SqliteExport out(db, false);
        const sqlexport::TraceCounts counts = out.addTrace(*t, {path, std::nullopt, std::nullopt, "", {}});
        out.finish();
        const double exportSeconds = secondsSince(start);
        const double exportCpu = cpuSeconds() - cpuStart;
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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_export: %s\n", e.what());
        std::filesystem::remove(db);
        return 1;
    }
    return 0;
}
