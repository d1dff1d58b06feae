// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/steps.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli steps`: {"source": "ProfilerStep#N" | "repeated region NAME" | null, "steps": [{"step",
// "name", "start_us", "end_us", "duration_us", "gpu_busy_us", "gpu_utilization", "kernels", "cpu_busy_us"}]}.
std::string stepsJson(const trace::Trace& trace, const analysis::StepTable& table);
// The same rows as a table; a trace without steps gets one sentence.
std::string stepsText(const trace::Trace& trace, const analysis::StepTable& table);

// Why a step can be GPU-busy with no kernel of its own: said under the table when one is, and by the app's columns.
constexpr const char* kStepGpuBusyText = "GPU busy is the GPU work running within a step's time, whichever step launched it; kernels "
                                         "counts those that started in it. The GPU runs behind the CPU, so a step can be busy with "
                                         "kernels launched in the one before";

// The sentence for a trace without steps.
constexpr const char* kNoStepsText = "no steps (no ProfilerStep#N and no repeating top-level record_function region)";

} // namespace tilescope::report
