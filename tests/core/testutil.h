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

inline const char* h200Workloads[] = {"gemm_compare", "jit_cold", "launch_bound", "memory_churn", "streams_overlap", "train_scheduled"};

} // namespace testutil
