// SPDX-License-Identifier: MIT
#include "profilers.h"

#include "sessionerror.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <fstream>
#include <set>

namespace tilescope::torchtool {

namespace {

namespace autograd_profiler = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

ProfilerConfig makeConfig(ProfilerState state, const ProfilerOptions& o)
{
    // FLOPs per op feed the roofline's work estimates; torch computes them from the recorded shapes only.
    return ProfilerConfig(state, o.recordShapes, o.profileMemory, o.withStack, /*with_flops=*/o.recordShapes);
}

std::set<ActivityType> activities(const ProfilerOptions& o)
{
    std::set<ActivityType> set{ActivityType::CPU};
    if (o.cuda)
        set.insert(ActivityType::CUDA);
    return set;
}

class KinetoRecorder : public TraceRecorder
{
public:
    explicit KinetoRecorder(const ProfilerOptions& options)
        : m_options(options)
    { }
    std::string name() const override { return "kineto"; }

    void start() override
    {
        const ProfilerConfig config = makeConfig(ProfilerState::KINETO, m_options);
        autograd_profiler::prepareProfiler(config, activities(m_options));
        autograd_profiler::enableProfiler(config, activities(m_options));
    }

    void stopAndSave(const std::filesystem::path& trace) override
    {
        const std::unique_ptr<autograd_profiler::ProfilerResult> result = autograd_profiler::disableProfiler();
        result->save(trace.string());
    }

private:
    ProfilerOptions m_options;
};

class LegacyRecorder : public TraceRecorder
{
public:
    explicit LegacyRecorder(const ProfilerOptions& options)
        : m_options(options)
    { }
    std::string name() const override { return "legacy"; }

    void start() override
    {
        autograd_profiler::enableProfilerLegacy(makeConfig(m_options.cuda ? ProfilerState::CUDA : ProfilerState::CPU, m_options));
    }

    void stopAndSave(const std::filesystem::path& trace) override
    {
        // What RecordProfile's destructor does, but with errors reported instead of logged and swallowed.
        autograd_profiler::thread_event_lists lists = autograd_profiler::disableProfilerLegacy();
        std::vector<autograd_profiler::LegacyEvent*> events;
        for (auto& list : lists)
            for (auto& event : list)
                events.push_back(&event);
        std::ofstream out(trace, std::ios::binary | std::ios::trunc);
        if (!out)
            throw SessionError("cannot write the trace " + trace.string());
        autograd_profiler::writeProfilerEventsToStream(out, events);
        if (!out.flush())
            throw SessionError("cannot write the trace " + trace.string());
    }

private:
    ProfilerOptions m_options;
};

} // namespace

bool kinetoAvailable(const ProfilerOptions& options, const std::filesystem::path& scratchDir)
{
    const std::filesystem::path probe = scratchDir / ".tilescope-kineto-probe.json";
    bool available = true;
    try {
        KinetoRecorder recorder(options);
        recorder.start();
        recorder.stopAndSave(probe);
    } catch (const std::exception&) {
        available = false; // "Saving a trace requires using torch.profiler with Kineto support (USE_KINETO=1)"
    }
    std::error_code ignored;
    std::filesystem::remove(probe, ignored);
    return available;
}

std::unique_ptr<TraceRecorder> makeKinetoRecorder(const ProfilerOptions& options) { return std::make_unique<KinetoRecorder>(options); }
std::unique_ptr<TraceRecorder> makeLegacyRecorder(const ProfilerOptions& options) { return std::make_unique<LegacyRecorder>(options); }

} // namespace tilescope::torchtool
