// SPDX-License-Identifier: MIT
// Any byte string must load or fail with TraceFileError: never crash, hang or trip a sanitizer.
#include "io/bytesource.h"
#include "io/tracefileerror.h"
#include "stats/keyaverages.h"
#include "stats/torchtable.h"
#include "trace/traceloader.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace {

// What a load made, briefly: counts and warnings, or the error text.
std::string outcome(std::string_view bytes, bool partial, unsigned threads, size_t chunkBytes)
{
    using namespace tilescope;
    trace::LoadOptions options;
    options.partial = partial;
    options.threads = threads;
    options.chunkBytes = chunkBytes;
    try {
        const auto t = trace::loadTrace([bytes] { return io::memorySource(bytes, "fuzz.json"); }, options);
        std::string text = std::to_string(t->events.size()) + " " + std::to_string(t->memory.size()) + " " + std::to_string(t->flows.size())
            + " " + std::to_string(t->counters.size()) + " " + std::to_string(t->tracks.size()) + " " + std::to_string(t->processes.size())
            + " " + std::to_string(t->ops.size()) + " " + std::to_string(t->stats.records) + " " + std::to_string(t->stats.decodedBytes);
        for (const trace::Event& e : t->events)
            text += " " + std::to_string(e.start) + "/" + std::to_string(e.duration) + "/" + std::string(t->name(e));
        for (const std::string& w : t->stats.warnings)
            text += "\n" + w;
        return text;
    } catch (const io::TraceFileError& e) {
        return std::string("error ") + e.what();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace tilescope;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // The parallel loader, with chunks small enough to cut anywhere, makes what the streaming pass makes.
    for (const bool partial : {false, true})
        if (outcome(bytes, partial, 1, 0) != outcome(bytes, partial, 3, 1 + size % 61))
            __builtin_trap();
    for (const bool partial : {false, true}) {
        try {
            auto source = io::memorySource(bytes, "fuzz.json");
            trace::LoadOptions options;
            options.partial = partial;
            const auto t = trace::loadTrace(*source, options);
            const auto averages = stats::computeKeyAverages(*t, stats::KeyAveragesOptions::byInputShape(partial));
            stats::TorchTableOptions table;
            table.rowLimit = 20;
            (void)stats::renderTorchTable(averages, table);
        } catch (const io::TraceFileError&) { }
    }
    return 0;
}
