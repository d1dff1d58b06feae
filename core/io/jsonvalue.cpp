// SPDX-License-Identifier: MIT
#include "io/jsonvalue.h"

#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/jsonreader.h"
#include "io/tracefileerror.h"

#include <charconv>

namespace tilescope::io {

const JsonValue* JsonValue::find(std::string_view key) const
{
    for (size_t i = 0; i < keys.size(); ++i)
        if (keys[i] == key)
            return &values[i];
    return nullptr;
}

std::optional<double> JsonValue::number() const
{
    if (type != Type::Number)
        return std::nullopt;
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc())
        return std::nullopt;
    return v;
}

std::optional<int64_t> JsonValue::integer() const
{
    return type == Type::Number ? parseExactInteger(text) : std::nullopt;
}

namespace {

JsonValue readValue(JsonReader& reader, JsonToken token)
{
    JsonValue v;
    switch (token) {
    case JsonToken::Null: v.type = JsonValue::Type::Null; break;
    case JsonToken::True:
    case JsonToken::False:
        v.type = JsonValue::Type::Bool;
        v.boolean = token == JsonToken::True;
        break;
    case JsonToken::Number:
        v.type = JsonValue::Type::Number;
        v.text = reader.text();
        break;
    case JsonToken::String:
        v.type = JsonValue::Type::String;
        v.text = reader.text();
        break;
    case JsonToken::ArrayBegin:
        v.type = JsonValue::Type::Array;
        for (JsonToken t = reader.next(); t != JsonToken::ArrayEnd; t = reader.next())
            v.items.push_back(readValue(reader, t));
        break;
    case JsonToken::ObjectBegin:
        v.type = JsonValue::Type::Object;
        for (JsonToken t = reader.next(); t != JsonToken::ObjectEnd; t = reader.next()) {
            v.keys.emplace_back(reader.text());
            v.values.push_back(readValue(reader, reader.next()));
        }
        break;
    default:
        reader.fail("unexpected token");
    }
    return v;
}

} // namespace

JsonValue parseSmallJson(std::string_view data, const std::string& name)
{
    if (data.size() > (16u << 20))
        throw TraceFileError(name, std::nullopt, "too large for a configuration file (over 16 MiB)");
    auto source = memorySource(data, name);
    JsonReader reader(*source);
    JsonValue root = readValue(reader, reader.next());
    if (reader.next() != JsonToken::End)
        reader.fail("unexpected data after the JSON value");
    return root;
}

JsonValue readSmallJsonFile(const std::string& path)
{
    auto source = openTraceFile(path);
    std::string data;
    char buffer[1 << 16];
    for (size_t n; (n = source->read(buffer, sizeof buffer)) > 0;) {
        data.append(buffer, n);
        if (data.size() > (16u << 20))
            throw TraceFileError(path, std::nullopt, "too large for a configuration file (over 16 MiB)");
    }
    return parseSmallJson(data, path);
}

} // namespace tilescope::io
