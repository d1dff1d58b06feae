// SPDX-License-Identifier: MIT
#pragma once

// A minimal pickle writer (protocol 4 opcodes, no memo, no frames) for tests that need snapshots of shapes
// torch does not write: missing keys, wrong types, older or newer fields. What CPython itself writes is
// covered by the fixtures of tests/data/memory/pickles (make_pickles.py).

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace testpickle {

struct Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;

struct Value
{
    std::variant<std::nullptr_t, bool, int64_t, double, std::string, List, Dict> v;

    Value()
        : v(nullptr)
    { }
    Value(std::nullptr_t)
        : v(nullptr)
    { }
    Value(bool b)
        : v(b)
    { }
    Value(int i)
        : v(int64_t(i))
    { }
    Value(int64_t i)
        : v(i)
    { }
    Value(double d)
        : v(d)
    { }
    Value(const char* s)
        : v(std::string(s))
    { }
    Value(std::string s)
        : v(std::move(s))
    { }
    Value(List l)
        : v(std::move(l))
    { }
    Value(Dict d)
        : v(std::move(d))
    { }

    // The member `key` of a Dict (added when missing).
    Value& operator[](const std::string& key)
    {
        auto& d = std::get<Dict>(v);
        for (auto& [k, value] : d)
            if (k == key)
                return value;
        d.emplace_back(key, Value());
        return d.back().second;
    }
    void erase(const std::string& key)
    {
        auto& d = std::get<Dict>(v);
        std::erase_if(d, [&](const auto& item) { return item.first == key; });
    }
};

inline void littleEndian(std::string& out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out += char((value >> (8 * i)) & 0xff);
}

inline void writeString(std::string& out, const std::string& s)
{
    out += 'X'; // BINUNICODE
    littleEndian(out, s.size(), 4);
    out += s;
}

inline void write(std::string& out, const Value& value)
{
    if (std::holds_alternative<std::nullptr_t>(value.v)) {
        out += 'N';
    } else if (const bool* b = std::get_if<bool>(&value.v)) {
        out += char(*b ? 0x88 : 0x89);
    } else if (const int64_t* i = std::get_if<int64_t>(&value.v)) {
        out += '\x8a'; // LONG1, 8 bytes
        out += char(8);
        littleEndian(out, uint64_t(*i), 8);
    } else if (const double* d = std::get_if<double>(&value.v)) {
        out += 'G';
        uint64_t bits;
        static_assert(sizeof bits == sizeof *d);
        __builtin_memcpy(&bits, d, sizeof bits);
        for (int k = 7; k >= 0; --k)
            out += char((bits >> (8 * k)) & 0xff);
    } else if (const std::string* s = std::get_if<std::string>(&value.v)) {
        writeString(out, *s);
    } else if (const List* l = std::get_if<List>(&value.v)) {
        out += ']';
        if (!l->empty()) {
            out += '(';
            for (const Value& item : *l)
                write(out, item);
            out += 'e';
        }
    } else if (const Dict* d = std::get_if<Dict>(&value.v)) {
        out += '}';
        if (!d->empty()) {
            out += '(';
            for (const auto& [k, item] : *d) {
                writeString(out, k);
                write(out, item);
            }
            out += 'u';
        }
    }
}

inline std::string dumps(const Value& value)
{
    std::string out = "\x80\x04";
    write(out, value);
    return out + ".";
}

} // namespace testpickle
