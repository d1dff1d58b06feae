// SPDX-License-Identifier: MIT
// Any byte string must load or fail with TraceFileError: never crash, hang or trip a sanitizer.
#include "io/bytesource.h"
#include "io/tracefileerror.h"
#include "stats/keyaverages.h"
#include "stats/torchtable.h"
#include "trace/traceloader.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace tilescope;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
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
