// SPDX-License-Identifier: MIT
// Any byte string must decode or fail with TraceFileError, as a pickle, an allocator snapshot (with its
// replay and report) or a memory timeline: never crash, hang, run out of memory or trip a sanitizer.
#include "io/pickledecoder.h"
#include "io/tracefileerror.h"
#include "memory/allocatorsnapshot.h"
#include "memory/memorytimeline.h"
#include "report/snapshotreport.h"

#include <cstdint>
#include <set>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace tilescope;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    // A gzip member can inflate a thousandfold: keep each run small and fast.
    io::PickleLimits limits;
    limits.maxBytes = 4u << 20;
    try {
        const auto doc = io::decodePickle(bytes, "fuzz.pickle", limits);
        (void)doc.repr(doc.root());
    } catch (const io::TraceFileError&) { }
    try {
        const auto snapshot = memory::allocatorSnapshotFromBytes(bytes, "fuzz.pickle", limits);
        std::set<int64_t> devices;
        for (size_t d = 0; d < snapshot.deviceTraces.size(); ++d)
            devices.insert(int64_t(d));
        for (const auto& segment : snapshot.segments)
            devices.insert(segment.device);
        for (const int64_t d : devices)
            (void)memory::replayDeviceMemory(snapshot, static_cast<int>(d));
        (void)report::snapshotJson(snapshot);
        (void)report::snapshotText(snapshot);
    } catch (const io::TraceFileError&) { }
    try {
        const auto timeline = memory::memoryTimelineFromBytes(bytes, "fuzz.json");
        (void)report::memoryTimelineJson(timeline);
        (void)report::memoryTimelineText(timeline);
    } catch (const io::TraceFileError&) { }
    return 0;
}
