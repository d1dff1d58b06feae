// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::io {

// A small JSON document tree for configuration files (device database, ceilings, annotations).
// Never used for traces: parseSmallJson refuses input over 16 MiB.
struct JsonValue
{
    enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
    bool boolean = false;
    std::string text; // String: the text; Number: the number as written
    std::vector<JsonValue> items;
    std::vector<std::string> keys;   // Object: member names in file order...
    std::vector<JsonValue> values;   // ...and their values (vector allows the incomplete type; pair does not)

    const JsonValue* find(std::string_view key) const;
    std::optional<double> number() const;
    std::optional<int64_t> integer() const;
    bool isObject() const { return type == Type::Object; }
};

// Parses a whole (small) JSON file; throws TraceFileError naming the file, the byte and the problem.
JsonValue parseSmallJson(std::string_view data, const std::string& name);
JsonValue readSmallJsonFile(const std::string& path);

} // namespace tilescope::io
