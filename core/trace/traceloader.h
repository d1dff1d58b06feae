// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

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
    // Threads parsing traceEvents in parallel (the in-order merge runs on the calling thread): 0 = the
    // TILESCOPE_LOAD_THREADS environment variable when set, else one per core, except that a trace under
    // 2 MiB of JSON is then read in one streaming pass; 1 = one streaming pass.
    unsigned threads = 0;
    // With threads left at 0: at most this many (0: no limit), e.g. a core's share when several files
    // load side by side; it caps TILESCOPE_LOAD_THREADS too. A small trace still streams.
    unsigned maxThreads = 0;
    // Bytes of traceEvents per parallel chunk; 0 = 256 KiB (tests force tiny chunks).
    size_t chunkBytes = 0;
};

// The parse threads a load of a trace of 2 MiB of JSON or more uses with these options.
unsigned loadThreads(const LoadOptions& options);

// Loads a Chrome trace: Kineto JSON (PyTorch 1.8 to 2.11), the legacy autograd export, or any Chrome
// Trace Event Format file, gzip or plain. Throws io::TraceFileError on bad input.
//
// From a path (or a source `open` can make again) traceEvents is parsed on loadThreads() threads (one
// streaming pass for a trace under 2 MiB of JSON when the count is left to the loader) in
// chunks merged in file order; the Trace is the same as one streaming pass makes. Input the parallel pass
// does not take as it is (a syntax or structure error anywhere, truncation, a traceEvents element that is
// not an object) makes it start again in one streaming pass, which reports the error or keeps a partial
// load exactly as before: bad input costs a second pass, good input never does. A forward-only source
// is always read in one streaming pass.
std::unique_ptr<Trace> loadTrace(const std::string& path, const LoadOptions& options = {});
std::unique_ptr<Trace> loadTrace(const std::function<std::unique_ptr<io::ByteSource>()>& open, const LoadOptions& options = {});
std::unique_ptr<Trace> loadTrace(io::ByteSource& source, const LoadOptions& options = {});

} // namespace tilescope::trace
