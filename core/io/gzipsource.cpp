// SPDX-License-Identifier: MIT
#include "io/gzipsource.h"

#include "io/tracefileerror.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if TILESCOPE_HAVE_ISAL
#include <dlfcn.h>
#include <isa-l/igzip_lib.h>
#endif
#if TILESCOPE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace tilescope::io {

namespace {

// What one inflate call ended with.
enum class Step {
    Inflating,
    MemberEnd, // a gzip member's trailer was read and checked; more members may follow
    Corrupt,
};

// An inflate call writes at most this much: both libraries count output in 32 bits.
constexpr size_t kMaxStepOutput = size_t(1) << 30;

#if TILESCOPE_HAVE_ZLIB
class ZlibEngine
{
public:
    explicit ZlibEngine(const std::string& name)
    {
        if (inflateInit2(&m_stream, 16 + MAX_WBITS) != Z_OK)
            throw TraceFileError(name, std::nullopt, "cannot initialise gzip decompression");
    }
    ~ZlibEngine() { inflateEnd(&m_stream); }
    ZlibEngine(const ZlibEngine&) = delete;
    ZlibEngine& operator=(const ZlibEngine&) = delete;

    void setInput(char* data, size_t size)
    {
        m_stream.next_in = reinterpret_cast<Bytef*>(data);
        m_stream.avail_in = static_cast<uInt>(size);
    }
    size_t inputLeft() const { return m_stream.avail_in; }
    // Inflates into [out, out + room) and returns how much it wrote in `produced`.
    Step inflateInto(char* out, size_t room, size_t& produced)
    {
        m_stream.next_out = reinterpret_cast<Bytef*>(out);
        m_stream.avail_out = static_cast<uInt>(std::min(room, kMaxStepOutput));
        const uInt before = m_stream.avail_out;
        const int rc = inflate(&m_stream, Z_NO_FLUSH);
        produced = before - m_stream.avail_out;
        if (rc == Z_STREAM_END)
            return Step::MemberEnd;
        return rc == Z_OK || rc == Z_BUF_ERROR ? Step::Inflating : Step::Corrupt;
    }
    // Starts on the next member; the unread input stays.
    bool nextMember() { return inflateReset(&m_stream) == Z_OK; }
    std::string problem() const { return m_stream.msg ? m_stream.msg : "inflate failed"; }

private:
    z_stream m_stream{};
};
#endif

#if TILESCOPE_HAVE_ISAL
// ISA-L is opened when a gzip trace is first read, not linked: loading it (its relocated tables) costs every
// start of the CLI about 0.1-0.2 ms, 3-4% of a small plain trace's whole run, and most traces are plain JSON.
// Null when the library cannot be opened: zlib inflates then.
struct IsalFunctions
{
    void (*init)(inflate_state*);
    void (*reset)(inflate_state*);
    int (*inflate)(inflate_state*);
};

// dlerror()'s words when the library did not open, for the error that says ISA-L cannot be used.
std::string isalOpenError;

const IsalFunctions* isal()
{
    static const IsalFunctions* const functions = []() -> const IsalFunctions* {
        void* library = dlopen(TILESCOPE_ISAL_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char* why = dlerror();
            isalOpenError = why ? why : "dlopen failed";
            return nullptr;
        }
        static IsalFunctions found;
        found.init = reinterpret_cast<void (*)(inflate_state*)>(dlsym(library, "isal_inflate_init"));
        found.reset = reinterpret_cast<void (*)(inflate_state*)>(dlsym(library, "isal_inflate_reset"));
        found.inflate = reinterpret_cast<int (*)(inflate_state*)>(dlsym(library, "isal_inflate"));
        if (!found.init || !found.reset || !found.inflate) {
            isalOpenError = "it lacks isal_inflate_init, isal_inflate_reset or isal_inflate";
            return nullptr;
        }
        return &found;
    }();
    return functions;
}

class IsalEngine
{
public:
    explicit IsalEngine(const std::string& /*name*/)
        : m_isal(*isal())
    {
        m_isal.init(&m_state);
        m_state.crc_flag = ISAL_GZIP; // parse the gzip header, check CRC-32 and length at the trailer
    }

    void setInput(char* data, size_t size)
    {
        m_state.next_in = reinterpret_cast<uint8_t*>(data);
        m_state.avail_in = static_cast<uint32_t>(size);
    }
    size_t inputLeft() const { return m_state.avail_in; }
    Step inflateInto(char* out, size_t room, size_t& produced)
    {
        m_state.next_out = reinterpret_cast<uint8_t*>(out);
        m_state.avail_out = static_cast<uint32_t>(std::min(room, kMaxStepOutput));
        const uint32_t before = m_state.avail_out;
        m_rc = m_isal.inflate(&m_state);
        produced = before - m_state.avail_out;
        if (m_rc != ISAL_DECOMP_OK)
            return Step::Corrupt;
        return m_state.block_state == ISAL_BLOCK_FINISH ? Step::MemberEnd : Step::Inflating;
    }
    // ISA-L reads a trailer exactly, so the next member starts at next_in. Reset leaves the input and the
    // gzip flag as they are in 2.30; they are set again all the same, as the documentation does not say so.
    bool nextMember()
    {
        uint8_t* const next = m_state.next_in;
        const uint32_t left = m_state.avail_in;
        m_isal.reset(&m_state);
        m_state.next_in = next;
        m_state.avail_in = left;
        m_state.crc_flag = ISAL_GZIP;
        return true;
    }
    // In zlib's words where zlib has them, so a message reads the same whichever library inflated.
    std::string problem() const
    {
        switch (m_rc) {
        case ISAL_INVALID_BLOCK: return "invalid block type or lengths";
        case ISAL_INVALID_SYMBOL: return "invalid literal/length or distance code";
        case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
        case ISAL_INVALID_WRAPPER: return "incorrect header check";
        case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
        case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
        default: return "inflate failed (ISA-L code " + std::to_string(m_rc) + ")";
        }
    }

private:
    const IsalFunctions& m_isal;
    inflate_state m_state{};
    int m_rc = ISAL_DECOMP_OK;
};
#endif

// The gzip rules, whichever library inflates: members one after another, a file that ends inside a member
// is truncated (after handing over what did inflate), corrupt bytes are an error at their offset.
// A member starts with at least this much of the file in one piece, when the file has it (see fillInput):
// far more than any real header, and a small copy for files of many small members (bgzip writes 64 KiB).
constexpr size_t kMemberStartBytes = size_t(64) << 10;

template <class Engine> class GzipSource final : public ByteSource
{
public:
    explicit GzipSource(std::unique_ptr<ByteSource> file)
        : ByteSource(file->name())
        , m_file(std::move(file))
        , m_input(1 << 18)
        , m_engine(name())
    { }

    size_t read(char* buffer, size_t capacity) override
    {
        if (m_truncated)
            throw TraceFileError(name(), m_file->consumedInputBytes(), "truncated gzip stream (the file ends inside compressed data)");
        size_t filled = 0;
        while (filled < capacity) {
            if (!m_fileEnded && (m_engine.inputLeft() == 0 || (!m_inMember && m_engine.inputLeft() < kMemberStartBytes)))
                fillInput();
            const bool noInput = m_fileEnded && m_engine.inputLeft() == 0;
            if (noInput && !m_inMember)
                break; // the end, after a whole member
            m_inMember = true;
            size_t produced = 0;
            const Step step = m_engine.inflateInto(buffer + filled, capacity - filled, produced);
            filled += produced;
            if (step == Step::MemberEnd) {
                m_inMember = false;
                if (!m_engine.nextMember())
                    throw TraceFileError(name(), m_file->consumedInputBytes(), "gzip reset failed");
            } else if (step == Step::Corrupt) {
                throw TraceFileError(name(), m_file->consumedInputBytes() - m_engine.inputLeft(),
                                     "corrupt gzip data: " + m_engine.problem());
            } else if (noInput && produced == 0) {
                // The file ended inside a member and the inflater has nothing left (ISA-L holds some output
                // back until asked again). Hand over what did inflate first: a partial load keeps its events.
                m_truncated = true;
                if (filled == 0)
                    return read(buffer, capacity);
                break;
            }
        }
        return filled;
    }
    uint64_t consumedInputBytes() const override { return m_file->consumedInputBytes(); }
    uint64_t totalInputBytes() const override { return m_file->totalInputBytes(); }
    bool isCompressed() const override { return true; }

private:
    // Keeps the unread input and reads the file after it: one read inside a member; at a member's start with
    // less than kMemberStartBytes left, until the buffer is full, so that any header shorter than that is in
    // one piece (ISA-L 2.30 fails the header CRC, FHCRC, of a header split between two inputs).
    void fillInput()
    {
        const size_t left = m_engine.inputLeft();
        if (left > 0)
            std::memmove(m_input.data(), m_input.data() + m_inputSize - left, left);
        m_inputSize = left;
        do {
            const size_t got = m_file->read(m_input.data() + m_inputSize, m_input.size() - m_inputSize);
            m_fileEnded = got == 0;
            m_inputSize += got;
        } while (!m_inMember && !m_fileEnded && m_inputSize < m_input.size());
        m_engine.setInput(m_input.data(), m_inputSize);
    }

    std::unique_ptr<ByteSource> m_file;
    std::vector<char> m_input;
    size_t m_inputSize = 0; // of m_input, as last handed to the engine
    Engine m_engine;
    bool m_inMember = false;
    bool m_fileEnded = false;
    bool m_truncated = false; // the file ended inside a member: the next read throws
};

// Why `inflater` cannot be used, for the error.
std::string unusable(Inflater inflater)
{
#if TILESCOPE_HAVE_ISAL
    if (inflater == Inflater::Isal)
        return TILESCOPE_ISAL_SONAME " cannot be used: " + isalOpenError;
#endif
    return std::string(inflater == Inflater::Isal ? "ISA-L" : "zlib") + " is not built in";
}

bool hasIsal()
{
#if TILESCOPE_HAVE_ISAL
    return isal() != nullptr;
#else
    return false;
#endif
}

} // namespace

bool hasInflater(Inflater inflater)
{
    switch (inflater) {
    case Inflater::Isal: return hasIsal();
    case Inflater::Zlib: return TILESCOPE_HAVE_ZLIB != 0;
    case Inflater::Best: return hasIsal() || TILESCOPE_HAVE_ZLIB != 0;
    }
    return false;
}

std::unique_ptr<ByteSource> gzipSource(std::unique_ptr<ByteSource> compressed, Inflater inflater)
{
    if (inflater == Inflater::Best)
        inflater = hasIsal() ? Inflater::Isal : Inflater::Zlib;
#if TILESCOPE_HAVE_ISAL
    if (inflater == Inflater::Isal && hasIsal())
        return std::make_unique<GzipSource<IsalEngine>>(std::move(compressed));
#endif
#if TILESCOPE_HAVE_ZLIB
    if (inflater == Inflater::Zlib)
        return std::make_unique<GzipSource<ZlibEngine>>(std::move(compressed));
#endif
    throw TraceFileError(compressed->name(), 0, "gzip-compressed trace, but " + unusable(inflater));
}

} // namespace tilescope::io
