// SPDX-License-Identifier: MIT
#include "io/smalljson.h"

#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/tracefileerror.h"

#include <cmath>
#include <cstdlib>
#include <vector>

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

// The binary subtype that marks an exact number ('#'); binary values never come from JSON text.
constexpr std::uint64_t kExactNumberSubtype = 0x23;

// nlohmann's DOM builder, with the numbers that are not integers kept as exact numbers of their text.
class NumberTextDomParser : public nlohmann::detail::json_sax_dom_parser<Json>
{
public:
    using nlohmann::detail::json_sax_dom_parser<Json>::json_sax_dom_parser;
    bool number_float(double, const std::string& text)
    {
        Json::binary_t bytes(std::vector<std::uint8_t>(text.begin(), text.end()), kExactNumberSubtype);
        return binary(bytes);
    }
};

Json parseWith(std::string_view text, const std::string& name, bool keepNumberText)
{
    if (text.size() > kMaxSmallJsonBytes)
        throw TraceFileError(name, std::nullopt, "too large for a configuration file (over 16 MiB)");
    try {
        if (!keepNumberText)
            return Json::parse(text.begin(), text.end());
        Json out;
        NumberTextDomParser parser(out);
        Json::sax_parse(text.begin(), text.end(), &parser);
        return out;
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann counts bytes from 1 and past the end on truncated input: report 0-based, within the text.
        const uint64_t byte = std::min<uint64_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        throw TraceFileError(name, byte, parseProblem(e));
    }
}

bool containsExactNumber(const Json& value)
{
    if (value.is_binary())
        return true;
    if (value.is_object() || value.is_array())
        for (const Json& item : value)
            if (containsExactNumber(item))
                return true;
    return false;
}

std::string dumpPlain(const Json& value, int indent) { return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace); }

// nlohmann's own layout (compact: no spaces; indented: "key": value, one member per line), with exact
// numbers as their text. Subtrees without exact numbers are nlohmann's dump, shifted to their level.
void dumpInto(std::string& out, const Json& value, int indent, int level)
{
    if (const auto text = jsonExactNumberText(value)) {
        out += *text;
        return;
    }
    if (!containsExactNumber(value)) {
        const std::string text = dumpPlain(value, indent);
        if (indent <= 0 || level == 0) {
            out += text;
            return;
        }
        const std::string shift = "\n" + std::string(size_t(level) * size_t(indent), ' ');
        for (const char c : text)
            if (c == '\n')
                out += shift;
            else
                out += c;
        return;
    }
    const bool object = value.is_object();
    out += object ? '{' : '[';
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first)
            out += ',';
        first = false;
        if (indent >= 0) {
            out += '\n';
            out.append(size_t(level + 1) * size_t(indent), ' ');
        }
        if (object) {
            out += dumpPlain(Json(it.key()), -1);
            out += indent >= 0 ? ": " : ":";
        }
        dumpInto(out, *it, indent, level + 1);
    }
    if (indent >= 0 && !first) {
        out += '\n';
        out.append(size_t(level) * size_t(indent), ' ');
    }
    out += object ? '}' : ']';
}

} // namespace

Json parseSmallJson(std::string_view text, const std::string& name) { return parseWith(text, name, false); }

Json parseSmallJsonKeepingNumberText(std::string_view text, const std::string& name) { return parseWith(text, name, true); }

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

Json jsonMicroseconds(int64_t ns)
{
    if (ns % 1000 == 0)
        return ns / 1000;
    // The double when nlohmann writes it as the exact value (durations, relative times below ~10^12 µs).
    const std::string exact = formatNanosecondsAsMicroseconds(ns);
    Json value = static_cast<double>(ns) / 1000.0;
    return dumpPlain(value, -1) == exact ? value : jsonExactNumber(exact);
}

Json jsonExactNumber(std::string_view decimalText)
{
    return Json::binary(std::vector<std::uint8_t>(decimalText.begin(), decimalText.end()), kExactNumberSubtype);
}

std::optional<std::string> jsonExactNumberText(const Json& value)
{
    if (!value.is_binary() || !value.get_binary().has_subtype() || value.get_binary().subtype() != kExactNumberSubtype)
        return std::nullopt;
    const auto& bytes = value.get_binary();
    return std::string(bytes.begin(), bytes.end());
}

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
    if (const auto text = value ? jsonExactNumberText(*value) : std::nullopt)
        return std::strtod(text->c_str(), nullptr);
    return value && value->is_number() ? std::optional<double>(value->get<double>()) : std::nullopt;
}

std::optional<int64_t> jsonInteger(const Json* value)
{
    if (const auto text = value ? jsonExactNumberText(*value) : std::nullopt)
        return parseExactInteger(*text);
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

std::string dumpJson(const Json& value, int indent)
{
    if (!containsExactNumber(value))
        return dumpPlain(value, indent);
    std::string out;
    dumpInto(out, value, indent, 0);
    return out;
}

} // namespace tilescope::io
