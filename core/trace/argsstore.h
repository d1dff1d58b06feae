// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilescope::trace {

// Every event's raw args JSON, kept out of memory: appended while loading to an unlinked temporary
// file (the page cache holds it, not the process) and read back on demand with pread, as Perfetto keeps
// args in a table of their own. Only the (offset, length) of each entry stays in RAM. When no temporary
// file can be made the text stays in memory instead, so args are never lost.
class ArgsStore
{
public:
    ArgsStore() = default;
    ~ArgsStore();
    ArgsStore(ArgsStore&& other) noexcept;
    ArgsStore& operator=(ArgsStore&& other) noexcept;
    ArgsStore(const ArgsStore&) = delete;
    ArgsStore& operator=(const ArgsStore&) = delete;

    // Stores one entry and returns its index (loading thread only).
    uint32_t append(std::string_view raw);
    // Writes out what is still buffered; called once loading is done.
    void finish();
    // The text of entry `index`; empty when it cannot be read back. Safe from any thread after finish().
    std::string read(uint32_t index) const;

    size_t size() const { return m_spans.size(); }
    bool empty() const { return m_spans.empty(); }
    // Whether the text lives in a temporary file (false: in memory, as a fallback).
    bool onDisk() const { return m_fd >= 0; }

private:
    void flush();
    void reset() noexcept;

    int m_fd = -1;
    bool m_fileFailed = false;
    uint64_t m_written = 0;                             // bytes in the file; m_buffer follows them
    std::string m_buffer;                               // not yet written
    std::vector<std::pair<uint64_t, uint32_t>> m_spans; // offset and length of each entry
};

} // namespace tilescope::trace
