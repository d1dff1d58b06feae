// SPDX-License-Identifier: MIT
#include "io/smalljson.h"

#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/tracefileerror.h"

#include <cmath>

namespace tilescope::io {

namespace {

constexpr size_t kMaxSmallJsonBytes = 16u << 20;

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error while
// parsing value - invalid literal; last read: 'c'" as "expected a JSON value - invalid literal; ...".
std::string parseProblem(const nlohmann::json::parse_error& e)
{
    std::string text = e.what();
    if (const size_t colon = text.find(": "); text.starts_with("[json.exception.") && colon != std::string::npos)
        text.erase(0, colon + 2);
    constexpr std::string_view kValue = "syntax error while parsing value";
    if (text.starts_with(kValue))
        text.replace(0, kValue.size(), "expected a JSON value");
    return text;
}

} // namespace

Json parseSmallJson(std::string_view text, const std::string& name)
{
    if (text.size() > kMaxSmallJsonBytes)
        throw TraceFileError(name, std::nullopt, "too large for a configuration file (over 16 MiB)");
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann counts bytes from 1 and past the end on truncated input: report 0-based, within the text.
        const uint64_t byte = std::min<uint64_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        throw TraceFileError(name, byte, parseProblem(e));
    }
}

Json readSmallJsonFile(const std::string& path)
{
    auto source = openTraceFile(path);
    std::string data;
    char buffer[1 << 16];
    for (size_t n; (n = source->read(buffer, sizeof buffer)) > 0;) {
        data.append(buffer, n);
        if (data.size() > kMaxSmallJsonBytes)
            throw TraceFileError(path, std::nullopt, "too large for a configuration file (over 16 MiB)");
    }
    return parseSmallJson(data, path);
}

Json jsonMicroseconds(int64_t ns) { return ns % 1000 == 0 ? Json(ns / 1000) : Json(static_cast<double>(ns) / 1000.0); }

Json jsonNumber(double value)
{
    if (!std::isfinite(value))
        return nullptr;
    // An integer exactly when the shortest spelling has no point and no exponent ("2", but "1.555e+12"
    // and "1e+05"), so a reader sees the same number of the same kind as TileScope always wrote.
    const std::string text = formatShortest(value);
    if (text.find_first_of(".e") == std::string::npos)
        if (const auto whole = parseExactInteger(text))
            return *whole;
    return value;
}

Json jsonNumber(const std::optional<double>& value) { return value ? jsonNumber(*value) : Json(nullptr); }

const Json* jsonMember(const Json& object, std::string_view key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(std::string(key));
    return it == object.end() ? nullptr : &*it;
}

std::string jsonString(const Json& value) { return value.is_string() ? value.get<std::string>() : std::string(); }

std::string jsonText(const Json& object, std::string_view key)
{
    const Json* v = jsonMember(object, key);
    return v ? jsonString(*v) : std::string();
}

std::optional<double> jsonDouble(const Json* value)
{
    return value && value->is_number() ? std::optional<double>(value->get<double>()) : std::nullopt;
}

std::optional<int64_t> jsonInteger(const Json* value)
{
    if (!value || !value->is_number())
        return std::nullopt;
    if (value->is_number_integer() && !value->is_number_unsigned())
        return value->get<int64_t>();
    if (value->is_number_unsigned()) {
        const uint64_t u = value->get<uint64_t>();
        return u <= uint64_t(INT64_MAX) ? std::optional<int64_t>(int64_t(u)) : std::nullopt;
    }
    const double d = value->get<double>();
    // [-2^63, 2^63): the doubles that convert to int64 without overflow.
    if (d != std::trunc(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return std::nullopt;
    return static_cast<int64_t>(d);
}

std::string dumpJson(const Json& value, int indent) { return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace); }

} // namespace tilescope::io
