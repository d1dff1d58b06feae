// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "memory/memoryanalysis.h"
#include "report/memoryreport.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "trace/trace.h"

namespace tilescope::findings::rules {

// Device memory that grows over steps and is not returned: the memory analysis's suspected leak.
void memoryGrowth(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.memory)
        return;
    // In a window: the leak rule over the steps that start inside it.
    std::vector<memory::SuspectedLeak> windowLeaks;
    const memory::SuspectedLeak* leak = in.memory->worstLeak();
    if (in.window) {
        const auto& steps = in.memory->steps;
        uint32_t first = 0;
        while (first < steps.size() && steps[first].start < in.window->start)
            ++first;
        uint32_t end = first;
        while (end < steps.size() && steps[end].start < in.window->end)
            ++end;
        windowLeaks = memory::findLeaksInSteps(*in.memory, first, end);
        leak = nullptr;
        for (const memory::SuspectedLeak& l : windowLeaks)
            if (!leak || l.growthBytes > leak->growthBytes)
                leak = &l;
    }
    if (!leak)
        return;
    const memory::DeviceMemory& device = in.memory->devices[leak->device];
    const memory::StepMemory& firstStep = in.memory->steps[leak->firstStep];
    const memory::StepMemory& lastStep = in.memory->steps[leak->lastStep];
    Finding f;
    f.id = "memory-growth";
    f.title = "Device memory grows over steps and is not returned";
    // A cache still filling also grows; growth over many steps makes that reading unlikely.
    f.strength = leak->growingSteps >= thresholds::kMemoryGrowthStrongSteps ? Strength::Strong : Strength::Weak;
    f.evidence.push_back("Allocated on " + report::leakSentence(t, *in.memory, *leak) + ".");
    f.evidence.push_back("Peak allocated " + stats::formatBytes(device.peakAllocated) + ", " + stats::formatBytes(device.finalAllocated)
                         + " still allocated at the end.");
    f.columns = {"[memory] Total Allocated", "[memory] Bytes", "step ts, dur"};
    f.nextStep = "Find what each step keeps: `tilescope-cli memory TRACE --events` lists the blocks still live at the end with "
                 "the op that allocated them (a list that collects tensors, a loss kept with its graph: store loss.item() or "
                 ".detach()). A longer run settles whether it is a cache that stops growing.";
    f.where.push_back({firstStep.start, lastStep.end, trace::kNoIndex});
    out.push_back(std::move(f));
}

// Allocations that failed: [OutOfMemory] records.
void outOfMemory(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.memory)
        return;
    std::vector<const memory::OutOfMemoryEvent*> ooms;
    for (const memory::OutOfMemoryEvent& oom : in.memory->ooms)
        if (inWindow(in, oom.time))
            ooms.push_back(&oom);
    if (ooms.empty())
        return;
    Finding f;
    f.id = "out-of-memory";
    f.title = "An allocation failed: out of memory";
    f.strength = Strength::Strong; // the allocator recorded the failure
    for (const memory::OutOfMemoryEvent* each : ooms) {
        const memory::OutOfMemoryEvent& oom = *each;
        std::string sentence = "A request for " + stats::formatBytes(oom.requestedBytes) + " on " + in.memory->devices[oom.device].name
            + " failed";
        if (oom.allocated != trace::kNoId)
            sentence += " with " + stats::formatBytes(oom.allocated) + " allocated";
        if (oom.reserved != trace::kNoId)
            sentence += " and " + stats::formatBytes(oom.reserved) + " reserved";
        sentence += oom.op != trace::kNoIndex ? ", in " + std::string(t.name(t.events[oom.op])) : std::string(", outside any op");
        f.evidence.push_back(sentence + ".");
        f.where.push_back({oom.time, oom.time, oom.op});
    }
    f.columns = {"[OutOfMemory] Bytes", "[OutOfMemory] Total Allocated", "[OutOfMemory] Total Reserved"};
    f.nextStep = "Compare the request with what was held: a request larger than the device is a size bug (a wrong shape); "
                 "otherwise free or shrink what is live at that point (smaller batch, activation checkpointing) and read the "
                 "allocator snapshot's blocks at the OOM entry.";
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
