// SPDX-License-Identifier: MIT
// io::gzipSource inflates the same bytes with ISA-L and with zlib, whatever the read and input sizes:
// concatenated members, optional header fields; a stream cut anywhere hands over a prefix of the data, then
// says it is truncated; corrupt bytes, a wrong CRC or length and trailing junk are errors naming the file.
#include "gziptext.h"
#include "io/bytesource.h"
#include "io/gzipsource.h"
#include "io/tracefileerror.h"

#include <QtTest>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace tilescope;

namespace {

// Serves `data` in reads of 1..`step` bytes (varying), as a file or a pipe might.
class ChoppedSource final : public io::ByteSource
{
public:
    ChoppedSource(std::string data, size_t step)
        : ByteSource("chopped.json.gz")
        , m_data(std::move(data))
        , m_step(step)
    { }
    size_t read(char* buffer, size_t capacity) override
    {
        const size_t n = std::min({capacity, m_data.size() - m_pos, 1 + (m_reads++ * 7919) % m_step});
        std::memcpy(buffer, m_data.data() + m_pos, n);
        m_pos += n;
        return n;
    }
    uint64_t consumedInputBytes() const override { return m_pos; }
    uint64_t totalInputBytes() const override { return m_data.size(); }

private:
    std::string m_data;
    size_t m_pos = 0, m_step, m_reads = 0;
};

// Every byte of the stream until its end, or until it throws (then `error` says what and `out` holds what
// was handed over before).
struct Outcome
{
    std::string out;
    std::string error;
};

Outcome inflateAll(io::Inflater inflater, const std::string& gz, size_t inputStep, size_t readSize)
{
    Outcome result;
    auto source = io::gzipSource(std::make_unique<ChoppedSource>(gz, inputStep), inflater);
    std::vector<char> buffer(readSize);
    try {
        while (const size_t n = source->read(buffer.data(), buffer.size()))
            result.out.append(buffer.data(), n);
    } catch (const io::TraceFileError& e) {
        result.error = e.what();
    }
    return result;
}

// A trace-like text of about `bytes` bytes: repetitive enough to compress 10-20x, as real traces do.
std::string traceText(size_t bytes, unsigned seed)
{
    std::mt19937 rng(seed);
    std::string text = "{\"traceEvents\": [";
    for (int i = 0; text.size() < bytes; ++i)
        text += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + std::to_string(rng() % 50) + "\", \"pid\": 0, \"tid\": 7, \"ts\": "
            + std::to_string(1000 + i * 3) + "." + std::to_string(rng() % 1000) + ", \"dur\": " + std::to_string(rng() % 90) + "},\n";
    return text + "{}]}";
}

// `data` as one gzip member with every optional header field (name, comment, extra, header CRC).
std::string gzippedWithHeader(const std::string& data)
{
    char name[] = "trace.json";
    char comment[] = "recorded by a test";
    unsigned char extra[] = {'T', 'S', 4, 0, 1, 2, 3, 4};
    gz_header header{};
    header.name = reinterpret_cast<Bytef*>(name);
    header.comment = reinterpret_cast<Bytef*>(comment);
    header.extra = extra;
    header.extra_len = sizeof(extra);
    header.hcrc = 1;
    header.os = 3;
    return testutil::gzipped(data, &header);
}

const io::Inflater kInflaters[] = {io::Inflater::Isal, io::Inflater::Zlib};
const char* inflaterName(io::Inflater inflater) { return inflater == io::Inflater::Isal ? "ISA-L" : "zlib"; }

} // namespace

class TestGzipSource : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // CI builds both; each is tested where built, and one that is missing must say so.
        for (const io::Inflater inflater : kInflaters) {
            if (io::hasInflater(inflater))
                continue;
            QVERIFY_THROWS_EXCEPTION(io::TraceFileError,
                                     io::gzipSource(std::make_unique<ChoppedSource>(testutil::gzipped("{}"), 4), inflater));
        }
        QVERIFY(io::hasInflater(io::Inflater::Best));
        if (TILESCOPE_EXPECT_ISAL) {
            QVERIFY(io::hasInflater(io::Inflater::Isal));
        } else {
            // The error says why: the library, or the build.
            try {
                io::gzipSource(std::make_unique<ChoppedSource>(testutil::gzipped("{}"), 4), io::Inflater::Isal);
                QFAIL("no error without ISA-L");
            } catch (const io::TraceFileError& e) {
                QVERIFY2(std::string(e.what()).find("gzip-compressed trace, but ") != std::string::npos, e.what());
            }
        }
    }

    void sameBytesWhateverTheSizes()
    {
        std::mt19937 rng(7);
        std::string noise(300000, '\0');
        for (char& c : noise)
            c = static_cast<char>(rng()); // stored blocks: deflate cannot compress it
        const std::vector<std::string> texts = {"", "{}", traceText(3 << 20, 1), noise};
        for (const io::Inflater inflater : kInflaters) {
            if (!io::hasInflater(inflater))
                continue;
            for (const std::string& text : texts) {
                const std::string gz = testutil::gzipped(text);
                QVERIFY(!gz.empty());
                for (const size_t inputStep : {size_t(1), size_t(13), size_t(1) << 20})
                    for (const size_t readSize : {size_t(1), size_t(4093), size_t(1) << 18}) {
                        if (text.size() > 100000 && (inputStep == 1 || readSize == 1))
                            continue; // byte by byte over megabytes: slow, and the small texts cover it
                        const Outcome got = inflateAll(inflater, gz, inputStep, readSize);
                        QVERIFY2(got.error.empty(), got.error.c_str());
                        QVERIFY2(got.out == text, inflaterName(inflater));
                    }
            }
        }
    }

    void concatenatedMembersAndHeaderFields()
    {
        const std::string a = traceText(200000, 2), b = traceText(70000, 3);
        // Members as `cat a.gz b.gz` makes them, an empty one among them, and one with every header field.
        const std::string gz = testutil::gzipped(a) + testutil::gzipped("") + gzippedWithHeader(b) + testutil::gzipped("x");
        for (const io::Inflater inflater : kInflaters) {
            if (!io::hasInflater(inflater))
                continue;
            for (const size_t inputStep : {size_t(1), size_t(9), size_t(4096), size_t(1) << 20}) {
                const Outcome got = inflateAll(inflater, gz, inputStep, 65536);
                QVERIFY2(got.error.empty(), (inflaterName(inflater) + (": " + got.error)).c_str());
                QVERIFY2(got.out == a + b + "x", inflaterName(inflater));
            }
        }
    }

    void cutAnywhere()
    {
        const std::string text = traceText(40000, 4);
        const std::string gz = testutil::gzipped(text);
        for (const io::Inflater inflater : kInflaters) {
            if (!io::hasInflater(inflater))
                continue;
            for (size_t cut = 1; cut < gz.size(); cut += (cut < 40 || cut > gz.size() - 40) ? 1 : 97) {
                const Outcome got = inflateAll(inflater, gz.substr(0, cut), 4096, 8192);
                QVERIFY2(got.error.find("chopped.json.gz") != std::string::npos, got.error.c_str());
                QVERIFY2(got.error.find("truncated gzip stream") != std::string::npos, got.error.c_str());
                QVERIFY2(text.compare(0, got.out.size(), got.out) == 0, "handed over bytes that are not the data's");
            }
            // Cut in the trailer, every byte of the data is handed over before the error.
            const Outcome trailerCut = inflateAll(inflater, gz.substr(0, gz.size() - 4), 4096, 8192);
            QVERIFY2(trailerCut.out.size() == text.size(), inflaterName(inflater));
            QVERIFY(!trailerCut.error.empty());
        }
    }

    void corruptBytesAreErrors()
    {
        const std::string text = traceText(100000, 5);
        const std::string gz = testutil::gzipped(text);
        std::string junk = gz;
        for (size_t i = 12; i < junk.size() - 8; ++i)
            junk[i] = static_cast<char>(junk[i] ^ 0x5a);
        std::string badCrc = gz, badLength = gz;
        badCrc[gz.size() - 6] ^= 1;
        badLength[gz.size() - 2] ^= 1;
        const std::string trailing = gz + "not a gzip member at all";
        for (const io::Inflater inflater : kInflaters) {
            if (!io::hasInflater(inflater))
                continue;
            for (const std::string& damaged : {junk, badCrc, badLength, trailing}) {
                const Outcome got = inflateAll(inflater, damaged, 65536, 65536);
                QVERIFY2(got.error.find("chopped.json.gz") != std::string::npos, got.error.c_str());
                QVERIFY2(got.error.find("corrupt gzip data: ") != std::string::npos, got.error.c_str());
            }
            // Junk after a whole member is an error at its offset.
            const Outcome got = inflateAll(inflater, trailing, 65536, 65536);
            QVERIFY2(text.compare(0, got.out.size(), got.out) == 0, "handed over bytes that are not the data's");
            // At the junk, or (ISA-L reads the fixed header as one) within the 10 bytes it takes for a header.
            const size_t at = got.error.find("byte ");
            QVERIFY2(at != std::string::npos, got.error.c_str());
            const unsigned long long offset = std::stoull(got.error.substr(at + 5));
            QVERIFY2(offset >= gz.size() && offset <= gz.size() + 10, got.error.c_str());
            QVERIFY2(got.error.find("incorrect header check") != std::string::npos, got.error.c_str());
        }
    }

    void laterMembersStartInOnePiece()
    {
        // A member that ends deep in the input buffer leaves the next header at its end: the next member's
        // header (every optional field, FHCRC included) must still reach ISA-L in one piece.
        std::mt19937 rng(3);
        std::string noise(400000, '\0');
        for (char& c : noise)
            c = static_cast<char>(rng());
        const std::string b = traceText(5000, 8);
        const std::string gz = testutil::gzipped(noise) + gzippedWithHeader(b) + gzippedWithHeader(b);
        for (const io::Inflater inflater : kInflaters) {
            if (!io::hasInflater(inflater))
                continue;
            for (const size_t inputStep : {size_t(1), size_t(4), size_t(13), size_t(79)}) {
                const Outcome got = inflateAll(inflater, gz, inputStep, 65536);
                QVERIFY2(got.error.empty(), (inflaterName(inflater) + (": " + got.error)).c_str());
                QVERIFY(got.out == noise + b + b);
            }
        }
    }

    void damageGivesTheSameOutcomeEitherWay()
    {
        if (!io::hasInflater(io::Inflater::Isal) || !io::hasInflater(io::Inflater::Zlib))
            QSKIP("needs both inflaters");
        const std::string text = traceText(60000, 6);
        const std::string gz = testutil::gzipped(text);
        std::mt19937 rng(11);
        for (int trial = 0; trial < 200; ++trial) {
            std::string damaged = gz;
            damaged[4 + rng() % (gz.size() - 4)] ^= static_cast<char>(1 + rng() % 255);
            const Outcome isal = inflateAll(io::Inflater::Isal, damaged, 4096, 8192);
            const Outcome zlib = inflateAll(io::Inflater::Zlib, damaged, 4096, 8192);
            // Either both read it whole (a changed byte both ignore, as in the header's time stamp) or both fail.
            // From byte 4 on: zlib refuses the reserved flag bits of byte 3, ISA-L ignores them.
            QCOMPARE(isal.error.empty(), zlib.error.empty());
            if (isal.error.empty())
                QCOMPARE(isal.out, zlib.out);
            else
                QVERIFY2(isal.error.find("chopped.json.gz") != std::string::npos, isal.error.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestGzipSource)
#include "tst_gzipsource.moc"
