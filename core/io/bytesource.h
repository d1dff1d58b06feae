// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tilescope::io {

// A forward-only stream of bytes: a plain file, a gzip file (detected by its magic bytes) or memory.
class ByteSource
{
public:
    virtual ~ByteSource() = default;
    // Reads up to `capacity` bytes; returns 0 only at the end. Throws TraceFileError on failure.
    virtual size_t read(char* buffer, size_t capacity) = 0;
    // Bytes of the underlying file consumed so far and its total size, for progress.
    virtual uint64_t consumedInputBytes() const = 0;
    virtual uint64_t totalInputBytes() const = 0;
    virtual bool isCompressed() const { return false; }
    // Positional reads, for a source whose bytes lie where they can be read again (a plain file, memory;
    // not a gzip stream): readAt() reads up to `capacity` bytes at stream offset `offset` without moving
    // the stream, from any thread (the parallel loader's workers read their own chunks), fewer only at the
    // end; seek() moves the stream to `offset`. Both throw TraceFileError on failure, and std::logic_error
    // where canReadAt() is false.
    virtual bool canReadAt() const { return false; }
    virtual size_t readAt(uint64_t offset, char* buffer, size_t capacity) const;
    virtual void seek(uint64_t offset);
    const std::string& name() const { return m_name; }

protected:
    explicit ByteSource(std::string name)
        : m_name(std::move(name))
    { }

private:
    std::string m_name;
};

// Opens a trace file, transparently decompressing gzip. Throws TraceFileError naming the file when it
// cannot be opened, is a directory, or is empty.
std::unique_ptr<ByteSource> openTraceFile(const std::string& path);

// Serves bytes from memory (tests, the fuzzer, the bundled sample), decompressing gzip. The data must
// outlive the source.
std::unique_ptr<ByteSource> memorySource(std::string_view data, std::string name = "<memory>");

} // namespace tilescope::io
