// SPDX-License-Identifier: MIT
#include "tracedocument.h"

#include "findings/diagnose.h"
#include "io/bytesource.h"
#include "io/tracefileerror.h"
#include "memory/memoryfiles.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

using namespace tilescope;

const analysis::StreamIdle* TraceDocument::streamIdleOf(uint32_t track) const
{
    for (const analysis::StreamIdle& s : streamIdle.streams)
        if (s.track == track)
            return &s;
    return nullptr;
}

const analysis::StreamQueue* TraceDocument::queueOf(uint32_t track) const
{
    for (const analysis::StreamQueue& q : queue.streams)
        if (q.track == track)
            return &q;
    return nullptr;
}

std::shared_ptr<const TraceDocument> TraceDocument::build(const QString& path, const QByteArray& bytes, const trace::LoadOptions& options)
{
    return analyse(*buildFirstFrame(path, bytes, options), AnalysisCallbacks{});
}

std::shared_ptr<TraceDocument> TraceDocument::buildFirstFrame(const QString& path, const QByteArray& bytes,
                                                              const trace::LoadOptions& options)
{
    auto doc = std::make_shared<TraceDocument>();
    doc->path = path;
    doc->fromBytes = !bytes.isEmpty();
    if (bytes.isEmpty()) {
        doc->trace = trace::loadTrace(path.toStdString(), options);
    } else {
        auto source = io::memorySource(std::string_view(bytes.constData(), size_t(bytes.size())), path.toStdString());
        doc->trace = trace::loadTrace(*source, options);
    }
    const trace::Trace& t = *doc->trace;
    doc->index = std::make_shared<const timeline::TimelineIndex>(t);
    for (uint32_t i = 0; i < t.tracks.size(); ++i)
        if (!t.tracks[i].events.empty())
            doc->laneOrder.push_back(i);
    // GPU devices first (kernels are what a user opens a trace for, and a host thread's Python stack can
    // be dozens of rows), then host processes, each by the trace's own sort indexes (Kineto's order).
    auto key = [&](uint32_t i) {
        const auto& track = t.tracks[i];
        const auto& p = t.processes[track.process];
        const int group = track.type == trace::Track::Type::GpuStream ? 0 : track.type == trace::Track::Type::HostThread ? 1 : 2;
        return std::make_tuple(group, p.sortIndex.value_or(p.pid.value_or(0)), track.sortIndex.value_or(track.tid.value_or(0)), i);
    };
    std::sort(doc->laneOrder.begin(), doc->laneOrder.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    bool any = false;
    for (const auto& e : t.events) {
        const auto type = t.tracks[e.track].type;
        if (type != trace::Track::Type::HostThread && type != trace::Track::Type::GpuStream)
            continue;
        doc->contentStart = any ? std::min(doc->contentStart, e.start) : e.start;
        doc->contentEnd = any ? std::max(doc->contentEnd, e.end()) : e.end();
        any = true;
    }
    if (!any) {
        doc->contentStart = t.firstTime();
        doc->contentEnd = t.lastTime();
    }
    return doc;
}

std::shared_ptr<const TraceDocument> TraceDocument::analyse(const TraceDocument& first, const AnalysisCallbacks& callbacks)
{
    auto doc = std::make_shared<TraceDocument>(first);
    const trace::Trace& t = *doc->trace;
    constexpr int kSteps = 10;
    int done = 0;
    auto step = [&](const char* what) {
        if (callbacks.cancel && callbacks.cancel->load())
            throw io::LoadCancelled();
        if (callbacks.progress)
            callbacks.progress(done, kSteps, what);
        ++done;
    };
    auto publish = [&] {
        if (callbacks.publish)
            callbacks.publish(std::make_shared<const TraceDocument>(*doc));
    };
    // In the order a user looks: busy lanes and view figures, then the tables, then the rest.
    step("overlap");
    doc->overlap = analysis::computeOverlap(t);
    doc->cpuAndGpu = doc->overlap.cpuBusy.intersection(doc->overlap.gpuBusy);
    doc->overlapIndex = std::make_shared<const analysis::OverlapIndex>(t, doc->overlap);
    step("steps");
    doc->steps = analysis::computeStepTable(t);
    publish();
    step("key averages");
    doc->averages = stats::computeKeyAverages(t);
    step("key averages by input shape");
    doc->averagesByShape = stats::computeKeyAverages(t, stats::KeyAveragesOptions::byInputShape(true));
    publish();
    step("roofline classification");
    const std::string sidecar = doc->path.toStdString() + ".annotations.json";
    if (!doc->fromBytes && std::filesystem::exists(sidecar))
        doc->classifyOptions.annotations = roofline::loadAnnotations(sidecar);
    doc->classification = roofline::classify(t, doc->classifyOptions);
    step("memory");
    doc->memory = memory::analyzeMemory(t);
    if (!doc->fromBytes) {
        const memory::MemoryFilesBeside beside = memory::findMemoryFilesBeside(doc->path.toStdString());
        try {
            if (beside.timeline) {
                auto timeline = std::make_shared<const memory::MemoryTimeline>(memory::loadMemoryTimeline(*beside.timeline));
                if (const std::string apart = memory::timelineOutsideTraceText(*timeline, t.firstTime(), t.lastTime(), t.meta.baseTimeNs);
                    !apart.empty())
                    doc->memoryFileProblems.push_back(apart);
                else
                    doc->memoryTimeline = std::move(timeline);
            }
        } catch (const io::TraceFileError& e) {
            doc->memoryFileProblems.push_back(e.what());
        }
        try {
            if (beside.snapshot) {
                auto snapshot = std::make_shared<const memory::AllocatorSnapshot>(memory::loadAllocatorSnapshot(*beside.snapshot));
                if (const std::string problem = memory::snapshotBesideProblem(*snapshot, beside.snapshotNamedForTrace, t.firstTime(),
                                                                              t.lastTime(), t.meta.baseTimeNs);
                    !problem.empty())
                    doc->memoryFileProblems.push_back(problem);
                else
                    doc->memorySnapshot = std::move(snapshot);
            }
        } catch (const io::TraceFileError& e) {
            doc->memoryFileProblems.push_back(e.what());
        }
    }
    step("stream idle");
    doc->streamIdle = analysis::computeStreamIdle(t);
    step("queue length");
    doc->queue = analysis::computeQueueLength(t);
    step("findings");
    findings::DiagnoseInputs inputs;
    inputs.averages = &doc->averages;
    inputs.overlap = &doc->overlap;
    inputs.memory = &doc->memory;
    inputs.classification = &doc->classification;
    doc->findings = findings::diagnose(t, inputs);
    step("launches");
    doc->launchStats = std::make_shared<const analysis::LaunchStats>(analysis::computeLaunchStats(t));
    doc->kernelSequences = std::make_shared<const analysis::KernelSequenceReport>(analysis::findKernelSequences(t));
    doc->analysed = true;
    if (callbacks.progress)
        callbacks.progress(kSteps, kSteps, "");
    return doc;
}
