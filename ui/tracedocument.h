// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/overlap.h"
#include "analysis/queuelength.h"
#include "analysis/streamidle.h"
#include "analysis/steps.h"
#include "findings/finding.h"
#include "memory/allocatorsnapshot.h"
#include "memory/memoryanalysis.h"
#include "memory/memorytimeline.h"
#include "roofline/classify.h"
#include "stats/keyaverages.h"
#include "timeline/timelineindex.h"
#include "trace/trace.h"
#include "trace/traceloader.h"

#include <QString>

#include <memory>

// Everything the windows show for one open trace, built once off the GUI thread and then read-only.
struct TraceDocument
{
    QString path;
    std::unique_ptr<tilescope::trace::Trace> trace;
    std::unique_ptr<tilescope::timeline::TimelineIndex> index;
    tilescope::analysis::OverlapReport overlap;                      // the whole trace
    tilescope::analysis::IntervalSet cpuAndGpu;                      // both busy
    std::unique_ptr<tilescope::analysis::OverlapIndex> overlapIndex; // figures for any view in O(log n)
    tilescope::analysis::StepTable steps;                            // the Steps dock and the timeline's step ruler
    tilescope::stats::KeyAverages averages;
    tilescope::stats::KeyAverages averagesByShape;
    tilescope::roofline::ClassifyOptions classifyOptions; // what `classification` was made with
    tilescope::roofline::ClassifyReport classification;   // with TRACE.annotations.json when it exists
    tilescope::memory::MemoryAnalysis memory;             // from the [memory] records; empty without profile_memory
    // Found beside the trace (memory::findMemoryFilesBeside): a memory timeline and an allocator snapshot.
    std::shared_ptr<const tilescope::memory::MemoryTimeline> memoryTimeline;
    std::shared_ptr<const tilescope::memory::AllocatorSnapshot> memorySnapshot;
    std::vector<std::string> memoryFileProblems;      // beside files that could not be read, one line each
    std::vector<uint32_t> laneOrder;                  // tracks with events: GPU streams, host threads, others
    int64_t contentStart = 0, contentEnd = 0;         // extent of thread and stream events (not profiler spans)
    tilescope::analysis::StreamIdleReport streamIdle; // each GPU stream's idle split over its own span
    tilescope::analysis::QueueReport queue;           // launch queue length per GPU stream, the whole trace
    // findings::diagnose over the whole trace, from the analyses above.
    std::vector<tilescope::findings::Finding> findings;

    // The entries of `track` in streamIdle and queue; nullptr when the track has none.
    const tilescope::analysis::StreamIdle* streamIdleOf(uint32_t track) const;
    const tilescope::analysis::StreamQueue* queueOf(uint32_t track) const;

    // Loads and analyses; throws tilescope::io::TraceFileError / LoadCancelled.
    static std::shared_ptr<const TraceDocument> build(const QString& path, const QByteArray& bytes,
                                                      const tilescope::trace::LoadOptions& options);
};
