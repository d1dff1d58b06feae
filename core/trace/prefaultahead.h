// SPDX-License-Identifier: MIT
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace tilescope::trace {

// Makes the pages of a growing array resident ahead of the thread that fills it, on a thread of its own
// (Linux's MADV_POPULATE_WRITE, which faults a range in as writes would, without touching its bytes): the
// filling thread no longer stops at each new page for the kernel to find and zero one. In the parallel
// load that thread merges every chunk in order, and a third of its time went to those faults. Where the
// kernel lacks the call (before 5.14) it does nothing. The thread starts once the array is filled past
// `startFrom` bytes: a small array (key averages of a short range) is not worth one.
class PrefaultAhead
{
public:
    // What the loader and key averages start from: under 2 MiB a thread costs more than the faults it saves.
    static constexpr size_t kWorthAThreadFrom = size_t(2) << 20;

    explicit PrefaultAhead(size_t aheadBytes, size_t startFrom = kWorthAThreadFrom);
    ~PrefaultAhead(); // stops and joins
    PrefaultAhead(const PrefaultAhead&) = delete;
    PrefaultAhead& operator=(const PrefaultAhead&) = delete;

    // The array lies at [begin, begin + capacity) and is filled to `filled` bytes: keeps the `aheadBytes`
    // past its end resident. A cheap call where nothing is to be done; the array may move between calls.
    void filledTo(const void* begin, size_t filled, size_t capacity);
    template <class T> void filledTo(const std::vector<T>& array)
    {
        filledTo(array.data(), array.size() * sizeof(T), array.capacity() * sizeof(T));
    }
    // Stops, and gives back the whole pages it made resident past the array's filled end, which the array,
    // here as it is now, holds nothing in: no part of a peak. Only once the filling is done (not while an
    // error unwinds it: the array may have moved, its old place freed and reused, since it was last told).
    void finish(const void* begin, size_t filled);
    template <class T> void finish(const std::vector<T>& array) { finish(array.data(), array.size() * sizeof(T)); }
    // Bytes made resident so far (for tests).
    size_t populatedBytes() const;

private:
    void run();
    void stop();

    const size_t m_ahead;
    const size_t m_startFrom;
    bool m_started = false; // the thread was started, or could not be (the filler's own)
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    const char* m_begin = nullptr; // the array as last told
    size_t m_filled = 0, m_capacity = 0;
    const char* m_populatedTo = nullptr; // in the array as last told: resident up to here
    size_t m_populated = 0;
    bool m_stop = false;
    bool m_unsupported = false;
    std::thread m_thread;
};

} // namespace tilescope::trace
