// SPDX-License-Identifier: MIT
#include "io/jsonreader.h"

#include <algorithm>
#include <array>

#include "io/bytesource.h"
#include "io/jsonchars.h"
#include "io/tracefileerror.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilescope::io {

namespace {

constexpr size_t kMaxDepth = 1000;

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string printable(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return std::string("'") + c + "'";
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", u);
    return hex;
}

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// Length of a valid UTF-8 sequence starting with lead byte `b` (0 if the lead is invalid).
inline int utf8Length(unsigned char b)
{
    if (b >= 0xc2 && b <= 0xdf)
        return 2;
    if (b >= 0xe0 && b <= 0xef)
        return 3;
    if (b >= 0xf0 && b <= 0xf4)
        return 4;
    return 0;
}

bool validUtf8Sequence(const unsigned char* s, int len)
{
    for (int i = 1; i < len; ++i)
        if ((s[i] & 0xc0) != 0x80)
            return false;
    if (len == 3) {
        if (s[0] == 0xe0 && s[1] < 0xa0)
            return false; // overlong
        if (s[0] == 0xed && s[1] >= 0xa0)
            return false; // surrogate
    } else if (len == 4) {
        if (s[0] == 0xf0 && s[1] < 0x90)
            return false;
        if (s[0] == 0xf4 && s[1] >= 0x90)
            return false;
    }
    return true;
}

// What the byte after a number's grammar says: it ends the number (whitespace, ',', ']', '}'), it would
// have continued it (a malformed number), or it has no place there. One look-up instead of eleven tests.
enum class AfterNumber : uint8_t { Ends, WouldContinue, Other };
constexpr std::array<AfterNumber, 256> kAfterNumber = [] {
    std::array<AfterNumber, 256> table{};
    table.fill(AfterNumber::Other);
    for (const char c : {' ', '\n', '\r', '\t', ',', ']', '}'})
        table[static_cast<unsigned char>(c)] = AfterNumber::Ends;
    for (const char c : {'.', 'e', 'E', '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'})
        table[static_cast<unsigned char>(c)] = AfterNumber::WouldContinue;
    return table;
}();

// SWAR test: does the 8-byte word hold '"', '\\', a control byte or a non-ASCII byte?
inline bool wordNeedsAttention(uint64_t v)
{
    constexpr uint64_t ones = 0x0101010101010101ull;
    constexpr uint64_t highs = 0x8080808080808080ull;
    const uint64_t quote = v ^ (ones * '"');
    const uint64_t slash = v ^ (ones * '\\');
    const uint64_t hasQuote = (quote - ones) & ~quote;
    const uint64_t hasSlash = (slash - ones) & ~slash;
    const uint64_t hasControl = (v - ones * 0x20) & ~v;
    return ((hasQuote | hasSlash | hasControl) & highs) | (v & highs);
}

#if defined(__SSE2__)
// Offset of the first byte of p[0..16) that readString must look at ('"', '\\', a control byte or a
// non-ASCII byte), 16 if none: one signed compare finds both the control bytes (0x00-0x1f) and the
// non-ASCII ones (0x80-0xff, negative as signed bytes).
inline unsigned firstStringSpecial16(const char* p)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                         _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(special));
    return mask ? static_cast<unsigned>(__builtin_ctz(mask)) : 16u;
}

// Offset of the first byte of p[0..16) that is not JSON whitespace (' ', '\n', '\r', '\t'), 16 if none.
inline unsigned firstNonWhitespace16(const char* p)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i space = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                       _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    const auto other = ~static_cast<unsigned>(_mm_movemask_epi8(space)) & 0xffffu;
    return other ? static_cast<unsigned>(__builtin_ctz(other)) : 16u;
}
#endif

} // namespace

const char* jsonTokenName(JsonToken token)
{
    switch (token) {
    case JsonToken::ObjectBegin: return "'{'";
    case JsonToken::ObjectEnd: return "'}'";
    case JsonToken::ArrayBegin: return "'['";
    case JsonToken::ArrayEnd: return "']'";
    case JsonToken::Key: return "an object key";
    case JsonToken::String: return "a string";
    case JsonToken::Number: return "a number";
    case JsonToken::True:
    case JsonToken::False: return "a boolean";
    case JsonToken::Null: return "null";
    case JsonToken::End: return "the end of the file";
    }
    return "?";
}

JsonReader::JsonReader(ByteSource& source, size_t bufferSize)
    : m_source(source)
    , m_buffer(std::max<size_t>(bufferSize, 64))
{ }

const std::string& JsonReader::sourceName() const { return m_source.name(); }

void JsonReader::fail(const std::string& problem) const { failAt(m_base + m_pos, problem); }

void JsonReader::failAt(uint64_t offset, const std::string& problem) const { throw TraceFileError(m_source.name(), offset, problem); }

void JsonReader::failText(const char* problem, const char* detail) const { fail(std::string(problem) + detail); }

void JsonReader::failFound(const char* before, char c, const char* after) const { fail(before + printable(c) + after); }

bool JsonReader::fill()
{
    if (m_eof)
        return false;
    // Keep the current token (and an active capture) contiguous; drop everything before it.
    size_t keep = std::min(m_tokenStart, m_pos);
    if (m_captureStart != SIZE_MAX)
        keep = std::min(keep, m_captureStart);
    if (keep > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + keep, m_end - keep);
        m_end -= keep;
        m_pos -= keep;
        m_tokenStart -= keep;
        if (m_captureStart != SIZE_MAX)
            m_captureStart -= keep;
        m_base += keep;
    }
    if (m_end == m_buffer.size())
        m_buffer.resize(m_buffer.size() * 2);
    const size_t got = m_source.read(m_buffer.data() + m_end, m_buffer.size() - m_end);
    if (got == 0) {
        m_eof = true;
        return false;
    }
    m_end += got;
    return true;
}

bool JsonReader::ensure(size_t count)
{
    while (m_end - m_pos < count)
        if (!fill())
            return false;
    return true;
}

std::string_view JsonReader::lookahead(size_t count)
{
    ensure(count);
    return {m_buffer.data() + m_pos, std::min(count, m_end - m_pos)};
}

void JsonReader::skipWhitespace()
{
    for (;;) {
#if defined(__SSE2__)
        // Pretty-printed traces put a newline and a run of indentation between tokens: 16 bytes at a time.
        while (m_pos + 16 <= m_end) {
            const unsigned skip = firstNonWhitespace16(m_buffer.data() + m_pos);
            m_pos += skip;
            if (skip < 16)
                return;
        }
#endif
        while (m_pos < m_end && isJsonWhitespace(m_buffer[m_pos]))
            ++m_pos;
        if (m_pos < m_end)
            return;
        m_tokenStart = m_pos;
        if (!fill())
            return;
    }
}

JsonToken JsonReader::next()
{
    skipWhitespaceBeforeToken();
    m_tokenStart = m_pos;
    const bool atEnd = m_pos >= m_end;
    const char c = atEnd ? '\0' : m_buffer[m_pos];
    switch (m_state) {
    case State::Done:
        if (!atEnd)
            failFound("unexpected ", c, " after the end of the JSON document");
        return JsonToken::End;
    case State::Value: return readValue();
    case State::ValueOrArrayEnd:
        if (!atEnd && c == ']') {
            ++m_pos;
            m_stack.pop_back();
            afterValue();
            return JsonToken::ArrayEnd;
        }
        return readValue();
    case State::KeyOrObjectEnd:
        if (!atEnd && c == '}') {
            ++m_pos;
            m_stack.pop_back();
            afterValue();
            return JsonToken::ObjectEnd;
        }
        return readKey();
    case State::Key: return readKey();
    case State::CommaOrEnd: {
        const bool inObject = m_stack.back();
        if (atEnd)
            failText(inObject ? "unexpected end of file: the JSON document is truncated (inside an object)"
                              : "unexpected end of file: the JSON document is truncated (inside an array)");
        if (c == ',') {
            ++m_pos;
            if (inObject) {
                skipWhitespaceBeforeToken();
                m_tokenStart = m_pos;
                return readKey();
            }
            m_state = State::Value;
            skipWhitespaceBeforeToken();
            m_tokenStart = m_pos;
            return readValue();
        }
        if (c == (inObject ? '}' : ']')) {
            ++m_pos;
            m_stack.pop_back();
            afterValue();
            return inObject ? JsonToken::ObjectEnd : JsonToken::ArrayEnd;
        }
        failFound(inObject ? "expected ',' or '}', found " : "expected ',' or ']', found ", c);
    }
    }
    return JsonToken::End;
}

JsonToken JsonReader::readKey()
{
    if (m_pos >= m_end)
        failText("unexpected end of file: the JSON document is truncated (expected an object key)");
    if (m_buffer[m_pos] != '"')
        failFound("expected an object key in double quotes, found ", m_buffer[m_pos]);
    readString();
    if (m_pos < m_end && m_buffer[m_pos] == ':') { // the common case: no refill, the text stays put
        ++m_pos;
        m_state = State::Value;
        return JsonToken::Key;
    }
    // Looking for ':' may refill and move the buffer; keep the key in the scratch string.
    if (m_text.data() != m_scratch.data())
        m_scratch.assign(m_text);
    m_text = m_scratch;
    skipWhitespace();
    if (m_pos >= m_end)
        failText("unexpected end of file: the JSON document is truncated (expected ':')");
    if (m_buffer[m_pos] != ':')
        failFound("expected ':' after an object key, found ", m_buffer[m_pos]);
    ++m_pos;
    m_state = State::Value;
    return JsonToken::Key;
}

JsonToken JsonReader::readValue()
{
    if (m_pos >= m_end)
        failText(m_stack.empty() && m_base == 0 && m_pos == 0
                     ? "empty document (expected a JSON value)"
                     : "unexpected end of file: the JSON document is truncated (expected a value)");
    const char c = m_buffer[m_pos];
    switch (c) {
    case '{':
    case '[':
        if (m_stack.size() >= kMaxDepth)
            failText("nesting deeper than 1000 levels");
        ++m_pos;
        m_stack.push_back(c == '{' ? 1 : 0);
        m_state = c == '{' ? State::KeyOrObjectEnd : State::ValueOrArrayEnd;
        return c == '{' ? JsonToken::ObjectBegin : JsonToken::ArrayBegin;
    case '"':
        readString();
        afterValue();
        return JsonToken::String;
    case 't': return readLiteral("true", JsonToken::True);
    case 'f': return readLiteral("false", JsonToken::False);
    case 'n': return readLiteral("null", JsonToken::Null);
    default:
        if (c == '-' || isDigit(c))
            return readNumber();
        if (c == 'N' || c == 'I')
            failFound("expected a JSON value, found ", c, " (NaN and Infinity are not valid JSON)");
        failFound("expected a JSON value, found ", c);
    }
}

JsonToken JsonReader::readLiteral(std::string_view word, JsonToken token)
{
    if (!ensure(word.size()))
        fail("unexpected end of file: the JSON document is truncated");
    if (std::memcmp(m_buffer.data() + m_pos, word.data(), word.size()) != 0)
        fail("expected a JSON value, found " + printable(m_buffer[m_pos]));
    m_pos += word.size();
    if ((m_pos < m_end || ensure(1)) && m_pos < m_end) {
        const char c = m_buffer[m_pos];
        if (!(isJsonWhitespace(c) || c == ',' || c == ']' || c == '}'))
            fail("unexpected " + printable(c) + " after '" + std::string(word) + "'");
    }
    afterValue();
    m_text = word;
    return token;
}

JsonToken JsonReader::readNumber()
{
    // One pass that validates the grammar -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?; restarted after a refill
    // when the number reaches the end of the buffer.
    for (;;) {
        const char* const begin = m_buffer.data() + m_pos;
        const char* const end = m_buffer.data() + m_end;
        const char* p = begin;
        const char* problem = nullptr;
        auto digits = [&] {
            const char* first = p;
            while (end - p >= 8) { // timestamps and ids run to 16 digits: 8 at a time
                uint64_t word;
                std::memcpy(&word, p, 8);
                const unsigned run = leadingDigits8(word);
                p += run;
                if (run < 8)
                    return p > first;
            }
            while (p < end && isDigit(*p))
                ++p;
            return p > first;
        };
        if (p < end && *p == '-')
            ++p;
        if (p < end && *p == '0') {
            ++p;
            if (p < end && isDigit(*p))
                problem = "leading zero";
        } else if (!digits()) {
            problem = "expected a digit";
        }
        if (!problem && p < end && *p == '.') {
            ++p;
            if (!digits())
                problem = "expected a digit after '.'";
        }
        if (!problem && p < end && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < end && (*p == '+' || *p == '-'))
                ++p;
            if (!digits())
                problem = "expected a digit in the exponent";
        }
        if (p >= end && !m_eof) { // the number may go on in the next chunk
            fill();
            continue;
        }
        if (problem)
            failText("invalid number: ", problem);
        if (p < end) {
            const char c = *p;
            if (const AfterNumber after = kAfterNumber[static_cast<unsigned char>(c)]; after != AfterNumber::Ends) {
                if (after == AfterNumber::WouldContinue)
                    failText("invalid number: unexpected character in number");
                failFound("unexpected ", c, " after a number");
            }
        }
        m_text = std::string_view(begin, static_cast<size_t>(p - begin));
        m_pos += static_cast<size_t>(p - begin);
        afterValue();
        return JsonToken::Number;
    }
}

void JsonReader::readString()
{
    // m_pos is at the opening quote.
    size_t i = m_pos + 1;
    bool escaped = false;
    for (;;) {
        bool landed = false; // on a byte that needs a look
#if defined(__SSE2__)
        // 16 bytes at a time, landing on the first byte that needs a look.
        while (i + 16 <= m_end) {
            const unsigned skip = firstStringSpecial16(m_buffer.data() + i);
            i += skip;
            if (skip < 16) {
                landed = true;
                break;
            }
        }
#endif
        // 8 at a time near the buffer's end (without SSE2, everywhere); not again where the 16 landed: the
        // test of a word that starts with its quote was 6% of a worker's instructions.
        while (!landed && i + 8 <= m_end) {
            uint64_t word;
            std::memcpy(&word, m_buffer.data() + i, 8);
            if (wordNeedsAttention(word))
                break;
            i += 8;
        }
        bool needMore = false;
        for (;;) {
            if (i >= m_end) {
                needMore = true;
                break;
            }
            const auto c = static_cast<unsigned char>(m_buffer[i]);
            if (c == '"') {
                const size_t begin = m_pos + 1;
                if (escaped) {
                    decodeEscapes(begin, i);
                    m_text = m_scratch;
                } else {
                    m_text = std::string_view(m_buffer.data() + begin, i - begin);
                }
                m_pos = i + 1;
                return;
            }
            if (c == '\\') {
                if (i + 1 >= m_end) {
                    needMore = true;
                    break;
                }
                escaped = true;
                i += 2;
                continue;
            }
            if (c < 0x20)
                failAt(m_base + i, "control character " + printable(static_cast<char>(c)) + " inside a string (it must be escaped)");
            if (c >= 0x80) {
                const int len = utf8Length(c);
                if (len == 0)
                    failAt(m_base + i, "invalid UTF-8 in a string (byte " + printable(static_cast<char>(c)) + ")");
                if (i + static_cast<size_t>(len) > m_end) {
                    needMore = true;
                    break;
                }
                if (!validUtf8Sequence(reinterpret_cast<const unsigned char*>(m_buffer.data() + i), len))
                    failAt(m_base + i, "invalid UTF-8 in a string");
                i += static_cast<size_t>(len);
                continue;
            }
            ++i;
            if (i + 8 <= m_end)
                break; // back to the fast path
        }
        if (!needMore)
            continue;
        const size_t before = m_pos;
        const bool more = fill();
        i -= before - m_pos;
        if (!more)
            failAt(m_base + m_tokenStart, "unexpected end of file inside a string: the JSON document is truncated");
    }
}

void JsonReader::decodeEscapes(size_t begin, size_t end)
{
    m_scratch.clear();
    const char* s = m_buffer.data();
    for (size_t i = begin; i < end; ++i) {
        if (s[i] != '\\') {
            m_scratch += s[i];
            continue;
        }
        const char e = s[++i];
        switch (e) {
        case '"': m_scratch += '"'; break;
        case '\\': m_scratch += '\\'; break;
        case '/': m_scratch += '/'; break;
        case 'b': m_scratch += '\b'; break;
        case 'f': m_scratch += '\f'; break;
        case 'n': m_scratch += '\n'; break;
        case 'r': m_scratch += '\r'; break;
        case 't': m_scratch += '\t'; break;
        case 'u': {
            auto hex4 = [&](size_t at) -> int {
                if (at + 4 > end)
                    failAt(m_base + at, "truncated \\u escape");
                int v = 0;
                for (size_t k = 0; k < 4; ++k) {
                    const int h = hexValue(s[at + k]);
                    if (h < 0)
                        failAt(m_base + at + k, "invalid hex digit in a \\u escape");
                    v = v * 16 + h;
                }
                return v;
            };
            uint32_t cp = static_cast<uint32_t>(hex4(i + 1));
            i += 4;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (i + 2 < end && s[i + 1] == '\\' && s[i + 2] == 'u') {
                    const auto low = static_cast<uint32_t>(hex4(i + 3));
                    if (low < 0xdc00 || low > 0xdfff)
                        failAt(m_base + i, "invalid UTF-16 surrogate pair in a \\u escape");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    i += 6;
                } else {
                    failAt(m_base + i, "unpaired UTF-16 surrogate in a \\u escape");
                }
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                failAt(m_base + i, "unpaired UTF-16 surrogate in a \\u escape");
            }
            appendUtf8(m_scratch, cp);
            break;
        }
        default: failAt(m_base + i, "invalid escape '\\" + std::string(1, e) + "' in a string");
        }
    }
}

void JsonReader::skipValue(JsonToken first)
{
    if (first != JsonToken::ObjectBegin && first != JsonToken::ArrayBegin)
        return;
    const size_t target = m_stack.size() - 1;
    while (m_stack.size() > target) {
        if (next() == JsonToken::End)
            fail("unexpected end of file");
    }
}

std::string_view JsonReader::takeUnread()
{
    const std::string_view unread(m_buffer.data() + m_pos, m_end - m_pos);
    m_pos = m_end;
    m_tokenStart = m_end;
    return unread;
}

void JsonReader::resumeAfterArray(std::string_view rest, uint64_t restOffset)
{
    if (m_buffer.size() < rest.size())
        m_buffer.resize(rest.size());
    std::memcpy(m_buffer.data(), rest.data(), rest.size());
    m_pos = 0;
    m_end = rest.size();
    m_tokenStart = 0;
    m_base = restOffset;
    m_eof = false; // the source goes on after `rest` wherever the caller left it, even if it had ended here
    m_stack.pop_back();
    afterValue();
}

void JsonReader::beginElementRun(size_t depth)
{
    m_stack.assign(std::max<size_t>(depth, 1), 0);
    m_state = State::Value;
}

void JsonReader::adoptBuffer(std::vector<char>&& bytes, size_t size)
{
    m_buffer = std::move(bytes);
    m_pos = m_tokenStart = 0;
    m_end = std::min(size, m_buffer.size());
    m_base = 0;
    m_eof = true;
}

bool JsonReader::atEndOfInput()
{
    skipWhitespace();
    return m_pos >= m_end;
}

void JsonReader::beginCapture() { m_captureStart = m_tokenStart; }

std::string_view JsonReader::endCapture()
{
    const size_t start = m_captureStart;
    m_captureStart = SIZE_MAX;
    return std::string_view(m_buffer.data() + start, m_pos - start);
}

} // namespace tilescope::io
