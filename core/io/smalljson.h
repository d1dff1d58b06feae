// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilescope::io {

// Small JSON documents (configs, annotations, ceilings, manifests, CLI output) through nlohmann/json.
// Members keep the order they were written or read in. Traces never come here: they are streamed by
// JsonReader (jsonreader.h).
using Json = nlohmann::ordered_json;

// Parses a whole small document (at most 16 MiB); parse errors become one-line TraceFileErrors naming
// `name`, the byte and the problem.
Json parseSmallJson(std::string_view text, const std::string& name);
// As parseSmallJson, with every number that is not an integer kept as an exact number of its text, so
// that dumpJson writes it back unchanged (a report's output embedded in another).
Json parseSmallJsonKeepingNumberText(std::string_view text, const std::string& name);
// Reads (a .gz is inflated) and parses a small JSON file; errors name the file.
Json readSmallJsonFile(const std::string& path);

// A double as TileScope writes it: whole values whose shortest spelling has no exponent as integers
// ("2", not "2.0"; 4.8e12 stays a double), non-finite values as null, everything else in a shortest
// text that reads back as the same double.
Json jsonNumber(double value);
Json jsonNumber(const std::optional<double>& value); // null when absent
// Trace nanoseconds as the JSON microseconds every report writes (`ts_us`, `start_us`, `window_start_us`):
// an integer when whole, else the exact decimal text of ns / 1000 ("1695835573023613.167": a double
// would keep only 0.25 µs steps at such absolute times, so those are exact numbers, below).
Json jsonMicroseconds(int64_t ns);
// A JSON number that dumpJson writes as `decimalText`, exactly (nlohmann's numbers are doubles). Held as a
// tagged binary value: only dumpJson, jsonDouble and jsonInteger read it. `decimalText` must be a JSON number.
Json jsonExactNumber(std::string_view decimalText);
// The text of an exact number; nullopt for any other value.
std::optional<std::string> jsonExactNumberText(const Json& value);

// A member of an object; nullptr when `object` is no object or has no such member.
const Json* jsonMember(const Json& object, std::string_view key);
// The value's text when it is a string, else "".
std::string jsonString(const Json& value);
// The member's text when it is a string, else "".
std::string jsonText(const Json& object, std::string_view key);
// A number's value (of an exact number, the nearest double); nullopt for anything else.
std::optional<double> jsonDouble(const Json* value);
// A whole number ("42", "42.0", "4.2e1") that fits int64; nullopt for fractions and anything else.
std::optional<int64_t> jsonInteger(const Json* value);

// Compact text, or with `indent` spaces per level (as Python's json.dump(indent=N)); bytes that are
// not UTF-8 become U+FFFD instead of failing the whole output; exact numbers as their text.
std::string dumpJson(const Json& value, int indent = -1);

} // namespace tilescope::io
