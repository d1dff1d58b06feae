// SPDX-License-Identifier: MIT
#pragma once
// What tst_streamidle and tst_queuelength both run on: the fixtures with several streams, launches of every
// kind and old and new formats, and one synthetic trace whose gaps and pending launches each test spells out
// beside its own assertions.

#include "testutil.h"

#include <QTemporaryDir>

#include <fstream>
#include <string>
#include <vector>

namespace streamfixtures {

inline std::vector<std::string> fixtures()
{
    return {testutil::workloadTrace("streams_overlap"),
            testutil::workloadTrace("launch_bound"),
            testutil::workloadTrace("train_scheduled"),
            testutil::dataPath("nccl/nccl_allreduce_broadcast.json"),
            testutil::dataPath("external/hta/ns_resolution_trace_rank0.json.gz"),
            testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"),
            testutil::dataPath("ranks/gloo/slow/rank-2.json.gz")};
}

inline const char* kSynthetic = R"json({"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 0.5, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"correlation": 8}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"correlation": 9}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 40, "dur": 1, "args": {"correlation": 3}},
{"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 1, "tid": 1, "ts": 41, "dur": 0.5, "args": {"correlation": 4}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 42, "dur": 2, "args": {"correlation": 5}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 1, "args": {"correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 22, "dur": 8, "args": {"device": 0, "stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 45, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 7, "ts": 70, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 4}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 80.5, "dur": 9.5, "args": {"device": 0, "stream": 7, "correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "k6", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 6}},
{"ph": "X", "cat": "kernel", "name": "k7", "pid": 0, "tid": 7, "ts": 115, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 7}},
{"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 8, "ts": 12, "dur": 2, "args": {"device": 0, "stream": 8, "correlation": 8}},
{"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 8, "ts": 14, "dur": 2, "args": {"device": 0, "stream": 8, "correlation": 9}}
]})json";

inline std::string writeSynthetic(const QTemporaryDir& dir)
{
    const std::string path = dir.filePath(QStringLiteral("synthetic.json")).toStdString();
    std::ofstream(path) << kSynthetic;
    return path;
}

} // namespace streamfixtures
