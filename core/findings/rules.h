// SPDX-License-Identifier: MIT
#pragma once

#include "findings/diagnose.h"

// The rule functions the registry (diagnose.cpp) lists; one file per rule or small group under rules/.
namespace tilescope::findings::rules {

void launchBound(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void gpuIdle(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void dominantKernel(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void warmupInWindow(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void syncStall(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void pageableMemcpy(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void tinyKernels(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void memoryGrowth(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void outOfMemory(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void cudaGraph(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);
void partialTrace(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);

} // namespace tilescope::findings::rules
