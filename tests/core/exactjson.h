// SPDX-License-Identifier: MIT
#pragma once
// Raw trace JSON for independent computations in tests, with every non-integer number kept as its source
// text: a `ts` of 1712195495505543.250 us does not survive a double to the nanosecond, so exactNs reads the
// text's digits instead.

#include "io/bytesource.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace testutil {

// nlohmann's DOM builder with floats stored as their text.
class TextFloatDomParser : public nlohmann::detail::json_sax_dom_parser<nlohmann::json>
{
public:
    using nlohmann::detail::json_sax_dom_parser<nlohmann::json>::json_sax_dom_parser;
    bool number_float(double, const std::string& text)
    {
        std::string copy = text;
        return string(copy);
    }
};

// JSON text (a trace, a report) as JSON, floats as text.
inline nlohmann::json parseExactJson(const std::string& text)
{
    nlohmann::json out;
    TextFloatDomParser parser(out);
    nlohmann::json::sax_parse(text, &parser);
    return out;
}

// A whole trace file (.json or .json.gz) as JSON, floats as text.
inline nlohmann::json readExactJson(const std::string& path)
{
    auto source = tilescope::io::openTraceFile(path);
    std::string data;
    char buffer[1 << 16];
    for (size_t n; (n = source->read(buffer, sizeof buffer)) > 0;)
        data.append(buffer, n);
    return parseExactJson(data);
}

// A `ts`/`dur` in µs (an integer, or a decimal kept as text) as ns, exactly (digits past the ns are dropped
// toward zero; no fixture has them).
inline int64_t exactNs(const nlohmann::json& us)
{
    if (us.is_number_integer())
        return us.get<int64_t>() * 1000;
    const std::string text = us.get<std::string>();
    const bool negative = text.starts_with('-');
    const std::string digits = negative ? text.substr(1) : text;
    const size_t dot = digits.find('.');
    const std::string whole = digits.substr(0, dot);
    std::string fraction = dot == std::string::npos ? "" : digits.substr(dot + 1);
    fraction = (fraction + "000").substr(0, 3);
    const int64_t ns = std::stoll(whole) * 1000 + std::stoll(fraction);
    return negative ? -ns : ns;
}

} // namespace testutil
