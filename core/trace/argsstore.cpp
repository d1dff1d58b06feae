// SPDX-License-Identifier: MIT
#include "trace/argsstore.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace tilescope::trace {

namespace {

constexpr size_t kFlushBytes = size_t(1) << 20;

// An unlinked file in TMPDIR (else /tmp): it disappears with the process, however it ends.
int openUnlinkedTemporary()
{
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec)
        dir = "/tmp";
    std::string name = (dir / "tilescope-args-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd >= 0)
        ::unlink(name.c_str());
    return fd;
}

bool writeAll(int fd, const char* data, size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        size -= size_t(n);
    }
    return true;
}

} // namespace

ArgsStore::~ArgsStore() { reset(); }

ArgsStore::ArgsStore(ArgsStore&& other) noexcept { *this = std::move(other); }

ArgsStore& ArgsStore::operator=(ArgsStore&& other) noexcept
{
    if (this != &other) {
        reset();
        m_fd = std::exchange(other.m_fd, -1);
        m_fileFailed = other.m_fileFailed;
        m_written = std::exchange(other.m_written, 0);
        m_buffer = std::move(other.m_buffer);
        m_spans = std::move(other.m_spans);
    }
    return *this;
}

void ArgsStore::reset() noexcept
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

uint32_t ArgsStore::append(std::string_view raw)
{
    const auto index = static_cast<uint32_t>(m_spans.size());
    m_spans.emplace_back(m_written + m_buffer.size(), static_cast<uint32_t>(raw.size()));
    m_buffer.append(raw);
    if (m_buffer.size() >= kFlushBytes)
        flush();
    return index;
}

void ArgsStore::finish()
{
    flush();
    m_buffer.shrink_to_fit();
}

void ArgsStore::flush()
{
    if (m_buffer.empty() || m_fileFailed)
        return;
    if (m_fd < 0) {
        m_fd = openUnlinkedTemporary();
        if (m_fd < 0) {
            m_fileFailed = true; // keep the text in memory
            return;
        }
    }
    if (!writeAll(m_fd, m_buffer.data(), m_buffer.size())) {
        // A full disk: what is not written stays in memory from here on.
        m_fileFailed = true;
        return;
    }
    m_written += m_buffer.size();
    m_buffer.clear();
}

std::string ArgsStore::read(uint32_t index) const
{
    if (index >= m_spans.size())
        return {};
    const auto [offset, length] = m_spans[index];
    std::string text(length, '\0');
    if (offset >= m_written) {
        text.assign(m_buffer, size_t(offset - m_written), length);
        return text;
    }
    size_t done = 0;
    while (done < length) {
        const ssize_t n = ::pread(m_fd, text.data() + done, length - done, off_t(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return {};
        done += size_t(n);
    }
    return text;
}

} // namespace tilescope::trace
