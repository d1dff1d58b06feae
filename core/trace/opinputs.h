// SPDX-License-Identifier: MIT
#pragma once

#include "io/jsonreader.h"
#include "trace/stringpool.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tilescope::trace {

// One recorded op input: entry i of a cpu_op's `Input Dims`, `Input Strides`, `Input type` and
// `Concrete Inputs` args (trace-format.md §8). Views into the Trace that holds it.
struct OpInput
{
    std::span<const int64_t> sizes;   // empty for non-tensors and TensorLists
    std::span<const int64_t> strides; // empty when not recorded
    std::string_view type;            // dtype name, or Scalar / ScalarList / TensorList / ""
    std::string_view concrete;        // Concrete Inputs entry ("" for tensors)
    bool isList = false;              // a TensorList (its Input Dims entry is a list of lists)
};

// All the inputs of one op.
struct OpInputList
{
    std::vector<OpInput> inputs;
    bool hasStrides = false;  // the op's args have Input Strides
    bool hasConcrete = false; // the op's args have a non-empty Concrete Inputs
};

// The distinct input lists of a trace's ops, stored once each (a training loop repeats a few hundred of
// them millions of times): one flat array of sizes and strides, entries and lists by index.
class OpInputTable
{
public:
    size_t size() const { return m_lists.size(); }
    // List `id` as views into this table and `strings`; `out` is reused to spare an allocation per call.
    void get(uint32_t id, const StringPool& strings, OpInputList& out) const;
    OpInputList get(uint32_t id, const StringPool& strings) const;
    StringId shapesText(uint32_t id) const { return m_lists[id].shapes; }
    StringId typesText(uint32_t id) const { return m_lists[id].types; }

private:
    friend class OpInputReader;
    struct Entry
    {
        uint32_t firstValue; // sizes, then strides, in m_values
        uint32_t sizeCount;
        uint32_t strideCount;
        StringId type;
        StringId concrete;
        bool isList;
    };
    struct List
    {
        uint32_t firstEntry;
        uint32_t count;
        StringId shapes; // Python str() of torch's input_shapes, e.g. "[[8, 512], []]"
        StringId types;  // the `Input type` entries joined by ", "
        bool hasStrides;
        bool hasConcrete;
    };
    std::vector<int64_t> m_values;
    std::vector<Entry> m_entries;
    std::vector<List> m_lists;
};

// Reads one op's input columns as the loader streams its args past (in any order), then files them in an
// OpInputTable, reusing an equal list already there. One reader serves a whole load.
class OpInputReader
{
public:
    void reset();                                // before each event
    bool hasInputs() const { return m_hasDims; } // the event had Input Dims

    // At the value of the arg; `first` is its first token. Errors name the arg and the offset.
    void readDims(io::JsonReader& reader, io::JsonToken first);
    void readStrides(io::JsonReader& reader, io::JsonToken first);
    void readTypes(io::JsonReader& reader, io::JsonToken first);
    void readConcrete(io::JsonReader& reader, io::JsonToken first);

    // The list's id in `table` (interning its texts in `strings`).
    uint32_t store(OpInputTable& table, StringPool& strings);
    // Reads list `id` of `table` back (its texts from `strings`) as if from an event's args: to file a list
    // of one table (a parallel load's chunk) in another.
    void assign(const OpInputTable& table, uint32_t id, const StringPool& strings);

private:
    struct Pending
    {
        std::vector<int64_t> sizes, strides;
        std::string type, concrete;
        bool isList = false;
    };
    Pending& input(size_t i);
    void readStringList(io::JsonReader& reader, io::JsonToken first, bool types);
    void makeKey(); // into m_key

    std::vector<Pending> m_inputs; // the first m_count are this event's
    size_t m_count = 0;
    bool m_hasDims = false, m_hasStrides = false, m_hasConcrete = false;
    std::string m_text;
    std::string m_key;                                 // made again per op in the same buffer: no allocation for a list seen before
    std::unordered_map<std::string, uint32_t> m_known; // m_key -> list id
};

// The integers of a Concrete Inputs entry, "[1, 2]" or "3"; empty for "", "None", "same" or a float.
std::vector<int64_t> concreteInts(std::string_view text);

// True when `type` names a tensor dtype rather than Scalar, ScalarList, TensorList or nothing.
bool isTensorType(std::string_view type);

// torch's computeFlops (torch/csrc/profiler/util.cpp, key-averages.md §8), which the profiler evaluates
// for each op record: unsigned 64-bit arithmetic, 0 for ops without a formula or with inputs that are not
// tensors.
uint64_t computeFlops(std::string_view opName, std::span<const OpInput> inputs);

} // namespace tilescope::trace
