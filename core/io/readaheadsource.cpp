// SPDX-License-Identifier: MIT
#include "io/readaheadsource.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace tilescope::io {

namespace {

class ReadAheadSource final : public ByteSource
{
public:
    ReadAheadSource(std::unique_ptr<ByteSource> inner, size_t blockBytes, size_t blocks)
        : ByteSource(inner->name())
        , m_inner(std::move(inner))
        , m_total(m_inner->totalInputBytes())
        , m_compressed(m_inner->isCompressed())
        , m_blockBytes(std::max<size_t>(blockBytes, 1))
        , m_blocks(std::max<size_t>(blocks, 1))
        , m_consumed(m_inner->consumedInputBytes())
    { }

    ~ReadAheadSource() override { stop(); }

    // Starts the thread; on failure (no thread to be had) hands the inner source back, unread.
    std::unique_ptr<ByteSource> start(std::unique_ptr<ReadAheadSource> self)
    {
        try {
            m_thread = std::thread([this] { readAhead(); });
        } catch (...) { // std::system_error, or std::bad_alloc for the thread's state
            return std::move(m_inner);
        }
        return self;
    }

    size_t read(char* buffer, size_t capacity) override
    {
        while (m_offset == m_current.size) {
            std::unique_lock lock(m_mutex);
            if (!m_current.bytes.empty())
                m_free.push_back(std::move(m_current.bytes));
            m_current = {};
            m_offset = 0;
            m_space.notify_one();
            m_filled.wait(lock, [this] { return !m_ready.empty() || m_finished; });
            if (m_ready.empty()) {
                if (m_error)
                    std::rethrow_exception(m_error);
                return 0;
            }
            m_current = std::move(m_ready.front());
            m_ready.pop_front();
            m_consumed.store(m_current.consumed, std::memory_order_relaxed);
        }
        const size_t n = std::min(capacity, m_current.size - m_offset);
        std::memcpy(buffer, m_current.bytes.data() + m_offset, n);
        m_offset += n;
        return n;
    }

    uint64_t consumedInputBytes() const override { return m_consumed.load(std::memory_order_relaxed); }
    uint64_t totalInputBytes() const override { return m_total; }
    bool isCompressed() const override { return m_compressed; }

private:
    struct Block
    {
        std::vector<char> bytes;
        size_t size = 0;
        uint64_t consumed = 0; // the inner source's input consumed once this block was read
    };

    void readAhead()
    {
        for (;;) {
            std::vector<char> bytes;
            {
                std::unique_lock lock(m_mutex);
                m_space.wait(lock, [this] { return m_stop || m_ready.size() < m_blocks; });
                if (m_stop)
                    return;
                if (!m_free.empty()) {
                    bytes = std::move(m_free.back());
                    m_free.pop_back();
                }
            }
            Block block;
            std::exception_ptr error;
            try {
                bytes.resize(m_blockBytes);
                block.size = m_inner->read(bytes.data(), bytes.size());
                block.consumed = m_inner->consumedInputBytes();
            } catch (...) {
                error = std::current_exception();
            }
            block.bytes = std::move(bytes);
            std::lock_guard lock(m_mutex);
            if (!error && block.size > 0) {
                try {
                    m_ready.push_back(std::move(block));
                    m_filled.notify_one();
                    continue;
                } catch (...) { // no memory for the queue: the reader sees the error after what it has
                    error = std::current_exception();
                }
            }
            m_error = error; // null at the end of the input
            m_finished = true;
            m_filled.notify_one();
            return;
        }
    }

    void stop()
    {
        if (!m_thread.joinable())
            return;
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_space.notify_one();
        m_thread.join();
    }

    std::unique_ptr<ByteSource> m_inner; // the read-ahead thread's alone once it runs
    const uint64_t m_total;
    const bool m_compressed;
    const size_t m_blockBytes, m_blocks;

    std::mutex m_mutex;
    std::condition_variable m_filled, m_space;
    std::deque<Block> m_ready;             // read, not yet handed out (at most m_blocks)
    std::vector<std::vector<char>> m_free; // handed-out blocks' buffers, for reuse
    bool m_finished = false;               // the inner source ended or threw
    std::exception_ptr m_error;            // what it threw, after every block in m_ready
    bool m_stop = false;

    Block m_current; // the reader's
    size_t m_offset = 0;
    std::atomic<uint64_t> m_consumed;
    std::thread m_thread;
};

} // namespace

std::unique_ptr<ByteSource> readAheadSource(std::unique_ptr<ByteSource> inner, size_t blockBytes, size_t blocks)
{
    auto source = std::make_unique<ReadAheadSource>(std::move(inner), blockBytes, blocks);
    ReadAheadSource& self = *source;
    return self.start(std::move(source));
}

} // namespace tilescope::io
