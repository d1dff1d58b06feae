// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace tilescope::torchtool {

class Progress;

// `tilescope-torch capture`: profiles a TorchScript module's forward() in this process.
struct CaptureOptions
{
    std::string model;  // --torchscript FILE
    std::string inputs; // --inputs SPEC
    std::string out;    // --out DIR
    std::string device = "cpu";
    std::string profiler = "auto"; // auto, kineto or legacy
    int warmup = 10;
    int iters = 5;
    bool recordShapes = false;
    bool profileMemory = false;
    bool withStack = false;
};

// The label of each profiled call: a user scope, like Python's record_function.
inline constexpr const char* kForwardLabel = "torchscript_forward";

// Runs the session and returns the exit status. Every failure after --out is known still writes the
// manifest with "status": "failed".
int runCapture(const CaptureOptions& options, Progress& progress);

} // namespace tilescope::torchtool
