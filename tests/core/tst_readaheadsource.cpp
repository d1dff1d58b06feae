// SPDX-License-Identifier: MIT
// io::readAheadSource hands out exactly the inner source's bytes, in order, whatever the block and read
// sizes; ends where it ends; throws what it threw only after every byte read before it; and can be
// destroyed at any point without hanging.
#include "io/bytesource.h"
#include "io/readaheadsource.h"
#include "io/tracefileerror.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>
#include <string>

using namespace tilescope;

namespace {

// Serves `data` in reads of 1..`step` bytes (varying), then throws a TraceFileError when `failAtEnd`.
class ScriptedSource final : public io::ByteSource
{
public:
    ScriptedSource(std::string data, size_t step, bool failAtEnd, std::atomic<int>* alive = nullptr, std::atomic<size_t>* served = nullptr)
        : ByteSource("scripted.json.gz")
        , m_data(std::move(data))
        , m_step(step)
        , m_failAtEnd(failAtEnd)
        , m_alive(alive)
        , m_served(served)
    {
        if (m_alive)
            ++*m_alive;
    }
    ~ScriptedSource() override
    {
        if (m_alive)
            --*m_alive;
    }
    size_t read(char* buffer, size_t capacity) override
    {
        if (m_pos == m_data.size()) {
            if (m_failAtEnd)
                throw io::TraceFileError(name(), m_pos, "corrupt gzip data: invalid distance too far back");
            return 0;
        }
        const size_t n = std::min({capacity, m_data.size() - m_pos, 1 + (m_reads++ * 7) % m_step});
        std::memcpy(buffer, m_data.data() + m_pos, n);
        m_pos += n;
        if (m_served)
            *m_served = m_pos;
        return n;
    }
    uint64_t consumedInputBytes() const override { return m_pos; }
    uint64_t totalInputBytes() const override { return m_data.size(); }
    bool isCompressed() const override { return true; }

private:
    std::string m_data;
    size_t m_pos = 0, m_step, m_reads = 0;
    bool m_failAtEnd;
    std::atomic<int>* m_alive;
    std::atomic<size_t>* m_served; // bytes served so far, for another thread to look at
};

std::string pattern(size_t size)
{
    std::string s(size, '\0');
    for (size_t i = 0; i < size; ++i)
        s[i] = static_cast<char>('a' + (i * 31 + i / 97) % 26);
    return s;
}

// Everything `source` gives, in reads of up to `capacity`; the error text after it, if any.
std::pair<std::string, std::string> drain(io::ByteSource& source, size_t capacity)
{
    std::string out, error;
    std::string buffer(capacity, '\0');
    try {
        for (;;) {
            const size_t got = source.read(buffer.data(), buffer.size());
            if (got == 0)
                break;
            if (got > capacity) {
                error = "read more than asked";
                break;
            }
            out.append(buffer.data(), got);
        }
    } catch (const io::TraceFileError& e) {
        error = e.what();
    }
    return {out, error};
}

} // namespace

class TestReadAheadSource : public QObject
{
    Q_OBJECT

private slots:
    void sameBytesAndEnd()
    {
        for (const size_t size : {size_t(0), size_t(1), size_t(1000), size_t(100000)})
            for (const size_t block : {size_t(1), size_t(13), size_t(4096)})
                for (const size_t capacity : {size_t(1), size_t(7), size_t(5000)}) {
                    const std::string data = pattern(size);
                    auto source = io::readAheadSource(std::make_unique<ScriptedSource>(data, 300, false), block, 3);
                    QCOMPARE(source->name(), std::string("scripted.json.gz"));
                    QVERIFY(source->isCompressed());
                    QCOMPARE(source->totalInputBytes(), uint64_t(size));
                    const auto [out, error] = drain(*source, capacity);
                    QVERIFY2(out == data, ("size " + std::to_string(size) + " block " + std::to_string(block)).c_str());
                    QVERIFY(error.empty());
                    char c;
                    QCOMPARE(source->read(&c, 1), size_t(0)); // the end stays the end
                    QCOMPARE(source->consumedInputBytes(), uint64_t(size));
                }
    }

    // A corrupt stream: every byte before the damage first (a partial load keeps them), then its error,
    // again on every later read.
    void errorAfterEveryByteBeforeIt()
    {
        const std::string data = pattern(50000);
        for (const size_t block : {size_t(1), size_t(999), size_t(1 << 16)}) {
            auto source = io::readAheadSource(std::make_unique<ScriptedSource>(data, 5000, true), block, 2);
            const auto [out, error] = drain(*source, 4096);
            QVERIFY(out == data);
            QVERIFY2(error.find("scripted.json.gz") != std::string::npos && error.find("invalid distance") != std::string::npos,
                     error.c_str());
            char c;
            QVERIFY_THROWS_EXCEPTION(io::TraceFileError, source->read(&c, 1));
        }
    }

    // The reader runs at most `blocks` blocks ahead of what was handed out, plus the one it is filling
    // (memory stays bounded however slow the consumer), and progress is that of the bytes handed out.
    void boundedAheadAndProgress()
    {
        std::atomic<size_t> served = 0;
        constexpr size_t block = 1000, blocks = 3;
        auto source = io::readAheadSource(std::make_unique<ScriptedSource>(pattern(100000), 5000, false, nullptr, &served), block, blocks);
        // Two blocks handed out (a read returns at most the rest of one block).
        std::string buffer(100000, '\0');
        size_t handedOut = 0;
        for (int i = 0; i < 2; ++i)
            handedOut += source->read(buffer.data(), buffer.size());
        QVERIFY(handedOut > 0);
        for (int waited = 0; served.load() <= handedOut && waited < 5000; waited += 10)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        QVERIFY(served.load() > handedOut); // it does read ahead
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        QVERIFY2(served.load() <= handedOut + (blocks + 1) * block, std::to_string(served.load()).c_str());
        // Progress is that of the bytes handed out (each block remembers the input consumed with it).
        QCOMPARE(source->consumedInputBytes(), uint64_t(handedOut));
    }

    // Stopped at any point, with the reader thread blocked on a full queue or still reading: no hang,
    // and the inner source is destroyed with it.
    void destroyedMidStream()
    {
        std::atomic<int> alive = 0;
        for (const size_t readFirst : {size_t(0), size_t(1), size_t(10), size_t(1000)}) {
            auto source = io::readAheadSource(std::make_unique<ScriptedSource>(pattern(200000), 100, false, &alive), 64, 2);
            QCOMPARE(alive.load(), 1);
            std::string buffer(100, '\0');
            for (size_t i = 0; i < readFirst; ++i)
                QVERIFY(source->read(buffer.data(), buffer.size()) > 0);
            source.reset();
            QCOMPARE(alive.load(), 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestReadAheadSource)
#include "tst_readaheadsource.moc"
