// SPDX-License-Identifier: MIT
#include "io/pickledecoder.h"

#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/tracefileerror.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace tilescope::io {

namespace {

// Opcode bytes and names as CPython's pickletools spells them.
enum Op : uint8_t {
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    BININT = 'J',
    BININT1 = 'K',
    BININT2 = 'M',
    NONE = 'N',
    BINUNICODE = 'X',
    APPEND = 'a',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    BINGET = 'h',
    LONG_BINGET = 'j',
    EMPTY_LIST = ']',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    PROTO = 0x80,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    MEMOIZE = 0x94,
    FRAME = 0x95,
};

enum class OpClass : uint8_t { Unknown, Data, Code, OtherData };

struct OpInfo
{
    const char* name;
    OpClass kind;
};

// Every opcode of protocols 0 to 5: the ones this reader runs, the ones that run code (refused as such),
// and the data opcodes snapshots never use (refused as unsupported).
OpInfo opInfo(uint8_t byte)
{
    switch (byte) {
    case MARK: return {"MARK", OpClass::Data};
    case STOP: return {"STOP", OpClass::Data};
    case POP: return {"POP", OpClass::Data};
    case POP_MARK: return {"POP_MARK", OpClass::Data};
    case DUP: return {"DUP", OpClass::Data};
    case BININT: return {"BININT", OpClass::Data};
    case BININT1: return {"BININT1", OpClass::Data};
    case BININT2: return {"BININT2", OpClass::Data};
    case NONE: return {"NONE", OpClass::Data};
    case BINUNICODE: return {"BINUNICODE", OpClass::Data};
    case APPEND: return {"APPEND", OpClass::Data};
    case EMPTY_DICT: return {"EMPTY_DICT", OpClass::Data};
    case APPENDS: return {"APPENDS", OpClass::Data};
    case BINGET: return {"BINGET", OpClass::Data};
    case LONG_BINGET: return {"LONG_BINGET", OpClass::Data};
    case EMPTY_LIST: return {"EMPTY_LIST", OpClass::Data};
    case BINPUT: return {"BINPUT", OpClass::Data};
    case LONG_BINPUT: return {"LONG_BINPUT", OpClass::Data};
    case SETITEM: return {"SETITEM", OpClass::Data};
    case TUPLE: return {"TUPLE", OpClass::Data};
    case EMPTY_TUPLE: return {"EMPTY_TUPLE", OpClass::Data};
    case SETITEMS: return {"SETITEMS", OpClass::Data};
    case BINFLOAT: return {"BINFLOAT", OpClass::Data};
    case BINBYTES: return {"BINBYTES", OpClass::Data};
    case SHORT_BINBYTES: return {"SHORT_BINBYTES", OpClass::Data};
    case PROTO: return {"PROTO", OpClass::Data};
    case TUPLE1: return {"TUPLE1", OpClass::Data};
    case TUPLE2: return {"TUPLE2", OpClass::Data};
    case TUPLE3: return {"TUPLE3", OpClass::Data};
    case NEWTRUE: return {"NEWTRUE", OpClass::Data};
    case NEWFALSE: return {"NEWFALSE", OpClass::Data};
    case LONG1: return {"LONG1", OpClass::Data};
    case LONG4: return {"LONG4", OpClass::Data};
    case SHORT_BINUNICODE: return {"SHORT_BINUNICODE", OpClass::Data};
    case BINUNICODE8: return {"BINUNICODE8", OpClass::Data};
    case BINBYTES8: return {"BINBYTES8", OpClass::Data};
    case MEMOIZE: return {"MEMOIZE", OpClass::Data};
    case FRAME: return {"FRAME", OpClass::Data};
    // Opcodes that import or call Python code, or hand objects to the reader's host.
    case 'c': return {"GLOBAL", OpClass::Code};
    case 0x93: return {"STACK_GLOBAL", OpClass::Code};
    case 'R': return {"REDUCE", OpClass::Code};
    case 'b': return {"BUILD", OpClass::Code};
    case 'i': return {"INST", OpClass::Code};
    case 'o': return {"OBJ", OpClass::Code};
    case 0x81: return {"NEWOBJ", OpClass::Code};
    case 0x92: return {"NEWOBJ_EX", OpClass::Code};
    case 'P': return {"PERSID", OpClass::Code};
    case 'Q': return {"BINPERSID", OpClass::Code};
    case 0x82: return {"EXT1", OpClass::Code};
    case 0x83: return {"EXT2", OpClass::Code};
    case 0x84: return {"EXT4", OpClass::Code};
    // Data opcodes of protocols 0/1 and sets, buffers: never in an allocator snapshot.
    case 'F': return {"FLOAT", OpClass::OtherData};
    case 'I': return {"INT", OpClass::OtherData};
    case 'L': return {"LONG", OpClass::OtherData};
    case 'S': return {"STRING", OpClass::OtherData};
    case 'T': return {"BINSTRING", OpClass::OtherData};
    case 'U': return {"SHORT_BINSTRING", OpClass::OtherData};
    case 'V': return {"UNICODE", OpClass::OtherData};
    case 'd': return {"DICT", OpClass::OtherData};
    case 'l': return {"LIST", OpClass::OtherData};
    case 'g': return {"GET", OpClass::OtherData};
    case 'p': return {"PUT", OpClass::OtherData};
    case 0x8f: return {"EMPTY_SET", OpClass::OtherData};
    case 0x90: return {"ADDITEMS", OpClass::OtherData};
    case 0x91: return {"FROZENSET", OpClass::OtherData};
    case 0x96: return {"BYTEARRAY8", OpClass::OtherData};
    case 0x97: return {"NEXT_BUFFER", OpClass::OtherData};
    case 0x98: return {"READONLY_BUFFER", OpClass::OtherData};
    default: return {nullptr, OpClass::Unknown};
    }
}

std::string hexByte(uint8_t byte)
{
    static const char* digits = "0123456789abcdef";
    std::string text = "0x";
    text += digits[byte >> 4];
    text += digits[byte & 15];
    return text;
}

std::string describeOp(uint8_t byte)
{
    const OpInfo info = opInfo(byte);
    std::string text = info.name ? std::string(info.name) + " (" + hexByte(byte) : "byte " + hexByte(byte);
    if (byte >= 0x21 && byte < 0x7f)
        text += std::string(" '") + char(byte) + "'";
    return info.name ? text + ")" : text;
}

constexpr PickleRef kNoMemo = ~PickleRef(0);

} // namespace

const char* pickleTypeName(PickleType type)
{
    switch (type) {
    case PickleType::None: return "NoneType";
    case PickleType::Bool: return "bool";
    case PickleType::Int: return "int";
    case PickleType::Float: return "float";
    case PickleType::String: return "str";
    case PickleType::Bytes: return "bytes";
    case PickleType::List: return "list";
    case PickleType::Tuple: return "tuple";
    case PickleType::Dict: return "dict";
    }
    return "?";
}

// Runs the data opcodes over the bytes, building the document's arena.
class PickleDecoder
{
public:
    PickleDecoder(PickleDocument& doc, std::string name, std::string bytes, const PickleLimits& limits, bool inflated)
        : m_doc(doc)
        , m_limits(limits)
        , m_data(doc.m_bytes)
        , m_inflated(inflated)
    {
        doc.m_name = std::move(name);
        doc.m_bytes = std::move(bytes);
    }

    void run();

private:
    [[noreturn]] void fail(uint64_t offset, const std::string& problem) const
    {
        throw TraceFileError(m_doc.m_name, offset, m_inflated ? problem + " (offset in the decompressed pickle)" : problem);
    }
    [[noreturn]] void failAtOp(const std::string& problem) const { fail(m_opOffset, describeOp(m_op) + ": " + problem); }

    // The argument bytes of the current opcode; fails when the data ends first.
    std::string_view take(uint64_t count)
    {
        if (count > m_data.size() - m_pos)
            fail(m_opOffset,
                 "truncated pickle: " + describeOp(m_op) + " needs " + std::to_string(count) + " argument bytes, "
                     + std::to_string(m_data.size() - m_pos) + " remain");
        const std::string_view bytes(m_data.data() + m_pos, static_cast<size_t>(count));
        m_pos += count;
        return bytes;
    }
    uint64_t littleEndian(size_t count)
    {
        const std::string_view bytes = take(count);
        uint64_t value = 0;
        for (size_t i = count; i-- > 0;)
            value = (value << 8) | static_cast<unsigned char>(bytes[i]);
        return value;
    }

    PickleRef newValue(PickleType type, uint64_t payload, uint32_t length = 0)
    {
        if (m_doc.m_values.size() >= m_limits.maxValues)
            failAtOp("more than " + std::to_string(m_limits.maxValues) + " values (the reader's limit)");
        m_doc.m_values.push_back({type, length, payload});
        return static_cast<PickleRef>(m_doc.m_values.size() - 1);
    }
    PickleRef newContainer(PickleType type)
    {
        if (type == PickleType::Dict) {
            const PickleRef v = newValue(type, m_doc.m_dicts.size());
            m_doc.m_dicts.emplace_back();
            return v;
        }
        const PickleRef v = newValue(type, m_doc.m_sequences.size());
        m_doc.m_sequences.emplace_back();
        return v;
    }
    // Appends `count` items to a container's range in its arena: in place while it has room, else into a
    // range twice as large (grown where it lies when it ends the arena, else moved to the end), so a container
    // filled batch by batch while others grow costs amortised O(1) per item.
    template <class T> void append(PickleDocument::Range& range, std::vector<T>& arena, const T* items, size_t count)
    {
        if (range.size + count > range.capacity) {
            const size_t needed = size_t(range.size) + count;
            const bool atEnd = range.capacity > 0 && size_t(range.begin) + range.capacity == arena.size();
            const size_t start = atEnd ? range.begin : arena.size();
            const size_t room = m_limits.maxLinks - std::min<size_t>(m_limits.maxLinks, start);
            if (needed > room)
                failAtOp("more than " + std::to_string(m_limits.maxLinks) + " container items (the reader's limit)");
            const size_t capacity = std::min(room, std::max({needed, 2 * size_t(range.capacity), size_t(4)}));
            arena.resize(start + capacity);
            if (!atEnd)
                std::copy_n(arena.begin() + range.begin, range.size, arena.begin() + static_cast<ptrdiff_t>(start));
            range.begin = static_cast<uint32_t>(start);
            range.capacity = static_cast<uint32_t>(capacity);
        }
        std::copy_n(items, count, arena.begin() + range.begin + range.size);
        range.size += static_cast<uint32_t>(count);
    }
    PickleDocument::Range& sequence(PickleRef v) { return m_doc.m_sequences[m_doc.m_values[v].payload]; }
    void push(PickleRef v)
    {
        if (m_stack.size() >= m_limits.maxStack)
            failAtOp("more than " + std::to_string(m_limits.maxStack) + " values on the stack (the reader's limit)");
        m_stack.push_back(v);
    }
    // The stack above the innermost MARK: what an opcode may pop.
    size_t fence() const { return m_marks.empty() ? 0 : m_marks.back(); }
    void need(size_t count)
    {
        if (m_stack.size() - fence() < count)
            failAtOp("stack underflow (needs " + std::to_string(count) + " value" + (count == 1 ? "" : "s") + " above the last MARK, has "
                     + std::to_string(m_stack.size() - fence()) + ")");
    }
    PickleRef pop()
    {
        need(1);
        const PickleRef v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    size_t popMark()
    {
        if (m_marks.empty())
            failAtOp("no MARK to pop");
        const size_t mark = m_marks.back();
        m_marks.pop_back();
        return mark;
    }
    // The container just below the items an APPENDS/SETITEMS pops (it must be above the enclosing MARK).
    PickleRef targetBelow(size_t position, PickleType want)
    {
        if (position == 0 || position - 1 < fence())
            failAtOp(std::string("no ") + pickleTypeName(want) + " below the items");
        const PickleRef target = m_stack[position - 1];
        if (m_doc.type(target) != want)
            failAtOp(std::string("expected a ") + pickleTypeName(want) + " to add to, found a " + pickleTypeName(m_doc.type(target)));
        return target;
    }
    void checkKey(PickleRef key)
    {
        const PickleType t = m_doc.type(key);
        if (t == PickleType::List || t == PickleType::Dict)
            failAtOp(std::string("unhashable dict key of type ") + pickleTypeName(t));
    }
    void setItems(PickleRef dict, size_t from)
    {
        m_pairs.clear();
        for (size_t i = from; i < m_stack.size(); i += 2) {
            checkKey(m_stack[i]);
            m_pairs.push_back({m_stack[i], m_stack[i + 1]});
        }
        append(m_doc.m_dicts[m_doc.m_values[dict].payload], m_doc.m_dictItems, m_pairs.data(), m_pairs.size());
        m_stack.resize(from);
    }
    void makeTuple(size_t from)
    {
        const PickleRef tuple = newContainer(PickleType::Tuple);
        append(sequence(tuple), m_doc.m_sequenceItems, m_stack.data() + from, m_stack.size() - from);
        m_stack.resize(from);
        push(tuple);
    }
    void pushString(PickleType type, uint64_t length)
    {
        const uint64_t offset = m_pos;
        take(length);
        if (length > UINT32_MAX)
            failAtOp("a string over 4 GiB");
        push(newValue(type, offset, static_cast<uint32_t>(length)));
    }
    void pushLong(uint64_t byteCount);
    void memoPut(uint64_t index)
    {
        if (m_stack.size() == fence())
            failAtOp("nothing on the stack to memoise");
        // Writers number memo entries 0, 1, 2, ...: an index past the values made so far is not a real pickle.
        if (index > m_doc.m_values.size())
            failAtOp("memo index " + std::to_string(index) + " beyond the " + std::to_string(m_doc.m_values.size())
                     + " values read so far");
        if (index >= m_memo.size())
            m_memo.resize(static_cast<size_t>(index) + 1, kNoMemo);
        if (m_memo[index] == kNoMemo)
            ++m_memoCount;
        m_memo[index] = m_stack.back();
    }
    void memoGet(uint64_t index)
    {
        if (index >= m_memo.size() || m_memo[index] == kNoMemo)
            failAtOp("memo index " + std::to_string(index) + " was never stored");
        push(m_memo[index]);
    }

    PickleDocument& m_doc;
    const PickleLimits& m_limits;
    const std::string& m_data;
    const bool m_inflated;
    uint64_t m_pos = 0;
    uint64_t m_opOffset = 0;
    uint8_t m_op = 0;
    std::vector<PickleRef> m_stack;
    std::vector<PickleDictItem> m_pairs; // SETITEMS' pairs, reused
    std::vector<size_t> m_marks;
    std::vector<PickleRef> m_memo;
    size_t m_memoCount = 0;
};

void PickleDecoder::pushLong(uint64_t byteCount)
{
    const std::string_view bytes = take(byteCount);
    if (bytes.empty()) {
        push(newValue(PickleType::Int, 0));
        return;
    }
    // Little-endian two's complement: bytes past the eighth must only extend the sign of the eighth.
    const size_t kept = std::min<size_t>(bytes.size(), 8);
    const bool negative = static_cast<unsigned char>(bytes[bytes.size() - 1]) & 0x80;
    for (size_t i = 8; i < bytes.size(); ++i)
        if (static_cast<unsigned char>(bytes[i]) != (negative ? 0xff : 0x00))
            failAtOp("integer wider than 64 bits (" + std::to_string(bytes.size()) + " bytes)");
    uint64_t value = 0;
    for (size_t i = kept; i-- > 0;)
        value = (value << 8) | static_cast<unsigned char>(bytes[i]);
    if (kept < 8 && negative)
        value |= ~uint64_t(0) << (8 * kept);
    if (bytes.size() > 8 && (static_cast<unsigned char>(bytes[7]) & 0x80) != (negative ? 0x80 : 0))
        failAtOp("integer wider than 64 bits (" + std::to_string(bytes.size()) + " bytes)");
    push(newValue(PickleType::Int, value));
}

void PickleDecoder::run()
{
    if (m_data.empty())
        fail(0, "empty input (expected a pickle)");
    if (static_cast<unsigned char>(m_data[0]) != PROTO)
        fail(0, "not a pickle of protocol 2 to 5 (it does not start with PROTO, 0x80)");
    // Snapshots hold about one value per 9 bytes: room for that up front saves the copies of growing.
    m_doc.m_values.reserve(std::min<size_t>(m_data.size() / 8 + 16, m_limits.maxValues));
    for (;;) {
        if (m_pos >= m_data.size())
            fail(m_pos, "truncated pickle: the data ends before STOP");
        m_opOffset = m_pos;
        m_op = static_cast<uint8_t>(m_data[m_pos++]);
        switch (m_op) {
        case PROTO: {
            if (m_opOffset != 0)
                failAtOp("a second PROTO inside the pickle");
            const uint64_t version = littleEndian(1);
            if (version < 2 || version > 5)
                failAtOp("protocol " + std::to_string(version) + " (this reader takes 2 to 5)");
            break;
        }
        case FRAME: {
            // A framing hint; a frame that claims more than is left means the file was cut.
            const uint64_t length = littleEndian(8);
            if (length > m_data.size() - m_pos)
                failAtOp("truncated pickle: the frame declares " + std::to_string(length) + " bytes, "
                         + std::to_string(m_data.size() - m_pos) + " remain");
            break;
        }
        case STOP: {
            if (!m_marks.empty())
                failAtOp("STOP with a MARK still open");
            if (m_stack.size() != 1)
                failAtOp("STOP with " + std::to_string(m_stack.size()) + " values on the stack (expected 1)");
            if (m_pos != m_data.size())
                fail(m_pos, std::to_string(m_data.size() - m_pos) + " bytes of data after STOP");
            m_doc.m_root = m_stack.back();
            return;
        }
        case MARK:
            if (m_marks.size() >= m_limits.maxNesting)
                failAtOp("more than " + std::to_string(m_limits.maxNesting) + " open MARKs (the reader's nesting limit)");
            m_marks.push_back(m_stack.size());
            break;
        case POP:
            // Python pops a MARK when it is on top (nothing was pushed after it).
            if (!m_marks.empty() && m_marks.back() == m_stack.size())
                m_marks.pop_back();
            else
                pop();
            break;
        case POP_MARK: m_stack.resize(popMark()); break;
        case DUP: {
            need(1);
            push(m_stack.back());
            break;
        }
        case NONE: push(newValue(PickleType::None, 0)); break;
        case NEWTRUE: push(newValue(PickleType::Bool, 1)); break;
        case NEWFALSE: push(newValue(PickleType::Bool, 0)); break;
        case BININT1: push(newValue(PickleType::Int, littleEndian(1))); break;
        case BININT2: push(newValue(PickleType::Int, littleEndian(2))); break;
        case BININT: {
            const auto value = static_cast<int32_t>(static_cast<uint32_t>(littleEndian(4)));
            push(newValue(PickleType::Int, static_cast<uint64_t>(static_cast<int64_t>(value))));
            break;
        }
        case LONG1: pushLong(littleEndian(1)); break;
        case LONG4: {
            const auto length = static_cast<int32_t>(static_cast<uint32_t>(littleEndian(4)));
            if (length < 0)
                failAtOp("negative byte count " + std::to_string(length));
            pushLong(static_cast<uint64_t>(length));
            break;
        }
        case BINFLOAT: {
            // Big-endian IEEE double (unlike every other multi-byte argument).
            const std::string_view bytes = take(8);
            uint64_t bits = 0;
            for (const char c : bytes)
                bits = (bits << 8) | static_cast<unsigned char>(c);
            push(newValue(PickleType::Float, bits));
            break;
        }
        case SHORT_BINUNICODE: pushString(PickleType::String, littleEndian(1)); break;
        case BINUNICODE: pushString(PickleType::String, littleEndian(4)); break;
        case BINUNICODE8: pushString(PickleType::String, littleEndian(8)); break;
        case SHORT_BINBYTES: pushString(PickleType::Bytes, littleEndian(1)); break;
        case BINBYTES: pushString(PickleType::Bytes, littleEndian(4)); break;
        case BINBYTES8: pushString(PickleType::Bytes, littleEndian(8)); break;
        case EMPTY_DICT: push(newContainer(PickleType::Dict)); break;
        case EMPTY_LIST: push(newContainer(PickleType::List)); break;
        case EMPTY_TUPLE: makeTuple(m_stack.size()); break;
        case TUPLE1:
        case TUPLE2:
        case TUPLE3: {
            const size_t count = m_op - TUPLE1 + 1;
            need(count);
            makeTuple(m_stack.size() - count);
            break;
        }
        case TUPLE: makeTuple(popMark()); break;
        case APPEND: {
            need(2);
            const PickleRef item = pop();
            const PickleRef list = m_stack.back();
            if (m_doc.type(list) != PickleType::List)
                failAtOp(std::string("expected a list to append to, found a ") + pickleTypeName(m_doc.type(list)));
            append(sequence(list), m_doc.m_sequenceItems, &item, 1);
            break;
        }
        case APPENDS: {
            const size_t mark = popMark();
            const PickleRef list = targetBelow(mark, PickleType::List);
            append(sequence(list), m_doc.m_sequenceItems, m_stack.data() + mark, m_stack.size() - mark);
            m_stack.resize(mark);
            break;
        }
        case SETITEM: {
            need(3);
            const PickleRef dict = m_stack[m_stack.size() - 3];
            if (m_doc.type(dict) != PickleType::Dict)
                failAtOp(std::string("expected a dict to set an item in, found a ") + pickleTypeName(m_doc.type(dict)));
            setItems(dict, m_stack.size() - 2);
            break;
        }
        case SETITEMS: {
            const size_t mark = popMark();
            const PickleRef dict = targetBelow(mark, PickleType::Dict);
            if ((m_stack.size() - mark) % 2 != 0)
                failAtOp("an odd number of values (" + std::to_string(m_stack.size() - mark) + ") for key/value pairs");
            setItems(dict, mark);
            break;
        }
        case MEMOIZE: memoPut(m_memoCount); break;
        case BINPUT: memoPut(littleEndian(1)); break;
        case LONG_BINPUT: memoPut(littleEndian(4)); break;
        case BINGET: memoGet(littleEndian(1)); break;
        case LONG_BINGET: memoGet(littleEndian(4)); break;
        default: {
            const OpInfo info = opInfo(m_op);
            if (info.kind == OpClass::Code)
                failAtOp("refused: this opcode imports or runs Python code, which an allocator snapshot never needs "
                         "(TileScope never executes a pickle)");
            if (info.kind == OpClass::OtherData)
                failAtOp("unsupported opcode (not used by allocator snapshots)");
            failAtOp("unknown pickle opcode (corrupt data, or not a pickle)");
        }
        }
    }
}

int64_t PickleDocument::integer(PickleRef v) const
{
    const Slot& s = m_values[v];
    return s.type == PickleType::Int || s.type == PickleType::Bool ? static_cast<int64_t>(s.payload) : 0;
}

double PickleDocument::number(PickleRef v) const
{
    const Slot& s = m_values[v];
    if (s.type == PickleType::Float)
        return std::bit_cast<double>(s.payload);
    if (s.type == PickleType::Int || s.type == PickleType::Bool)
        return static_cast<double>(static_cast<int64_t>(s.payload));
    return 0;
}

std::string_view PickleDocument::text(PickleRef v) const
{
    const Slot& s = m_values[v];
    if (s.type != PickleType::String && s.type != PickleType::Bytes)
        return {};
    return std::string_view(m_bytes).substr(static_cast<size_t>(s.payload), s.length);
}

std::span<const PickleRef> PickleDocument::items(PickleRef v) const
{
    const Slot& s = m_values[v];
    if (s.type != PickleType::List && s.type != PickleType::Tuple)
        return {};
    const Range& r = m_sequences[static_cast<size_t>(s.payload)];
    return std::span<const PickleRef>(m_sequenceItems).subspan(r.begin, r.size);
}

std::span<const PickleDictItem> PickleDocument::dictItems(PickleRef v) const
{
    const Slot& s = m_values[v];
    if (s.type != PickleType::Dict)
        return {};
    const Range& r = m_dicts[static_cast<size_t>(s.payload)];
    return std::span<const PickleDictItem>(m_dictItems).subspan(r.begin, r.size);
}

std::optional<PickleRef> PickleDocument::member(PickleRef dict, std::string_view key) const
{
    const auto entries = dictItems(dict);
    for (size_t i = entries.size(); i-- > 0;)
        if (type(entries[i].key) == PickleType::String && text(entries[i].key) == key)
            return entries[i].value;
    return std::nullopt;
}

void PickleDocument::reprInto(std::string& out, PickleRef v, int depth, size_t maxChars) const
{
    if (out.size() >= maxChars) {
        if (!out.ends_with("..."))
            out += "...";
        return;
    }
    const Slot& s = m_values[v];
    switch (s.type) {
    case PickleType::None: out += "None"; return;
    case PickleType::Bool: out += s.payload ? "True" : "False"; return;
    case PickleType::Int: out += std::to_string(static_cast<int64_t>(s.payload)); return;
    case PickleType::Float: {
        const double d = number(v);
        if (std::isnan(d)) {
            out += "nan";
        } else if (std::isinf(d)) {
            out += d < 0 ? "-inf" : "inf";
        } else {
            std::string text = formatShortest(d);
            if (text.find_first_of(".e") == std::string::npos)
                text += ".0"; // Python's repr of a whole float
            out += text;
        }
        return;
    }
    case PickleType::String:
    case PickleType::Bytes: {
        out += s.type == PickleType::Bytes ? "b'" : "'";
        const std::string_view t = text(v);
        out += t.substr(0, maxChars - std::min(maxChars, out.size()));
        out += "'";
        return;
    }
    case PickleType::List:
    case PickleType::Tuple: {
        const bool list = s.type == PickleType::List;
        if (depth <= 0) {
            out += list ? "[...]" : "(...)";
            return;
        }
        out += list ? "[" : "(";
        const auto children = items(v);
        for (size_t i = 0; i < children.size() && out.size() < maxChars; ++i) {
            if (i > 0)
                out += ", ";
            reprInto(out, children[i], depth - 1, maxChars);
        }
        out += !list && children.size() == 1 ? ",)" : (list ? "]" : ")");
        return;
    }
    case PickleType::Dict: {
        if (depth <= 0) {
            out += "{...}";
            return;
        }
        out += "{";
        const auto entries = dictItems(v);
        for (size_t i = 0; i < entries.size() && out.size() < maxChars; ++i) {
            if (i > 0)
                out += ", ";
            reprInto(out, entries[i].key, depth - 1, maxChars);
            out += ": ";
            reprInto(out, entries[i].value, depth - 1, maxChars);
        }
        out += "}";
        return;
    }
    }
}

std::string PickleDocument::repr(PickleRef v, int maxDepth, size_t maxChars) const
{
    std::string out;
    reprInto(out, v, maxDepth, maxChars);
    return out;
}

bool looksLikePickle(std::string_view head)
{
    return head.size() >= 2 && static_cast<unsigned char>(head[0]) == PROTO && head[1] >= 2 && head[1] <= 5;
}

namespace {

std::string inflateAll(ByteSource& source, const std::string& name, uint64_t maxBytes)
{
    std::string data;
    std::vector<char> buffer(1 << 16);
    for (size_t n; (n = source.read(buffer.data(), buffer.size())) > 0;) {
        if (data.size() + n > maxBytes)
            throw TraceFileError(name, std::nullopt, "larger than the pickle reader's limit of " + std::to_string(maxBytes) + " bytes");
        data.append(buffer.data(), n);
    }
    return data;
}

PickleDocument decodeInflated(std::string bytes, const std::string& name, const PickleLimits& limits, bool inflated)
{
    if (bytes.size() > limits.maxBytes)
        throw TraceFileError(name, std::nullopt, "larger than the pickle reader's limit of " + std::to_string(limits.maxBytes) + " bytes");
    PickleDocument doc;
    PickleDecoder(doc, name, std::move(bytes), limits, inflated).run();
    return doc;
}

bool isGzip(std::string_view bytes)
{
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

} // namespace

PickleDocument decodePickle(std::string bytes, const std::string& name, const PickleLimits& limits)
{
    if (!isGzip(bytes))
        return decodeInflated(std::move(bytes), name, limits, false);
    auto source = memorySource(bytes, name);
    return decodeInflated(inflateAll(*source, name, limits.maxBytes), name, limits, true);
}

PickleDocument readPickleFile(const std::string& path, const PickleLimits& limits)
{
    std::unique_ptr<ByteSource> source;
    try {
        source = openTraceFile(path);
    } catch (const TraceFileError& e) {
        if (e.problem().starts_with("empty file"))
            throw TraceFileError(path, 0, "empty file (expected a pickle)");
        throw;
    }
    const bool compressed = source->isCompressed();
    return decodeInflated(inflateAll(*source, path, limits.maxBytes), path, limits, compressed);
}

} // namespace tilescope::io
