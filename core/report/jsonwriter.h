// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::report {

// Writes compact JSON text; numbers in their shortest round-trip form (as Python's repr).
class JsonWriter
{
public:
    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);
    JsonWriter& value(std::string_view text);
    JsonWriter& value(const char* text) { return value(std::string_view(text)); }
    JsonWriter& value(double number);
    JsonWriter& value(int64_t number);
    JsonWriter& value(uint64_t number);
    JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
    JsonWriter& value(bool flag);
    JsonWriter& null();
    JsonWriter& raw(std::string_view json); // an already-valid JSON value
    const std::string& text() const { return m_out; }

    static void appendEscaped(std::string& out, std::string_view text);
    static std::string number(double value);

private:
    void separate();
    std::string m_out;
    std::vector<bool> m_first;
    bool m_afterKey = false;
};

} // namespace tilescope::report
