// SPDX-License-Identifier: MIT
#pragma once

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace testutil {

inline std::string dataPath(const std::string& relative) { return std::string(TILESCOPE_TEST_DATA) + "/" + relative; }

inline std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// The trace of an H200 workload folder: trace.json or trace.json.gz.
inline std::string workloadTrace(const std::string& workload)
{
    const std::string plain = dataPath("h200/" + workload + "/trace.json");
    return std::filesystem::exists(plain) ? plain : plain + ".gz";
}

// A program run to its end: exit status (-1 when it crashed or timed out) and both streams.
struct ProcessRun
{
    int exitCode = -1;
    QByteArray out, err;
};

inline ProcessRun runProcess(const QString& program, const QStringList& arguments, int timeoutMs = 180000)
{
    QProcess p;
    p.start(program, arguments);
    if (!p.waitForFinished(timeoutMs))
        qFatal("%s did not finish", qPrintable(program));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

// A /proc/PID folder's process is a zombie (ended, waiting to be reaped): it no longer runs.
inline bool isZombie(const std::string& procDir)
{
    const std::string stat = readFile(procDir + "/stat");
    const size_t close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

inline const char* h200Workloads[] = {"gemm_compare", "jit_cold", "launch_bound", "memory_churn", "streams_overlap", "train_scheduled"};

} // namespace testutil
