// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/kernelsequences.h"
#include "analysis/launchstats.h"
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

#include <atomic>
#include <functional>
#include <memory>

// Everything the windows show for one open trace, built off the GUI thread and read-only once published.
// It comes in stages so the timeline draws as soon as the events are in: buildFirstFrame() gives the trace,
// its lane index, lane order and extent with every analysis still empty; analyse() then publishes copies
// that share the trace and index and carry more analyses each, the last one with `analysed` set.
struct TraceDocument
{
    QString path;
    bool fromBytes = false; // loaded from memory (the bundled sample): no files beside it
    std::shared_ptr<const tilescope::trace::Trace> trace;
    std::shared_ptr<const tilescope::timeline::TimelineIndex> index;
    bool analysed = false;                                                 // every analysis below is in
    tilescope::analysis::OverlapReport overlap;                            // the whole trace
    tilescope::analysis::IntervalSet cpuAndGpu;                            // both busy
    std::shared_ptr<const tilescope::analysis::OverlapIndex> overlapIndex; // figures for any view in O(log n); null until analysed
    tilescope::analysis::StepTable steps;                                  // the Steps dock and the timeline's step ruler
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
    // The Launches dock's figures; null until analysed.
    std::shared_ptr<const tilescope::analysis::LaunchStats> launchStats;
    std::shared_ptr<const tilescope::analysis::KernelSequenceReport> kernelSequences;

    // The entries of `track` in streamIdle and queue; nullptr when the track has none.
    const tilescope::analysis::StreamIdle* streamIdleOf(uint32_t track) const;
    const tilescope::analysis::StreamQueue* queueOf(uint32_t track) const;

    // Loads and analyses; throws tilescope::io::TraceFileError / LoadCancelled.
    static std::shared_ptr<const TraceDocument> build(const QString& path, const QByteArray& bytes,
                                                      const tilescope::trace::LoadOptions& options);
    // Loads, and builds what the timeline needs to draw; the analyses stay empty. Throws like build().
    static std::shared_ptr<TraceDocument> buildFirstFrame(const QString& path, const QByteArray& bytes,
                                                          const tilescope::trace::LoadOptions& options);

    struct AnalysisCallbacks
    {
        // Before each step, on the analysing thread: steps done so far, all steps, what comes next.
        std::function<void(int done, int total, const char* what)> progress;
        // A copy holding the analyses done so far, after each group of them.
        std::function<void(std::shared_ptr<const TraceDocument>)> publish;
        const std::atomic<bool>* cancel = nullptr; // raised: throws tilescope::io::LoadCancelled
    };
    // Every analysis of `first`'s trace, into a copy sharing its trace and index (`analysed` set).
    static std::shared_ptr<const TraceDocument> analyse(const TraceDocument& first, const AnalysisCallbacks& callbacks);
};
