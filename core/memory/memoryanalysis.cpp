// SPDX-License-Identifier: MIT
#include "memory/memoryanalysis.h"

#include "trace/eventsearch.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace tilescope::memory {

using trace::kNoId;
using trace::kNoIndex;

namespace {

constexpr int kCpu = 0; // c10::DeviceType::CPU

// Groups records by device in the order MemoryAnalysis::devices lists them: accelerators by (type, id),
// then the CPU.
int64_t deviceOrderKey(const trace::MemoryRecord& m)
{
    return (int64_t(m.deviceType == kCpu) << 40) | (int64_t(uint16_t(m.deviceType)) << 20) | int64_t(uint16_t(m.deviceId));
}

bool sameDevice(const trace::MemoryRecord& a, const trace::MemoryRecord& b)
{
    return a.deviceType == b.deviceType && a.deviceId == b.deviceId;
}

// The devices, their samples, peaks and counts; recordDevice / recordSample map each record back.
void buildDevices(const trace::Trace& t, const std::vector<uint32_t>& recordOp, MemoryAnalysis& out, std::vector<uint32_t>& recordDevice,
                  std::vector<uint32_t>& recordSample)
{
    const auto& memory = t.memory;
    struct Key
    {
        int64_t device, time;
        uint32_t record;
    };
    std::vector<Key> keys(memory.size());
    for (uint32_t r = 0; r < memory.size(); ++r)
        keys[r] = {deviceOrderKey(memory[r]), memory[r].time, r};
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        return a.device != b.device ? a.device < b.device : a.time != b.time ? a.time < b.time : a.record < b.record; // stable: file order
    });
    std::vector<uint32_t> order(memory.size());
    for (size_t k = 0; k < keys.size(); ++k)
        order[k] = keys[k].record;
    keys = {};
    recordDevice.assign(memory.size(), kNoIndex);
    recordSample.assign(memory.size(), kNoIndex);
    for (size_t begin = 0; begin < order.size();) {
        size_t end = begin + 1;
        while (end < order.size() && sameDevice(memory[order[end]], memory[order[begin]]))
            ++end;
        const auto index = static_cast<uint32_t>(out.devices.size());
        DeviceMemory& d = out.devices.emplace_back();
        const trace::MemoryRecord& first = memory[order[begin]];
        d.deviceType = first.deviceType;
        d.deviceId = first.deviceId;
        d.name = memoryDeviceName(first.deviceType, first.deviceId);
        for (size_t k = begin; k < end; ++k) {
            const trace::MemoryRecord& m = memory[order[k]];
            if (!m.outOfMemory) {
                d.allocatedFromRunningSum |= m.totalAllocated == kNoId;
                d.hasReserved &= m.totalReserved != kNoId;
            }
        }
        int64_t runningSum = 0;
        for (size_t k = begin; k < end; ++k) {
            const uint32_t r = order[k];
            const trace::MemoryRecord& m = memory[r];
            recordDevice[r] = index;
            if (m.outOfMemory) {
                // An OOM record without totals (1.8 format) stands where the device's series stood.
                const MemorySample* last = d.samples.empty() ? nullptr : &d.samples.back();
                int64_t allocated = m.totalAllocated, reserved = m.totalReserved;
                if (allocated == kNoId && last)
                    allocated = last->allocated;
                if (reserved == kNoId && last && d.hasReserved)
                    reserved = last->reserved;
                out.ooms.push_back({index, m.bytes, allocated, reserved, m.time, recordOp[r], r});
                continue;
            }
            runningSum += m.bytes;
            recordSample[r] = static_cast<uint32_t>(d.samples.size());
            d.samples.push_back(
                {m.time, d.allocatedFromRunningSum ? runningSum : m.totalAllocated, d.hasReserved ? m.totalReserved : 0, r});
            if (m.bytes > 0) {
                ++d.allocs;
                d.allocBytes += m.bytes;
            } else if (m.bytes < 0) {
                ++d.frees;
                d.freeBytes -= m.bytes;
            }
        }
        for (uint32_t s = 0; s < d.samples.size(); ++s) {
            const MemorySample& sample = d.samples[s];
            if (d.peakAllocatedSample == kNoIndex || sample.allocated > d.peakAllocated) {
                d.peakAllocated = sample.allocated;
                d.peakAllocatedSample = s;
            }
            if (d.peakReservedSample == kNoIndex || sample.reserved > d.peakReserved) {
                d.peakReserved = sample.reserved;
                d.peakReservedSample = s;
            }
        }
        if (const MemorySample* peak = d.peakSample()) {
            d.peakAllocatedTime = peak->time;
            d.peakOp = recordOp[peak->record];
            d.peakReservedTime = d.samples[d.peakReservedSample].time;
            d.finalAllocated = d.samples.back().allocated;
            d.finalReserved = d.samples.back().reserved;
        }
        begin = end;
    }
    std::stable_sort(out.ooms.begin(), out.ooms.end(),
                     [](const OutOfMemoryEvent& a, const OutOfMemoryEvent& b) { return a.time < b.time; });
}

// Pairs each allocation with the next free of its address on its device: one sort, no map.
void pairBlocks(const trace::Trace& t, const std::vector<uint32_t>& recordOp, const std::vector<uint32_t>& recordDevice,
                const std::vector<uint32_t>& recordSample, MemoryAnalysis& out)
{
    const auto& memory = t.memory;
    // Sorted as compact (device, address, time order) keys rather than through the records.
    struct Key
    {
        uint32_t device, sample;
        int64_t address;
        uint32_t record;
    };
    std::vector<Key> keys;
    for (uint32_t r = 0; r < memory.size(); ++r)
        if (!memory[r].outOfMemory && memory[r].address != kNoId && memory[r].bytes != 0)
            keys.push_back({recordDevice[r], recordSample[r], memory[r].address, r});
    out.hasAddresses = !keys.empty();
    std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
        if (a.device != b.device)
            return a.device < b.device;
        if (a.address != b.address)
            return a.address < b.address;
        return a.sample < b.sample;
    });
    std::vector<uint32_t> order(keys.size());
    for (size_t k = 0; k < keys.size(); ++k)
        order[k] = keys[k].record;
    keys = {};
    const auto allocated = [&](uint32_t r, bool liveAtEnd) {
        const trace::MemoryRecord& m = memory[r];
        out.blocks.push_back({recordDevice[r], m.address, m.bytes, m.time, kNoId, r, kNoIndex, recordOp[r], kNoIndex, liveAtEnd});
    };
    for (size_t k = 0; k < order.size(); ++k) {
        const uint32_t r = order[k];
        const trace::MemoryRecord& m = memory[r];
        const bool sameAddressNext = k + 1 < order.size() && recordDevice[order[k + 1]] == recordDevice[r]
            && memory[order[k + 1]].address == m.address;
        if (m.bytes > 0) {
            if (sameAddressNext && memory[order[k + 1]].bytes < 0) {
                const uint32_t f = order[++k];
                out.blocks.push_back({recordDevice[r], m.address, m.bytes, m.time, memory[f].time, r, f, recordOp[r], recordOp[f], false});
            } else {
                allocated(r, !sameAddressNext); // followed by another allocation: its free was lost
            }
        } else { // a free of a block allocated before the trace
            out.blocks.push_back({recordDevice[r], m.address, -m.bytes, kNoId, m.time, kNoIndex, r, kNoIndex, recordOp[r], false});
        }
    }
    const auto firstTime = [](const MemoryBlock& b) { return b.allocRecord != kNoIndex ? b.allocTime : b.freeTime; };
    const auto firstRecord = [](const MemoryBlock& b) { return b.allocRecord != kNoIndex ? b.allocRecord : b.freeRecord; };
    std::sort(out.blocks.begin(), out.blocks.end(), [&](const MemoryBlock& a, const MemoryBlock& b) {
        const int64_t ta = firstTime(a), tb = firstTime(b);
        if (ta != tb)
            return ta < tb;
        if (a.device != b.device)
            return a.device < b.device;
        return recordSample[firstRecord(a)] < recordSample[firstRecord(b)];
    });
}

// Calls per op name (host ops), by StringId.
std::vector<uint64_t> countCalls(const trace::Trace& t)
{
    std::vector<uint64_t> calls(t.strings.size(), 0);
    for (const trace::Event& e : t.events)
        if (trace::isHostOp(e) && e.name < calls.size())
            ++calls[e.name];
    return calls;
}

void buildOps(const trace::Trace& t, const std::vector<uint64_t>& calls, const std::vector<uint32_t>& recordOp,
              const std::vector<uint32_t>& recordSample, MemoryAnalysis& out)
{
    // Slot 0: records outside any op; slot name + 1 otherwise.
    std::vector<OpMemory> slots(t.strings.size() + 1);
    std::vector<uint8_t> used(slots.size(), 0);
    const auto slotOf = [&](uint32_t op) { return op == kNoIndex ? 0 : size_t(t.events[op].name) + 1; };
    for (uint32_t r = 0; r < t.memory.size(); ++r) {
        const trace::MemoryRecord& m = t.memory[r];
        if (m.outOfMemory || m.bytes == 0)
            continue;
        const size_t s = slotOf(recordOp[r]);
        used[s] = 1;
        if (m.bytes > 0) {
            ++slots[s].allocs;
            slots[s].allocBytes += m.bytes;
        } else {
            ++slots[s].frees;
            slots[s].freeBytes -= m.bytes;
        }
    }
    for (const MemoryBlock& b : out.blocks) {
        if (b.allocRecord == kNoIndex)
            continue;
        const uint32_t peak = out.devices[b.device].peakAllocatedSample;
        const bool allocatedByPeak = recordSample[b.allocRecord] <= peak;
        const bool freedAfterPeak = b.freeRecord != kNoIndex ? recordSample[b.freeRecord] > peak : b.liveAtEnd;
        if (allocatedByPeak && freedAfterPeak)
            slots[slotOf(b.allocOp)].liveAtPeakBytes += b.bytes;
    }
    for (size_t s = 0; s < slots.size(); ++s) {
        if (!used[s])
            continue;
        OpMemory op = slots[s];
        op.name = s == 0 ? kNoIndex : static_cast<trace::StringId>(s - 1);
        op.calls = s == 0 ? 0 : calls[s - 1];
        out.ops.push_back(op);
    }
    std::sort(out.ops.begin(), out.ops.end(), [&](const OpMemory& a, const OpMemory& b) {
        if (a.allocBytes != b.allocBytes)
            return a.allocBytes > b.allocBytes;
        if (a.allocs != b.allocs)
            return a.allocs > b.allocs;
        if (a.name == kNoIndex || b.name == kNoIndex)
            return b.name == kNoIndex && a.name != kNoIndex;
        return t.strings.view(a.name) < t.strings.view(b.name);
    });
}

void buildSteps(const trace::Trace& t, MemoryAnalysis& out)
{
    for (const analysis::Step& s : analysis::findSteps(t, &out.stepSource)) {
        StepMemory step{t.events[s.event].name, s.event, s.start, s.end, {}};
        for (const DeviceMemory& d : out.devices) {
            const auto it = std::upper_bound(d.samples.begin(), d.samples.end(), step.end,
                                             [](int64_t time, const MemorySample& s) { return time < s.time; });
            step.allocatedAtEnd.push_back(it == d.samples.begin() ? kNoId : (it - 1)->allocated);
        }
        out.steps.push_back(std::move(step));
    }
}

void findLeaks(MemoryAnalysis& out) { out.leaks = findLeaksInSteps(out, 0, static_cast<uint32_t>(out.steps.size())); }

// The track holding the ops of the thread a record was made on: its own, unless it has no host ops and
// another lane of the same process has the same numeric tid and has them (the 1.8 format writes the ops'
// tid as a string and the [memory] instants' as a number, which the loader keeps as two lanes).
trace::TrackId opTrackFor(const trace::Trace& t, trace::TrackId track)
{
    const auto hasHostOps = [&](const trace::Track& lane) {
        return std::any_of(lane.events.begin(), lane.events.end(), [&](uint32_t e) { return trace::isHostOp(t.events[e]); });
    };
    const trace::Track& own = t.tracks[track];
    if (!own.tid || hasHostOps(own))
        return track;
    for (trace::TrackId other = 0; other < t.tracks.size(); ++other) {
        const trace::Track& lane = t.tracks[other];
        if (other != track && lane.process == own.process && lane.tid == own.tid && hasHostOps(lane))
            return other;
    }
    return track;
}

} // namespace

uint32_t memoryOpAt(const trace::Trace& t, const MemoryAnalysis& a, uint32_t device, int64_t time)
{
    if (device >= a.devices.size())
        return kNoIndex;
    const auto& samples = a.devices[device].samples;
    const auto it = std::upper_bound(samples.begin(), samples.end(), time,
                                     [](int64_t when, const MemorySample& s) { return when < s.time; });
    if (it == samples.begin())
        return kNoIndex;
    const trace::TrackId track = t.memory[(it - 1)->record].track;
    return trace::innermostHostOpAt(t, track < a.opTrackOf.size() ? a.opTrackOf[track] : track, time);
}

std::string memoryDeviceName(int deviceType, int deviceId)
{
    // c10::DeviceType's names (c10/core/DeviceType.cpp), by value.
    static constexpr std::array<std::string_view, 21> kNames = {"cpu",  "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
                                                                "fpga", "maia", "xla",    "vulkan", "metal",  "xpu",   "mps",
                                                                "meta", "hpu",  "ve",     "lazy",   "ipu",    "mtia",  "privateuseone"};
    if (deviceType == kCpu)
        return "cpu";
    const std::string type = deviceType >= 0 && size_t(deviceType) < kNames.size() ? std::string(kNames[size_t(deviceType)])
                                                                                   : "device" + std::to_string(deviceType);
    return deviceId < 0 ? type : type + ":" + std::to_string(deviceId);
}

std::optional<SuspectedLeak> findSuspectedLeak(std::span<const int64_t> v)
{
    std::optional<SuspectedLeak> best;
    const size_t n = v.size();
    for (size_t a = 0; a < n;) {
        size_t e = a; // the window [a, e]: no step-to-step drop of kStepNoiseBytes or more
        while (e + 1 < n && v[e + 1] - v[e] > -kStepNoiseBytes)
            ++e;
        uint32_t growing = 0;
        size_t first = 0, last = 0;
        for (size_t k = a + 1; k <= e; ++k)
            if (v[k] - v[k - 1] >= kStepNoiseBytes) {
                if (growing++ == 0)
                    first = k;
                last = k;
            }
        bool givenBack = false;
        for (size_t k = first + 1; k < n && growing >= kLeakMinGrowingSteps && !givenBack; ++k)
            givenBack = v[k] <= v[first] - kStepNoiseBytes;
        if (growing >= kLeakMinGrowingSteps && !givenBack) {
            SuspectedLeak leak{};
            leak.firstStep = static_cast<uint32_t>(first);
            leak.lastStep = static_cast<uint32_t>(last);
            leak.steps = static_cast<uint32_t>(last - first + 1);
            leak.growingSteps = growing;
            leak.growthBytes = v[last] - v[first - 1];
            leak.growthBytesPerStep = leak.growthBytes / leak.steps;
            if (!best || leak.growthBytes > best->growthBytes)
                best = leak;
        }
        a = e + 1;
    }
    return best;
}

uint32_t MemoryAnalysis::primaryDevice() const
{
    uint32_t best = kNoIndex;
    for (uint32_t d = 0; d < devices.size(); ++d)
        if (best == kNoIndex || devices[d].peakAllocated > devices[best].peakAllocated)
            best = d;
    return best;
}

std::vector<SuspectedLeak> findLeaksInSteps(const MemoryAnalysis& analysis, uint32_t firstStep, uint32_t endStep)
{
    std::vector<SuspectedLeak> leaks;
    endStep = std::min<uint32_t>(endStep, static_cast<uint32_t>(analysis.steps.size()));
    for (uint32_t d = 0; d < analysis.devices.size(); ++d) {
        std::vector<int64_t> values;
        std::vector<uint32_t> stepOf;
        for (uint32_t s = firstStep; s < endStep; ++s)
            if (analysis.steps[s].allocatedAtEnd[d] != kNoId) {
                values.push_back(analysis.steps[s].allocatedAtEnd[d]);
                stepOf.push_back(s);
            }
        if (auto leak = findSuspectedLeak(values)) {
            leak->device = d;
            leak->firstStep = stepOf[leak->firstStep];
            leak->lastStep = stepOf[leak->lastStep];
            leaks.push_back(*leak);
        }
    }
    return leaks;
}

const SuspectedLeak* MemoryAnalysis::worstLeak() const
{
    const SuspectedLeak* worst = nullptr;
    for (const SuspectedLeak& leak : leaks)
        if (!worst || leak.growthBytes > worst->growthBytes)
            worst = &leak;
    return worst;
}

MemoryAnalysis analyzeMemory(const trace::Trace& t)
{
    MemoryAnalysis out;
    if (t.memory.empty())
        return out;
    out.opTrackOf.assign(t.tracks.size(), kNoIndex);
    for (const trace::MemoryRecord& m : t.memory)
        if (out.opTrackOf[m.track] == kNoIndex)
            out.opTrackOf[m.track] = opTrackFor(t, m.track);
    std::vector<uint32_t> recordOp(t.memory.size());
    for (uint32_t r = 0; r < t.memory.size(); ++r)
        recordOp[r] = trace::innermostHostOpAt(t, out.opTrackOf[t.memory[r].track], t.memory[r].time);
    std::vector<uint32_t> recordDevice, recordSample;
    buildDevices(t, recordOp, out, recordDevice, recordSample);
    pairBlocks(t, recordOp, recordDevice, recordSample, out);
    buildOps(t, countCalls(t), recordOp, recordSample, out);
    buildSteps(t, out);
    findLeaks(out);
    return out;
}

} // namespace tilescope::memory
