// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::io {

class ByteSource;

enum class JsonToken : uint8_t { ObjectBegin, ObjectEnd, ArrayBegin, ArrayEnd, Key, String, Number, True, False, Null, End };

const char* jsonTokenName(JsonToken token);

// A strict, streaming pull tokenizer for RFC 8259 JSON over a ByteSource.
//
// Contract: next() returns the tokens of the document in order (object keys as Key); the document is
// validated as it is read (structure, string escapes, UTF-8, number grammar), so a malformed or truncated
// file throws TraceFileError with the byte offset of the problem. Memory is one buffer of a few hundred
// KB (it grows only for a single token, or a capture, larger than that) - never a DOM.
// text() stays valid until the next call of next().
class JsonReader
{
public:
    explicit JsonReader(ByteSource& source, size_t bufferSize = 1 << 18);

    JsonToken next();
    // Key/String: the decoded text; Number: the raw number text, exactly as written.
    std::string_view text() const { return m_text; }
    // Byte offset (in the decoded stream) of the first byte of the last token.
    uint64_t tokenOffset() const { return m_base + m_tokenStart; }
    uint64_t bytesRead() const { return m_base + m_pos; }
    size_t depth() const { return m_stack.size(); }
    const std::string& sourceName() const;

    // Up to `count` bytes from the current position, not consumed (fewer at the end of the input): a
    // look at the first bytes before reading, to name a file that is not JSON.
    std::string_view lookahead(size_t count);
    // Skips the rest of a value whose first token was just returned by next().
    void skipValue(JsonToken first);
    // Raw text capture: call beginCapture() right after next() returned a value's first token, read the
    // value to its end, then endCapture() returns the raw bytes of that value (valid until next()).
    void beginCapture();
    std::string_view endCapture();

    // Parallel loading (trace/traceloader.cpp) hands the elements of a large array to other readers.
    // Right after the array's ArrayBegin, takeUnread() returns the bytes already read from the source but
    // not tokenized (valid until the next call) and drops them: the caller reads the rest of the array
    // from the source itself. resumeAfterArray() then goes on after the array's ']' with `rest`, the bytes
    // read past it, which start at stream offset `restOffset`; the source is read on from where it is then
    // (the caller may have moved it: an end of input met before is forgotten).
    std::string_view takeUnread();
    void resumeAfterArray(std::string_view rest, uint64_t restOffset);
    // A reader over some elements of an array without its brackets (`{...}, {...}`): starts as after the
    // '[' of an array at nesting `depth` (counted as the whole document's reader counts it, for the same
    // nesting limit). atEndOfInput() skips whitespace and says whether the input is exhausted.
    void beginElementRun(size_t depth);
    bool atEndOfInput();
    // Parses bytes[0, size) (all the input there is) in place instead of copying them in from the source;
    // releaseBuffer() hands the buffer back for reuse, at the size it had.
    void adoptBuffer(std::vector<char>&& bytes, size_t size);
    std::vector<char> releaseBuffer() { return std::move(m_buffer); }

    [[noreturn]] void fail(const std::string& problem) const;
    [[noreturn]] void failAt(uint64_t offset, const std::string& problem) const;

private:
    // The error paths of the hot functions, out of line: building a message inline gave next() a large stack
    // frame and register saves on every call.
    [[noreturn, gnu::cold, gnu::noinline]] void failText(const char* problem, const char* detail = "") const;
    [[noreturn, gnu::cold, gnu::noinline]] void failFound(const char* before, char c, const char* after = "") const;

    enum class State : uint8_t { Value, ValueOrArrayEnd, KeyOrObjectEnd, Key, CommaOrEnd, Done };

    bool fill(); // makes more bytes available; false at end of input
    bool ensure(size_t count);
    void skipWhitespace();
    // Most tokens follow no whitespace or exactly one space: those cases without a call.
    void skipWhitespaceBeforeToken()
    {
        if (m_pos + 1 < m_end && static_cast<unsigned char>(m_buffer[m_pos]) > ' ')
            return;
        if (m_pos + 1 < m_end && m_buffer[m_pos] == ' ' && static_cast<unsigned char>(m_buffer[m_pos + 1]) > ' ')
            ++m_pos;
        else
            skipWhitespace();
    }
    JsonToken readValue();
    JsonToken readKey();
    void readString();
    JsonToken readNumber();
    JsonToken readLiteral(std::string_view word, JsonToken token);
    void decodeEscapes(size_t begin, size_t end);
    void afterValue() { m_state = m_stack.empty() ? State::Done : State::CommaOrEnd; }

    ByteSource& m_source;
    std::vector<char> m_buffer;
    size_t m_pos = 0;    // next unread byte
    size_t m_end = 0;    // end of valid bytes
    uint64_t m_base = 0; // stream offset of m_buffer[0]
    size_t m_tokenStart = 0;
    size_t m_captureStart = SIZE_MAX;
    bool m_eof = false;
    State m_state = State::Value;
    std::vector<uint8_t> m_stack; // 1 = object
    std::string_view m_text;
    std::string m_scratch;
};

} // namespace tilescope::io
