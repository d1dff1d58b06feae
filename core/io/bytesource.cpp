// SPDX-License-Identifier: MIT
#include "io/bytesource.h"

#include "io/tracefileerror.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#if TILESCOPE_HAVE_ZLIB
#include <zlib.h>
#endif

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

private:
    int m_fd;
    uint64_t m_size;
    uint64_t m_consumed = 0;
};

#if TILESCOPE_HAVE_ZLIB
// Inflates gzip (including concatenated members) on the fly; offsets in errors are compressed-file bytes.
class GzipSource final : public ByteSource
{
public:
    explicit GzipSource(std::unique_ptr<ByteSource> file)
        : ByteSource(file->name())
        , m_file(std::move(file))
        , m_input(1 << 18)
    {
        std::memset(&m_stream, 0, sizeof(m_stream));
        if (inflateInit2(&m_stream, 16 + MAX_WBITS) != Z_OK)
            throw TraceFileError(name(), std::nullopt, "cannot initialise gzip decompression");
    }
    ~GzipSource() override { inflateEnd(&m_stream); }

    size_t read(char* buffer, size_t capacity) override
    {
        if (m_truncated)
            throw TraceFileError(name(), m_file->consumedInputBytes(), "truncated gzip stream (the file ends inside compressed data)");
        m_stream.next_out = reinterpret_cast<Bytef*>(buffer);
        m_stream.avail_out = static_cast<uInt>(std::min<size_t>(capacity, 1u << 30));
        while (m_stream.avail_out > 0) {
            if (m_stream.avail_in == 0) {
                const size_t got = m_file->read(m_input.data(), m_input.size());
                if (got == 0) {
                    if (m_inMember) {
                        // Hand over what did inflate first: a partial load keeps the events in it.
                        m_truncated = true;
                        if (m_stream.avail_out == capacity)
                            return read(buffer, capacity);
                    }
                    break;
                }
                m_stream.next_in = reinterpret_cast<Bytef*>(m_input.data());
                m_stream.avail_in = static_cast<uInt>(got);
            }
            m_inMember = true;
            const int rc = inflate(&m_stream, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                m_inMember = false;
                if (inflateReset(&m_stream) != Z_OK)
                    throw TraceFileError(name(), m_file->consumedInputBytes(), "gzip reset failed");
                continue;
            }
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                throw TraceFileError(name(), m_file->consumedInputBytes() - m_stream.avail_in,
                                     std::string("corrupt gzip data: ") + (m_stream.msg ? m_stream.msg : "inflate failed"));
        }
        return capacity - m_stream.avail_out;
    }
    uint64_t consumedInputBytes() const override { return m_file->consumedInputBytes(); }
    uint64_t totalInputBytes() const override { return m_file->totalInputBytes(); }
    bool isCompressed() const override { return true; }

private:
    std::unique_ptr<ByteSource> m_file;
    std::vector<char> m_input;
    z_stream m_stream;
    bool m_inMember = false;
    bool m_truncated = false; // the file ended inside a member: the next read throws
};
#endif

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

private:
    std::unique_ptr<ByteSource> m_inner;
    std::string m_prefix;
    size_t m_pos = 0;
};

} // namespace

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
#if TILESCOPE_HAVE_ZLIB
    return std::make_unique<GzipSource>(std::move(source));
#else
    throw TraceFileError(path, 0, "gzip-compressed trace, but this build has no zlib support");
#endif
}

std::unique_ptr<ByteSource> memorySource(std::string_view data, std::string name)
{
    auto source = std::make_unique<MemorySource>(data, name);
    const bool gzip = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
    if (!gzip)
        return source;
#if TILESCOPE_HAVE_ZLIB
    return std::make_unique<GzipSource>(std::move(source));
#else
    throw TraceFileError(name, 0, "gzip-compressed trace, but this build has no zlib support");
#endif
}

} // namespace tilescope::io
