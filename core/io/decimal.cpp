// SPDX-License-Identifier: MIT
#include "io/decimal.h"

#include "io/jsonchars.h"

#include <charconv>
#include <cstring>
#include <limits>

namespace tilescope::io {

namespace {

// Are the 8 bytes at p all ASCII digits?
inline bool eightDigitsAt(const char* p)
{
    uint64_t word;
    std::memcpy(&word, p, 8);
    return leadingDigits8(word) == 8;
}

// The value of 8 ASCII digits, first one most significant: pairs, then fours, by multiplications that
// keep the partial values in separate bytes and halves (simdjson's parse_eight_digits_unrolled).
inline uint64_t eightDigitsValue(const char* p)
{
    uint64_t word;
    std::memcpy(&word, p, 8);
    word -= 0x3030303030303030ull;
    word = word * 10 + (word >> 8);
    return (((word & 0x000000ff000000ffull) * (100 + (1000000ull << 32)))
            + (((word >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32))))
        >> 32;
}

struct Scaled
{
    int64_t value = 0;
    bool exact = true;
};

std::optional<Scaled> scale(std::string_view text, int shift)
{
    size_t i = 0;
    const size_t n = text.size();
    bool negative = false;
    if (i < n && (text[i] == '-' || text[i] == '+')) {
        negative = text[i] == '-';
        ++i;
    }
    const size_t intBegin = i;
    while (i < n && text[i] >= '0' && text[i] <= '9')
        ++i;
    const std::string_view intDigits = text.substr(intBegin, i - intBegin);
    std::string_view fracDigits;
    if (i < n && text[i] == '.') {
        const size_t fracBegin = ++i;
        while (i < n && text[i] >= '0' && text[i] <= '9')
            ++i;
        fracDigits = text.substr(fracBegin, i - fracBegin);
    }
    if (intDigits.empty() && fracDigits.empty())
        return std::nullopt;
    int64_t exponent = 0;
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < n && (text[i] == '-' || text[i] == '+')) {
            expNegative = text[i] == '-';
            ++i;
        }
        if (i >= n)
            return std::nullopt;
        while (i < n && text[i] >= '0' && text[i] <= '9') {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > 100000)
                return std::nullopt;
            ++i;
        }
        if (expNegative)
            exponent = -exponent;
    }
    if (i != n)
        return std::nullopt;

    // The digit string d1..dk with the decimal point after `pointAt` digits; shift it.
    const int64_t pointAt = static_cast<int64_t>(intDigits.size()) + exponent + shift;
    const auto digitAt = [&](int64_t k) -> int {
        if (k < static_cast<int64_t>(intDigits.size()))
            return intDigits[static_cast<size_t>(k)] - '0';
        return fracDigits[static_cast<size_t>(k - static_cast<int64_t>(intDigits.size()))] - '0';
    };
    const int64_t total = static_cast<int64_t>(intDigits.size() + fracDigits.size());
    constexpr uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t magnitude = 0;
    for (int64_t k = 0; k < pointAt; ++k) {
        const int d = k < total ? digitAt(k) : 0;
        if (magnitude > (limit - static_cast<uint64_t>(d)) / 10) {
            if (d == 0 && magnitude == 0)
                continue;
            return std::nullopt;
        }
        magnitude = magnitude * 10 + static_cast<uint64_t>(d);
    }
    Scaled out;
    const int64_t firstDropped = std::max<int64_t>(pointAt, 0);
    if (firstDropped < total) {
        bool nonZero = false;
        for (int64_t k = firstDropped; k < total && !nonZero; ++k)
            nonZero = digitAt(k) != 0;
        out.exact = !nonZero;
        if (pointAt >= 0 && digitAt(pointAt) >= 5) {
            if (magnitude == limit)
                return std::nullopt;
            ++magnitude;
        }
    }
    out.value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return out;
}

} // namespace

std::optional<int64_t> parseScaledDecimal(std::string_view text, int shift)
{
    // Fast path for the forms traces write: an unsigned integer ("ts": 1669783687464181, older Kineto and
    // Chrome) or one with at most `shift` decimals ("ts": 1712195495519689.047), 19 digits at most once
    // scaled; anything else (a sign, an exponent, more decimals to round, past int64) goes the exact way.
    if (shift >= 0 && shift <= 9 && text.size() <= 20) { // 19 digits and a point
        const size_t n = text.size();
        uint64_t v = 0; // 19 digits fit
        size_t i = 0, digits = 0, decimals = 0;
        // A timestamp's 16 digits: 8 at a time (a third of the workers' number parsing went to the digits
        // one by one). With more than 19 digits v wraps, and the test below rejects it.
        for (; n - i >= 8 && eightDigitsAt(text.data() + i); i += 8, digits += 8)
            v = v * 100000000 + eightDigitsValue(text.data() + i);
        for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i, ++digits)
            v = v * 10 + static_cast<uint64_t>(text[i] - '0');
        if (digits > 0 && i < n && text[i] == '.')
            for (++i; i < n && text[i] >= '0' && text[i] <= '9'; ++i, ++decimals)
                v = v * 10 + static_cast<uint64_t>(text[i] - '0');
        const bool pointWithoutDecimals = digits < n && decimals == 0;
        if (i == n && digits > 0 && !pointWithoutDecimals && decimals <= static_cast<size_t>(shift)
            && digits + static_cast<size_t>(shift) <= 19) { // below 10^19 < 2^64: no wrap
            for (size_t k = decimals; k < static_cast<size_t>(shift); ++k)
                v *= 10;
            if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                return static_cast<int64_t>(v);
        }
    }
    const auto scaled = scale(text, shift);
    if (!scaled)
        return std::nullopt;
    return scaled->value;
}

std::optional<int64_t> parseExactInteger(std::string_view text)
{
    int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && ptr == text.data() + text.size())
        return value;
    const auto scaled = scale(text, 0);
    if (!scaled || !scaled->exact)
        return std::nullopt;
    return scaled->value;
}

std::string formatShortest(double value)
{
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string formatNanosecondsAsMicroseconds(int64_t ns)
{
    const bool negative = ns < 0;
    const uint64_t magnitude = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    std::string out = (negative ? "-" : "") + std::to_string(magnitude / 1000);
    std::string fraction = std::to_string(magnitude % 1000);
    fraction.insert(0, 3 - fraction.size(), '0');
    while (!fraction.empty() && fraction.back() == '0')
        fraction.pop_back();
    return fraction.empty() ? out : out + "." + fraction;
}

} // namespace tilescope::io
