// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::io {

// A strict, bounded reader of the data that Python pickles hold (protocols 2 to 5), for the CUDA
// allocator snapshot (trace-format.md §11.3). A pickle is a program for a stack machine: this reader
// only builds values (dict, list, tuple, str, bytes, int, float, bool, None, with the memo) and refuses
// every opcode that imports, calls or builds objects (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
// NEWOBJ, NEWOBJ_EX, PERSID, BINPERSID, EXT1/2/4) and every byte it does not know, naming the opcode and
// its offset. Nothing from the file is ever executed.

enum class PickleType : uint8_t { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict };

// Python's name for a type ("dict", "list", "str", "int", "NoneType", ...), for error messages.
const char* pickleTypeName(PickleType type);

// A value is an index into its PickleDocument's arena: the memo and every container hold indices, so a
// dict memoised right after EMPTY_DICT and filled later by SETITEMS is the same value wherever it is used,
// and a memo lookup copies nothing.
using PickleRef = uint32_t;

struct PickleDictItem
{
    PickleRef key;
    PickleRef value;
};

// What a hostile file may cost. Every limit gives a TraceFileError naming it; none is reached by the
// snapshots torch writes up to several hundred MB. Memory stays within a few times `maxBytes`.
struct PickleLimits
{
    uint64_t maxBytes = uint64_t(1) << 30;  // the (decompressed) pickle
    uint32_t maxValues = uint32_t(1) << 25; // values created (each 16 bytes in the arena)
    uint32_t maxLinks = uint32_t(1) << 26;  // container entries (list and tuple items, dict items)
    uint32_t maxStack = uint32_t(1) << 24;  // values on the machine's stack at once
    uint32_t maxNesting = 4096;             // open MARKs at once
};

class PickleDocument
{
public:
    PickleRef root() const { return m_root; }
    size_t valueCount() const { return m_values.size(); }
    // The file's name, for error messages of readers built on the document.
    const std::string& name() const { return m_name; }

    PickleType type(PickleRef v) const { return m_values[v].type; }
    // Int (or Bool as 0/1); 0 for any other type.
    int64_t integer(PickleRef v) const;
    // Float, Int or Bool as a double; 0 for any other type.
    double number(PickleRef v) const;
    // Bool; false for any other type.
    bool boolean(PickleRef v) const { return m_values[v].type == PickleType::Bool && m_values[v].payload != 0; }
    // The bytes of a String (UTF-8 as written, not validated) or Bytes; empty for any other type.
    std::string_view text(PickleRef v) const;
    // The items of a List or Tuple; empty for any other type.
    std::span<const PickleRef> items(PickleRef v) const;
    // The items of a Dict in insertion order (a key written twice appears twice); empty for others.
    std::span<const PickleDictItem> dictItems(PickleRef v) const;
    // The value of the string key `key` in a Dict (the last one written, as Python keeps); nullopt when
    // there is none or `dict` is no Dict.
    std::optional<PickleRef> member(PickleRef dict, std::string_view key) const;

    // Python-like text of a value (`{'a': 1, 'b': [True, None]}`), at most `maxDepth` levels deep (deeper
    // containers print as `...`) and about `maxChars` long: safe on shared and cyclic values.
    std::string repr(PickleRef v, int maxDepth = 8, size_t maxChars = 4096) const;

private:
    friend class PickleDecoder;
    struct Slot
    {
        PickleType type;
        uint32_t length;  // String/Bytes: byte length
        uint64_t payload; // Int: the value; Float: its bits; Bool: 0/1; String/Bytes: offset in m_bytes;
                          // List/Tuple: index in m_sequences; Dict: index in m_dicts
    };
    // A container's items: [begin, begin + size) of its kind's arena, with room up to `capacity` (lists and
    // dicts grow as the pickle appends to them; one arena per kind, no allocation per container).
    struct Range
    {
        uint32_t begin = 0;
        uint32_t size = 0;
        uint32_t capacity = 0;
    };
    void reprInto(std::string& out, PickleRef v, int depth, size_t maxChars) const;

    std::string m_name;
    std::string m_bytes; // the decompressed pickle: strings point into it
    std::vector<Slot> m_values;
    std::vector<Range> m_sequences; // lists and tuples
    std::vector<PickleRef> m_sequenceItems;
    std::vector<Range> m_dicts;
    std::vector<PickleDictItem> m_dictItems;
    PickleRef m_root = 0;
};

// True when `head` starts like a pickle of protocol 2 to 5 (PROTO, 0x80, then the version).
bool looksLikePickle(std::string_view head);

// Decodes a pickle held in memory (gzip is detected by its magic bytes and inflated). Throws
// TraceFileError naming `name`, the byte offset (in the decompressed data) and the problem: truncated
// data, a refused or unknown opcode, a malformed argument, a limit reached, data after STOP.
PickleDocument decodePickle(std::string bytes, const std::string& name, const PickleLimits& limits = {});
// Reads and decodes a pickle file, plain or gzip. Throws TraceFileError naming the file.
PickleDocument readPickleFile(const std::string& path, const PickleLimits& limits = {});

} // namespace tilescope::io
