// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace tilescope::io {

// Every problem with an input file: names the file, the byte offset where known, and what was wrong.
class TraceFileError : public std::runtime_error
{
public:
    TraceFileError(std::string path, std::optional<uint64_t> offset, std::string problem);

    const std::string& path() const { return m_path; }
    std::optional<uint64_t> offset() const { return m_offset; }
    const std::string& problem() const { return m_problem; }
    // Complete events before the problem (a truncated or damaged trace): a partial load keeps them.
    uint64_t completeEventsBefore() const { return m_completeEventsBefore; }
    void setCompleteEventsBefore(uint64_t events) { m_completeEventsBefore = events; }
    // Not a trace but memory data read elsewhere (an allocator snapshot, a memory timeline export).
    bool isMemoryData() const { return m_memoryData; }
    void setMemoryData(bool memoryData) { m_memoryData = memoryData; }
    // Readable, but no trace at all (no traceEvents array; a pickle; memory data): a folder's other files
    // (meta.json beside trace.json) are passed over for this, where a damaged trace is an error.
    bool isNotATrace() const { return m_notATrace || m_memoryData; }
    void setNotATrace(bool notATrace) { m_notATrace = notATrace; }

private:
    std::string m_path;
    std::optional<uint64_t> m_offset;
    std::string m_problem;
    uint64_t m_completeEventsBefore = 0;
    bool m_memoryData = false;
    bool m_notATrace = false;
};

// Thrown when a load is cancelled from another thread.
class LoadCancelled : public std::runtime_error
{
public:
    LoadCancelled()
        : std::runtime_error("cancelled")
    { }
};

} // namespace tilescope::io
