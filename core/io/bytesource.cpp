// SPDX-License-Identifier: MIT
#include "io/bytesource.h"

#include "io/gzipsource.h"
#include "io/tracefileerror.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace tilescope::io {

namespace {

class FileSource final : public ByteSource
{
public:
    FileSource(const std::string& path, int fd, uint64_t size)
        : ByteSource(path)
        , m_fd(fd)
        , m_size(size)
    { }
    ~FileSource() override { ::close(m_fd); }

    size_t read(char* buffer, size_t capacity) override
    {
        for (;;) {
            const ssize_t got = ::read(m_fd, buffer, capacity);
            if (got >= 0) {
                m_consumed += static_cast<uint64_t>(got);
                return static_cast<size_t>(got);
            }
            if (errno != EINTR)
                throw TraceFileError(name(), m_consumed, std::string("read failed: ") + std::strerror(errno));
        }
    }
    uint64_t consumedInputBytes() const override { return m_consumed; }
    uint64_t totalInputBytes() const override { return m_size; }
    bool canReadAt() const override { return true; }
    size_t readAt(uint64_t offset, char* buffer, size_t capacity) const override
    {
        size_t done = 0;
        while (done < capacity) {
            const ssize_t got = ::pread(m_fd, buffer + done, capacity - done, static_cast<off_t>(offset + done));
            if (got == 0)
                break;
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                throw TraceFileError(name(), offset + done, std::string("read failed: ") + std::strerror(errno));
            }
            done += static_cast<size_t>(got);
        }
        return done;
    }
    void seek(uint64_t offset) override
    {
        if (::lseek(m_fd, static_cast<off_t>(offset), SEEK_SET) < 0)
            throw TraceFileError(name(), offset, std::string("seek failed: ") + std::strerror(errno));
        m_consumed = offset;
    }

private:
    int m_fd;
    uint64_t m_size;
    uint64_t m_consumed = 0;
};

class MemorySource final : public ByteSource
{
public:
    MemorySource(std::string_view data, std::string name)
        : ByteSource(std::move(name))
        , m_data(data)
    { }
    size_t read(char* buffer, size_t capacity) override
    {
        const size_t n = std::min(capacity, m_data.size() - m_pos);
        std::memcpy(buffer, m_data.data() + m_pos, n);
        m_pos += n;
        return n;
    }
    uint64_t consumedInputBytes() const override { return m_pos; }
    uint64_t totalInputBytes() const override { return m_data.size(); }
    bool canReadAt() const override { return true; }
    size_t readAt(uint64_t offset, char* buffer, size_t capacity) const override
    {
        if (offset >= m_data.size())
            return 0;
        const size_t n = std::min<uint64_t>(capacity, m_data.size() - offset);
        std::memcpy(buffer, m_data.data() + offset, n);
        return n;
    }
    void seek(uint64_t offset) override { m_pos = static_cast<size_t>(std::min<uint64_t>(offset, m_data.size())); }

private:
    std::string_view m_data;
    size_t m_pos = 0;
};

// Puts back the bytes read while sniffing the magic number.
class PrefixedSource final : public ByteSource
{
public:
    PrefixedSource(std::unique_ptr<ByteSource> inner, std::string prefix)
        : ByteSource(inner->name())
        , m_inner(std::move(inner))
        , m_prefix(std::move(prefix))
    { }
    size_t read(char* buffer, size_t capacity) override
    {
        if (m_pos < m_prefix.size()) {
            const size_t n = std::min(capacity, m_prefix.size() - m_pos);
            std::memcpy(buffer, m_prefix.data() + m_pos, n);
            m_pos += n;
            return n;
        }
        return m_inner->read(buffer, capacity);
    }
    uint64_t consumedInputBytes() const override { return m_inner->consumedInputBytes(); }
    uint64_t totalInputBytes() const override { return m_inner->totalInputBytes(); }
    // The prefix is the inner source's own first bytes (read from it): offsets are the inner source's.
    bool canReadAt() const override { return m_inner->canReadAt(); }
    size_t readAt(uint64_t offset, char* buffer, size_t capacity) const override { return m_inner->readAt(offset, buffer, capacity); }
    void seek(uint64_t offset) override
    {
        m_pos = static_cast<size_t>(std::min<uint64_t>(offset, m_prefix.size()));
        m_inner->seek(std::max<uint64_t>(offset, m_prefix.size()));
    }

private:
    std::unique_ptr<ByteSource> m_inner;
    std::string m_prefix;
    size_t m_pos = 0;
};

} // namespace

size_t ByteSource::readAt(uint64_t, char*, size_t) const { throw std::logic_error(name() + ": this source cannot be read at an offset"); }

void ByteSource::seek(uint64_t) { throw std::logic_error(name() + ": this source cannot seek"); }

std::unique_ptr<ByteSource> openTraceFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw TraceFileError(path, std::nullopt, std::string("cannot open: ") + std::strerror(errno));
    struct stat info
    { };
    if (::fstat(fd, &info) != 0) {
        const int err = errno;
        ::close(fd);
        throw TraceFileError(path, std::nullopt, std::string("cannot stat: ") + std::strerror(err));
    }
    if (S_ISDIR(info.st_mode)) {
        ::close(fd);
        throw TraceFileError(path, std::nullopt, "is a directory, not a trace file");
    }
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        throw TraceFileError(path, std::nullopt, "is not a regular file");
    }
    if (info.st_size == 0) {
        ::close(fd);
        throw TraceFileError(path, 0, "empty file (expected a JSON trace)");
    }
    auto file = std::make_unique<FileSource>(path, fd, static_cast<uint64_t>(info.st_size));
    char magic[2] = {0, 0};
    size_t got = 0;
    while (got < 2) {
        const size_t n = file->read(magic + got, 2 - got);
        if (n == 0)
            break;
        got += n;
    }
    const bool gzip = got == 2 && static_cast<unsigned char>(magic[0]) == 0x1f && static_cast<unsigned char>(magic[1]) == 0x8b;
    auto source = std::make_unique<PrefixedSource>(std::move(file), std::string(magic, got));
    if (!gzip)
        return source;
    return gzipSource(std::move(source));
}

std::unique_ptr<ByteSource> memorySource(std::string_view data, std::string name)
{
    auto source = std::make_unique<MemorySource>(data, name);
    const bool gzip = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
    if (!gzip)
        return source;
    return gzipSource(std::move(source));
}

} // namespace tilescope::io
