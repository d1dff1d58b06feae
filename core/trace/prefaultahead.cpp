// SPDX-License-Identifier: MIT
#include "trace/prefaultahead.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace tilescope::trace {

namespace {

uintptr_t pageSize()
{
    static const auto size = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    return size;
}

} // namespace

PrefaultAhead::PrefaultAhead(size_t aheadBytes, size_t startFrom)
    : m_ahead(aheadBytes)
    , m_startFrom(startFrom)
{ }

PrefaultAhead::~PrefaultAhead() { stop(); }

void PrefaultAhead::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_one();
    if (m_thread.joinable())
        m_thread.join();
}

void PrefaultAhead::finish(const void* begin, size_t filled)
{
    stop();
    // Only the array as last told: were it another (it moved since), the pages made resident were another's,
    // perhaps freed and handed out again. The array holds nothing past its filled end (a page written there
    // later is a fresh zero page, as it would have been).
    if (begin != m_begin)
        return;
    // Whole pages only, both ends: the pages the array shares with its neighbours keep their bytes.
    const auto from = (reinterpret_cast<uintptr_t>(m_begin + filled) + pageSize() - 1) & ~(pageSize() - 1);
    const auto to = reinterpret_cast<uintptr_t>(m_populatedTo) & ~(pageSize() - 1);
    if (to > from)
        ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

void PrefaultAhead::filledTo(const void* begin, size_t filled, size_t capacity)
{
    if (!m_started) {
        if (filled < m_startFrom)
            return;
        m_started = true;
        try {
            m_thread = std::thread([this] { run(); });
        } catch (const std::system_error&) { // no thread: the pages fault in as they are written
        }
    }
    const auto* const array = static_cast<const char*>(begin);
    {
        std::lock_guard lock(m_mutex);
        if (m_unsupported || !m_thread.joinable())
            return;
        if (array != m_begin) { // a new array, or the old one moved: nothing of it is known to be resident
            m_begin = array;
            m_populatedTo = array;
        }
        m_filled = filled;
        m_capacity = capacity;
        // Woken only when less than half the distance ahead is left: one call of the kernel per half.
        if (m_populatedTo >= m_begin + std::min(capacity, filled + m_ahead / 2))
            return;
    }
    m_wake.notify_one();
}

size_t PrefaultAhead::populatedBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_populated;
}

void PrefaultAhead::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || (m_begin && m_populatedTo < m_begin + std::min(m_capacity, m_filled + m_ahead / 2)); });
        if (m_stop)
            return;
        const char* const begin = m_begin;
        const char* const from = std::max(m_populatedTo, begin + m_filled);
        const char* const to = begin + std::min(m_capacity, m_filled + m_ahead);
        lock.unlock();
        // Whole pages from the one `from` is in: a page shared with the array's neighbours is theirs too,
        // and faulting it in changes none of its bytes.
        const uintptr_t start = reinterpret_cast<uintptr_t>(from) & ~(pageSize() - 1);
        const int result = ::madvise(reinterpret_cast<void*>(start), reinterpret_cast<uintptr_t>(to) - start, MADV_POPULATE_WRITE);
        const int error = errno;
        lock.lock();
        if (result != 0 && (error == EINVAL || error == ENOSYS)) { // a kernel before 5.14
            m_unsupported = true;
            return;
        }
        if (m_begin == begin) { // else the array moved meanwhile: its new place is populated next
            m_populatedTo = std::max(m_populatedTo, to);
            m_populated += static_cast<size_t>(to - from);
        }
    }
}

} // namespace tilescope::trace
