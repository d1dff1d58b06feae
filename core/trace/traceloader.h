// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tilescope::io {
class ByteSource;
}

namespace tilescope::trace {

struct LoadProgress
{
    uint64_t inputBytesRead;
    uint64_t inputBytesTotal;
    uint64_t events;
};

struct LoadOptions
{
    // Keep what loaded before a syntax error or truncation (a crashed run), with a warning.
    bool partial = false;
    // Keep every event's raw args JSON (the GUI's details view); analyses do not need it.
    bool keepRawArgs = true;
    // Called about every MiB from the loading thread.
    std::function<void(const LoadProgress&)> progress;
    // Set from any thread to stop the load; it then throws io::LoadCancelled.
    const std::atomic<bool>* cancel = nullptr;
};

// Loads a Chrome trace: Kineto JSON (PyTorch 1.8 to 2.11), the legacy autograd export, or any Chrome
// Trace Event Format file, gzip or plain, in one streaming pass. Throws io::TraceFileError on bad input.
std::unique_ptr<Trace> loadTrace(const std::string& path, const LoadOptions& options = {});
std::unique_ptr<Trace> loadTrace(io::ByteSource& source, const LoadOptions& options = {});

} // namespace tilescope::trace
