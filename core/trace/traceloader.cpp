// SPDX-License-Identifier: MIT
#include "trace/traceloader.h"

#include "io/arraysplitter.h"
#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/jsonreader.h"
#include "io/readaheadsource.h"
#include "io/tracefileerror.h"
#include "trace/prefaultahead.h"

#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <unordered_map>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace tilescope::trace {

namespace {

using io::JsonReader;
using io::JsonToken;

enum class EventField : uint8_t { Other, Ph, Cat, Name, Pid, Tid, Ts, Dur, Args, Id, Scope, BindPoint };

EventField eventFieldOf(std::string_view key)
{
    switch (key.size()) {
    case 1: return key[0] == 's' ? EventField::Scope : EventField::Other;
    case 2:
        if (key == "ph")
            return EventField::Ph;
        if (key == "ts")
            return EventField::Ts;
        if (key == "id")
            return EventField::Id;
        if (key == "bp")
            return EventField::BindPoint;
        return EventField::Other;
    case 3:
        if (key == "cat")
            return EventField::Cat;
        if (key == "pid")
            return EventField::Pid;
        if (key == "tid")
            return EventField::Tid;
        if (key == "dur")
            return EventField::Dur;
        return EventField::Other;
    case 4:
        if (key == "name")
            return EventField::Name;
        if (key == "args")
            return EventField::Args;
        return EventField::Other;
    default: return EventField::Other;
    }
}

enum class ArgField : uint8_t {
    Other,
    ExternalId,
    Correlation,
    InputDims,
    InputType,
    InputStrides,
    ConcreteInputs,
    SequenceNumber,
    Bytes,
    TotalAllocated,
    TotalReserved,
    Address,
    DeviceType,
    DeviceId,
    Name,
    Labels,
    SortIndex,
    TransferBytes,
    InMsgNelems,
    OutMsgNelems,
    Dtype,
    GroupSize,
    CollectiveName
};

ArgField argFieldOf(std::string_view key)
{
    switch (key.size()) {
    case 4:
        if (key == "name")
            return ArgField::Name;
        if (key == "Addr")
            return ArgField::Address;
        return ArgField::Other;
    case 5:
        if (key == "Bytes")
            return ArgField::Bytes;
        if (key == "bytes")
            return ArgField::TransferBytes;
        if (key == "dtype")
            return ArgField::Dtype;
        return ArgField::Other;
    case 6: return key == "labels" ? ArgField::Labels : ArgField::Other;
    case 9: return key == "Device Id" ? ArgField::DeviceId : ArgField::Other;
    case 10:
        if (key == "Input Dims")
            return ArgField::InputDims;
        if (key == "Input type")
            return ArgField::InputType;
        if (key == "sort_index")
            return ArgField::SortIndex;
        if (key == "Group size")
            return ArgField::GroupSize;
        return ArgField::Other;
    case 11:
        if (key == "External id" || key == "external id")
            return ArgField::ExternalId;
        if (key == "correlation")
            return ArgField::Correlation;
        if (key == "Device Type")
            return ArgField::DeviceType;
        return ArgField::Other;
    case 13:
        if (key == "Input Strides")
            return ArgField::InputStrides;
        if (key == "In msg nelems")
            return ArgField::InMsgNelems;
        return ArgField::Other;
    case 14:
        if (key == "Total Reserved")
            return ArgField::TotalReserved;
        if (key == "Out msg nelems")
            return ArgField::OutMsgNelems;
        return ArgField::Other;
    case 15:
        if (key == "Concrete Inputs")
            return ArgField::ConcreteInputs;
        if (key == "Total Allocated")
            return ArgField::TotalAllocated;
        if (key == "Sequence number")
            return ArgField::SequenceNumber;
        if (key == "Collective name")
            return ArgField::CollectiveName;
        return ArgField::Other;
    default: return ArgField::Other;
    }
}

// The args only some events have ([memory] records, copies, collectives, metadata), beside the record
// instead of in it: the record that every event fills, copies and merges stays at a third of the size.
struct RecordDetails
{
    std::optional<int64_t> bytes, totalAllocated, totalReserved, address, deviceType, deviceId, sortIndex;
    std::optional<double> transferBytes;
    // NCCL message args: kept when "In msg nelems" or "Out msg nelems" is there.
    std::optional<double> inNelems, outNelems;
    std::optional<int64_t> groupSize;
    StringId argName = 0, argLabels = 0, dtype = 0, collectiveName = 0;
    bool hasArgName = false, hasArgLabels = false;
    bool hasMessage = false, hasDtype = false;
};
const RecordDetails kNoDetails{};

// One traceEvents element as read: fields arrive in any order. Strings are ids in the pool of whoever
// parsed it (the trace's, or a parallel chunk's until the merge maps them). Plain data, copied per event.
struct ParsedRecord
{
    char phase = 0;
    bool hasName = false, hasCat = false, hasPid = false, hasTid = false, hasTs = false, hasDur = false;
    bool pidIsString = false, tidIsString = false, hasId = false, bindsEnclosing = false;
    bool hasArgs = false;
    bool idIsString = false;
    bool hasInputs = false;  // args had Input Dims
    bool hasDetails = false; // the parser's RecordDetails were written for this record
    StringId name = 0, cat = 0, pid = 0, tid = 0;
    int64_t id = 0;
    int64_t ts = 0, dur = 0;
    uint64_t offset = 0;
    // args
    int64_t externalId = kNoId, correlation = kNoId;
    int64_t sequence = kNoId;
    uint32_t argsRef = kNoIndex;
    // Parallel chunks only: the op's inputs in the chunk's table, its counter values in the chunk's list,
    // its details in the chunk's list.
    uint32_t inputs = kNoIndex;
    uint32_t counterBegin = 0, counterCount = 0;
    uint32_t details = kNoIndex;
};

using CounterValues = std::vector<std::pair<StringId, double>>;

// Where the parser puts each event's raw args text; returns the event's reference to it.
class RawArgsSink
{
public:
    virtual uint32_t storeRawArgs(std::string_view raw) = 0;

protected:
    ~RawArgsSink() = default;
};

std::optional<double> doubleValue(JsonToken token, std::string_view text)
{
    double v = 0;
    if (token != JsonToken::Number || std::from_chars(text.data(), text.data() + text.size(), v).ec != std::errc())
        return std::nullopt;
    return v;
}

struct TrackKey
{
    StringId pid, tid;
    bool pidIsString, tidIsString;
    bool operator==(const TrackKey&) const = default;
};
struct TrackKeyHash
{
    size_t operator()(const TrackKey& k) const
    {
        return (static_cast<size_t>(k.pid) * 0x9E3779B97F4A7C15ull) ^ (static_cast<size_t>(k.tid) << 2) ^ (k.pidIsString ? 1 : 0)
            ^ (k.tidIsString ? 2 : 0);
    }
};

std::optional<int64_t> numericValue(std::string_view text)
{
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && ptr == text.data() + text.size())
        return v;
    return std::nullopt;
}

bool isGenericThreadName(std::string_view name) { return name.empty() || name.starts_with("thread ") || name == "python3"; }

void expectToken(JsonReader& reader, JsonToken got, JsonToken want, const char* what)
{
    if (got != want)
        reader.failAt(reader.tokenOffset(),
                      std::string("expected ") + io::jsonTokenName(want) + " for " + what + ", found " + io::jsonTokenName(got));
}

int64_t integerValue(JsonReader& reader, JsonToken token, const char* what)
{
    if (token != JsonToken::Number)
        reader.failAt(reader.tokenOffset(), std::string("expected an integer for ") + what + ", found " + io::jsonTokenName(token));
    const auto v = io::parseExactInteger(reader.text());
    if (!v)
        reader.failAt(reader.tokenOffset(), std::string("expected an integer for ") + what + ", found " + std::string(reader.text()));
    return *v;
}

// Reads one traceEvents element into a ParsedRecord (its counter values and op inputs beside it), with
// strings interned in `strings`. Knows nothing of tracks or of other events: the loader commits the
// record, in file order. Used by the streaming pass and by each parallel chunk.
class EventParser
{
public:
    EventParser(JsonReader& reader, StringPool& strings, RawArgsSink* rawArgs, ParsedRecord& rec, CounterValues& counters,
                RecordDetails& details)
        : m_reader(reader)
        , m_strings(strings)
        , m_rawArgs(rawArgs)
        , m_rec(rec)
        , m_counters(counters)
        , m_details(details)
    { }

    // Right after the element's ObjectBegin.
    void readEvent();
    // The last event's op inputs (rec.hasInputs).
    OpInputReader& inputs() { return m_inputs; }

private:
    void readArgs();
    // The record's details, emptied on first use: most records have none, and skip the reset.
    RecordDetails& details()
    {
        if (!m_rec.hasDetails) {
            m_details = RecordDetails{};
            m_rec.hasDetails = true;
        }
        return m_details;
    }

    JsonReader& m_reader;
    StringPool& m_strings;
    RawArgsSink* m_rawArgs; // null: raw args not kept
    ParsedRecord& m_rec;
    CounterValues& m_counters;
    RecordDetails& m_details;
    OpInputReader m_inputs;
    StringId m_lastCategory = 0;
    std::pair<StringId, std::string_view> m_idCache[2];
    std::string_view m_lastCategoryText;
};

void EventParser::readEvent()
{
    m_rec = ParsedRecord{};
    m_rec.offset = m_reader.tokenOffset();
    m_counters.clear();
    m_inputs.reset();
    for (;;) {
        JsonToken token = m_reader.next();
        if (token == JsonToken::ObjectEnd)
            break;
        const EventField field = eventFieldOf(m_reader.text());
        token = m_reader.next();
        switch (field) {
        case EventField::Ph:
            expectToken(m_reader, token, JsonToken::String, "'ph'");
            if (m_reader.text().size() != 1)
                m_reader.failAt(m_reader.tokenOffset(), "invalid 'ph' \"" + std::string(m_reader.text()) + "\": expected one character");
            m_rec.phase = m_reader.text()[0];
            break;
        case EventField::Cat:
            if (token == JsonToken::Null)
                break;
            expectToken(m_reader, token, JsonToken::String, "'cat'");
            // Few distinct categories, mostly repeating: skip the hash when it is the previous one.
            if (m_reader.text() != m_lastCategoryText) {
                m_lastCategory = m_strings.intern(m_reader.text());
                m_lastCategoryText = m_strings.view(m_lastCategory);
            }
            m_rec.cat = m_lastCategory;
            m_rec.hasCat = true;
            break;
        case EventField::Name:
            if (token == JsonToken::Number) { // some producers write numeric names
                m_rec.name = m_strings.intern(m_reader.text());
            } else {
                expectToken(m_reader, token, JsonToken::String, "'name'");
                m_rec.name = m_strings.intern(m_reader.text());
            }
            m_rec.hasName = true;
            break;
        case EventField::Pid:
        case EventField::Tid: {
            if (token != JsonToken::Number && token != JsonToken::String)
                m_reader.failAt(m_reader.tokenOffset(),
                                std::string("expected a number or string for '") + (field == EventField::Pid ? "pid" : "tid") + "', found "
                                    + io::jsonTokenName(token));
            // pid and tid repeat from one event to the next: skip the hash when the text is the same.
            auto& cache = m_idCache[field == EventField::Pid ? 0 : 1];
            if (m_reader.text() != cache.second) {
                cache.first = m_strings.intern(m_reader.text());
                cache.second = m_strings.view(cache.first);
            }
            const StringId id = cache.first;
            if (field == EventField::Pid) {
                m_rec.pid = id;
                m_rec.pidIsString = token == JsonToken::String;
                m_rec.hasPid = true;
            } else {
                m_rec.tid = id;
                m_rec.tidIsString = token == JsonToken::String;
                m_rec.hasTid = true;
            }
            break;
        }
        case EventField::Ts:
        case EventField::Dur: {
            const char* what = field == EventField::Ts ? "'ts'" : "'dur'";
            if (token != JsonToken::Number)
                m_reader.failAt(m_reader.tokenOffset(),
                                std::string("expected a number for ") + what + ", found " + io::jsonTokenName(token));
            const auto ns = io::parseMicrosecondsAsNanoseconds(m_reader.text());
            if (!ns)
                m_reader.failAt(m_reader.tokenOffset(), std::string(what) + " " + std::string(m_reader.text()) + " is out of range");
            if (field == EventField::Ts) {
                m_rec.ts = *ns;
                m_rec.hasTs = true;
            } else {
                m_rec.dur = *ns;
                m_rec.hasDur = true;
            }
            break;
        }
        case EventField::Id:
            if (token == JsonToken::Number || token == JsonToken::String) {
                const auto number = token == JsonToken::Number ? io::parseExactInteger(m_reader.text()) : std::nullopt;
                m_rec.idIsString = !number;
                m_rec.id = number ? *number : m_strings.intern(m_reader.text());
                m_rec.hasId = true;
            } else {
                m_reader.skipValue(token);
            }
            break;
        case EventField::BindPoint:
            if (token == JsonToken::String)
                m_rec.bindsEnclosing = m_reader.text() == "e";
            else
                m_reader.skipValue(token);
            break;
        case EventField::Args:
            if (token == JsonToken::Null)
                break;
            expectToken(m_reader, token, JsonToken::ObjectBegin, "'args'");
            readArgs();
            break;
        case EventField::Scope:
        case EventField::Other: m_reader.skipValue(token); break;
        }
    }
    m_rec.hasInputs = m_inputs.hasInputs();
}

void EventParser::readArgs()
{
    const bool capture = m_rawArgs != nullptr;
    if (capture)
        m_reader.beginCapture();
    m_rec.hasArgs = true;
    for (;;) {
        JsonToken token = m_reader.next();
        if (token == JsonToken::ObjectEnd)
            break;
        const std::string_view key = m_reader.text();
        const ArgField field = argFieldOf(key);
        const bool maybeCounter = m_rec.phase == 'C' || m_rec.phase == 0;
        // Args read for analyses only were counter series before they had a field: they still are.
        const bool analysisArg = field == ArgField::InputStrides || field == ArgField::SequenceNumber || field == ArgField::TransferBytes
            || field == ArgField::InMsgNelems || field == ArgField::OutMsgNelems || field == ArgField::GroupSize || field == ArgField::Dtype
            || field == ArgField::CollectiveName;
        StringId counterKey = 0;
        if (maybeCounter && (field == ArgField::Other || analysisArg))
            counterKey = m_strings.intern(key);
        token = m_reader.next();
        if (token == JsonToken::Null)
            continue;
        if (maybeCounter && analysisArg && token == JsonToken::Number)
            m_counters.emplace_back(counterKey, doubleValue(token, m_reader.text()).value_or(0));
        switch (field) {
        case ArgField::ExternalId: m_rec.externalId = integerValue(m_reader, token, "args 'External id'"); break;
        case ArgField::Correlation: m_rec.correlation = integerValue(m_reader, token, "args 'correlation'"); break;
        case ArgField::Bytes: details().bytes = integerValue(m_reader, token, "args 'Bytes'"); break;
        case ArgField::TotalAllocated: details().totalAllocated = integerValue(m_reader, token, "args 'Total Allocated'"); break;
        case ArgField::TotalReserved: details().totalReserved = integerValue(m_reader, token, "args 'Total Reserved'"); break;
        case ArgField::Address: details().address = integerValue(m_reader, token, "args 'Addr'"); break;
        case ArgField::DeviceType: details().deviceType = integerValue(m_reader, token, "args 'Device Type'"); break;
        case ArgField::DeviceId: details().deviceId = integerValue(m_reader, token, "args 'Device Id'"); break;
        case ArgField::SortIndex: details().sortIndex = integerValue(m_reader, token, "args 'sort_index'"); break;
        case ArgField::InputDims: m_inputs.readDims(m_reader, token); break;
        case ArgField::InputType: m_inputs.readTypes(m_reader, token); break;
        case ArgField::InputStrides: m_inputs.readStrides(m_reader, token); break;
        case ArgField::ConcreteInputs: m_inputs.readConcrete(m_reader, token); break;
        // The rest only feed analyses (the roofline's work estimate): never an error, just absent when odd.
        case ArgField::SequenceNumber:
            m_rec.sequence = token == JsonToken::Number ? io::parseExactInteger(m_reader.text()).value_or(kNoId) : kNoId;
            m_reader.skipValue(token);
            break;
        case ArgField::TransferBytes:
            details().transferBytes = doubleValue(token, m_reader.text());
            m_reader.skipValue(token);
            break;
        case ArgField::InMsgNelems:
        case ArgField::OutMsgNelems: {
            RecordDetails& d = details();
            d.hasMessage = true;
            (field == ArgField::InMsgNelems ? d.inNelems : d.outNelems) = doubleValue(token, m_reader.text());
            m_reader.skipValue(token);
            break;
        }
        case ArgField::GroupSize:
            details().groupSize = token == JsonToken::Number ? io::parseExactInteger(m_reader.text()) : std::nullopt;
            m_reader.skipValue(token);
            break;
        case ArgField::Dtype:
        case ArgField::CollectiveName: {
            RecordDetails& d = details();
            StringId& target = field == ArgField::Dtype ? d.dtype : d.collectiveName;
            target = token == JsonToken::String || token == JsonToken::Number ? m_strings.intern(m_reader.text()) : 0;
            d.hasDtype = d.hasDtype || field == ArgField::Dtype;
            m_reader.skipValue(token);
            break;
        }
        case ArgField::Name:
            if (token == JsonToken::String) {
                RecordDetails& d = details();
                d.argName = m_strings.intern(m_reader.text());
                d.hasArgName = true;
            } else {
                m_reader.skipValue(token);
            }
            break;
        case ArgField::Labels:
            if (token == JsonToken::String) {
                RecordDetails& d = details();
                d.argLabels = m_strings.intern(m_reader.text());
                d.hasArgLabels = true;
            } else {
                m_reader.skipValue(token);
            }
            break;
        case ArgField::Other:
            if (maybeCounter && token == JsonToken::Number) {
                double value = 0;
                const auto text = m_reader.text();
                std::from_chars(text.data(), text.data() + text.size(), value);
                m_counters.emplace_back(counterKey, value);
            } else {
                m_reader.skipValue(token);
            }
            break;
        }
    }
    if (capture) {
        m_rec.argsRef = m_rawArgs->storeRawArgs(m_reader.endCapture());
    }
}

// A run of traceEvents elements parsed on a worker thread: its records, with their strings, op inputs,
// counter values and raw args in the chunk's own tables until the in-order merge maps them into the
// trace's. Parsing knows nothing of other chunks; everything stateful happens in the merge.
struct EventChunk final : RawArgsSink
{
    // The elements' bytes, without the separators around them: text[0, textSize), from stream offset
    // `offset` on. The buffer keeps its size from chunk to chunk, so that bytes are never zeroed before
    // they are written.
    std::vector<char> text;
    size_t textSize = 0;
    uint64_t offset = 0;
    bool readByWorker = false; // text is read by the worker that parses it, from the source (a plain file)
    size_t depth = 1;          // nesting of the array (for the same nesting limit as the streaming pass)
    StringPool strings;
    OpInputTable opInputs;
    std::vector<ParsedRecord> records;
    std::vector<RecordDetails> details;
    CounterValues counters;
    std::string argsText;
    std::vector<std::pair<size_t, uint32_t>> argsSpans;
    std::exception_ptr error;    // the parse failed: cut again exactly if the cut was guessed, else the load
                                 // starts again in one streaming pass
    bool done = false;           // guarded by ChunkWorkers' mutex
    char terminator = ',';       // the byte after text: ',' or the array's ']'
    bool guessed = false;        // cut at a likely separator, proven by the parse. An exact cut can also start
                                 // after an unproven guess (at the array's end): such a chunk is only ever merged
                                 // after the chunks before it, so a wrong guess there is undone first
    bool afterSeparator = false; // follows a ',' (else the array's '[')

    uint32_t storeRawArgs(std::string_view raw) override
    {
        argsSpans.emplace_back(argsText.size(), static_cast<uint32_t>(raw.size()));
        argsText.append(raw);
        return static_cast<uint32_t>(argsSpans.size() - 1);
    }
    std::string_view rawArgs(uint32_t ref) const { return std::string_view(argsText).substr(argsSpans[ref].first, argsSpans[ref].second); }

    // `file`: the source the chunk's bytes are read from where readByWorker.
    void parse(const std::string& sourceName, bool keepRawArgs, const io::ByteSource& file)
    {
        if (readByWorker) {
            // With the byte after it, the ',' the cut was guessed at: a file rewritten between the loading
            // thread's look and this read fails the chunk, as a wrong guess (the exact cut then says where).
            if (text.size() < textSize + 1)
                text.resize(textSize + 1);
            if (file.readAt(offset, text.data(), textSize + 1) != textSize + 1 || text[textSize] != ',')
                throw io::TraceFileError(sourceName, offset, "changed or ended while its chunks were read");
        }
        const auto source = io::memorySource({}, sourceName);
        JsonReader reader(*source, 64);
        reader.adoptBuffer(std::move(text), textSize); // parsed where it lies: no copy
        struct GiveBack                                // the buffer goes back to the chunk, for reuse, whatever happens
        {
            JsonReader& reader;
            std::vector<char>& text;
            ~GiveBack() { text = reader.releaseBuffer(); }
        } giveBack{reader, text};
        ParsedRecord rec;
        CounterValues values;
        RecordDetails recordDetails;
        EventParser parser(reader, strings, keepRawArgs ? this : nullptr, rec, values, recordDetails);
        reader.beginElementRun(depth);
        do {
            const JsonToken token = reader.next();
            if (token != JsonToken::ObjectBegin) // the streaming pass names the element and its position
                reader.fail("a traceEvents element is not an object");
            parser.readEvent();
            if (rec.hasInputs)
                rec.inputs = parser.inputs().store(opInputs, strings);
            rec.counterBegin = static_cast<uint32_t>(counters.size());
            rec.counterCount = static_cast<uint32_t>(values.size());
            counters.insert(counters.end(), values.begin(), values.end());
            if (rec.hasDetails) {
                rec.details = static_cast<uint32_t>(details.size());
                details.push_back(recordDetails);
            }
            records.push_back(rec);
        } while (!reader.atEndOfInput());
    }

    // Empties the chunk for the next run of elements, keeping its buffers: no allocation and no page
    // faults per chunk once the first few are made.
    void recycle()
    {
        textSize = 0;
        strings.clear();
        opInputs = OpInputTable();
        records.clear();
        details.clear();
        counters.clear();
        argsText.clear();
        argsSpans.clear();
        error = nullptr;
        done = false;
    }
};

// Thrown inside a parallel load that met anything unexpected: the load starts again in one streaming
// pass, which reports bad input (or keeps a partial load) exactly as it always has.
struct ParallelLoadFailed
{ };

// How much lower than the loading thread's the workers' priority is (a nice value; 0 keeps it equal;
// TILESCOPE_LOAD_WORKER_NICE, for measurements). The loading thread splits, and merges in file order, what
// N workers parse: on two cores it needs most of one, and at equal priority the scheduler gave it a third of
// two, so it fell behind and the workers ran out of chunks (on a 35 MB trace they waited 42-55 ms of their
// 130; 26-29 ms at nice 3, 5-10 at nice 10). At 5: 6-11% less wall time on 5-125 MB traces. Where cores
// are free it changes nothing.
int workerNiceIncrement()
{
    if (const char* env = std::getenv("TILESCOPE_LOAD_WORKER_NICE"))
        return std::clamp(std::atoi(env), 0, 19);
    return 5;
}

// Lowers the calling thread's priority by `increment` (Linux: setpriority applies to one thread). A
// thread's priority cannot be raised back without privileges; the workers end with the load.
void lowerThisThreadsPriority(int increment)
{
#if defined(__linux__)
    if (increment > 0) {
        const auto self = static_cast<id_t>(::gettid());
        errno = 0;
        const int current = ::getpriority(PRIO_PROCESS, self);
        if (errno == 0)
            ::setpriority(PRIO_PROCESS, self, std::min(current + increment, 19)); // failing is harmless
    }
#else
    (void)increment;
#endif
}

// Threads that parse chunks as they are handed over; the loader waits for each in file order.
class ChunkWorkers
{
public:
    ChunkWorkers(unsigned threads, const io::ByteSource& file, bool keepRawArgs)
        : m_file(file)
        , m_sourceName(file.name())
        , m_keepRawArgs(keepRawArgs)
        , m_niceIncrement(workerNiceIncrement())
    {
        try {
            for (unsigned i = 0; i < threads; ++i)
                m_threads.emplace_back([this] { work(); });
        } catch (const std::system_error&) { // no threads to be had: one streaming pass then
            stop();
            throw ParallelLoadFailed();
        }
    }
    ~ChunkWorkers() { stop(); }

    void submit(EventChunk* chunk)
    {
        {
            std::lock_guard lock(m_mutex);
            m_queue.push_back(chunk);
        }
        m_ready.notify_one();
    }
    void wait(const EventChunk* chunk)
    {
        std::unique_lock lock(m_mutex);
        m_awaited = chunk;
        m_finished.wait(lock, [chunk] { return chunk->done; });
        m_awaited = nullptr;
    }
    bool isDone(const EventChunk* chunk)
    {
        std::lock_guard lock(m_mutex);
        return chunk->done;
    }

private:
    // Stops after the chunks being parsed (queued ones are dropped) and joins.
    void stop()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_ready.notify_all();
        for (std::thread& thread : m_threads)
            thread.join();
        m_threads.clear();
    }

    void work()
    {
        lowerThisThreadsPriority(m_niceIncrement);
        for (;;) {
            EventChunk* chunk = nullptr;
            {
                std::unique_lock lock(m_mutex);
                m_ready.wait(lock, [this] { return m_stop || !m_queue.empty(); });
                if (m_stop)
                    return;
                chunk = m_queue.front();
                m_queue.pop_front();
            }
            try {
                chunk->parse(m_sourceName, m_keepRawArgs, m_file);
            } catch (...) {
                chunk->error = std::current_exception();
            }
            bool awaited = false;
            {
                std::lock_guard lock(m_mutex);
                chunk->done = true;
                awaited = m_awaited == chunk;
            }
            // Only the loader waits, and for one chunk: waking it for another is a wasted switch.
            if (awaited)
                m_finished.notify_one();
        }
    }

    const io::ByteSource& m_file;
    const std::string m_sourceName;
    const bool m_keepRawArgs;
    const int m_niceIncrement;
    std::mutex m_mutex;
    std::condition_variable m_ready, m_finished;
    std::deque<EventChunk*> m_queue;
    const EventChunk* m_awaited = nullptr; // the chunk the loader waits for, if it waits
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

// The JSON a source holds, as far as can be told before reading it: a plain file's size; a compressed
// file taken as 16x its size (Kineto traces gzip 13-23x); 0 when unknown.
uint64_t expectedJsonBytes(const io::ByteSource& source) { return source.totalInputBytes() * (source.isCompressed() ? 16 : 1); }

// 256 KiB (measured best of 256 KiB to 16 MiB: a chunk stays in cache from the split to the parse, and
// little is in flight); 1/256 of the JSON under 32 MiB, down to 64 KiB, where the 2N+1 chunks in flight
// with their parsed records are a visible part of the peak (a 26 MB trace: 1.7 MB less at 100 KiB, no
// slower; a 4.7 MB gzipped one: 11-12 MB -> 8 MB; on 35-54 MB traces smaller chunks cost 3-5% and save
// under 1 MB); or TILESCOPE_LOAD_CHUNK_KB (for measurements).
size_t defaultChunkBytes(const io::ByteSource& source)
{
    if (const char* env = std::getenv("TILESCOPE_LOAD_CHUNK_KB"))
        if (const int kb = std::atoi(env); kb > 0)
            return size_t(kb) << 10;
    constexpr size_t full = size_t(256) << 10, least = size_t(64) << 10;
    const uint64_t json = expectedJsonBytes(source);
    if (json == 0 || json >= (uint64_t(32) << 20))
        return full;
    return std::clamp<size_t>(static_cast<size_t>(json / 256), least, full);
}

// The streaming reader's first buffer (it doubles when a token needs more): 256 KiB, or the JSON and a page
// when less. The buffer is zeroed when made: a 100 kB trace touched all 64 pages of a 256 KiB one, a
// seventh of the page faults of a whole run of the CLI on it; 26 now.
size_t readerBufferBytes(const io::ByteSource& source)
{
    constexpr size_t full = size_t(256) << 10;
    const uint64_t json = expectedJsonBytes(source);
    return json == 0 ? full : static_cast<size_t>(std::min<uint64_t>(json + 4096, full));
}

class Loader final : RawArgsSink
{
public:
    Loader(io::ByteSource& source, const LoadOptions& options, unsigned threads)
        : m_source(source)
        , m_reader(source, readerBufferBytes(source))
        , m_options(options)
        , m_trace(std::make_unique<Trace>())
        , m_parser(m_reader, m_trace->strings, options.keepRawArgs ? this : nullptr, m_rec, m_counters, m_details)
        , m_threads(threads)
        , m_chunkBytes(options.chunkBytes ? options.chunkBytes : defaultChunkBytes(source))
    { }

    std::unique_ptr<Trace> run();

private:
    Trace& t() { return *m_trace; }
    [[noreturn]] void failAt(uint64_t offset, const std::string& problem) { m_reader.failAt(offset, problem); }
    void expect(JsonToken got, JsonToken want, const char* what) { expectToken(m_reader, got, want, what); }
    int64_t integerValue(JsonToken token, const char* what) { return tilescope::trace::integerValue(m_reader, token, what); }
    // m_rec's details, or none.
    const RecordDetails& details() const { return m_rec.hasDetails ? m_details : kNoDetails; }

    [[noreturn]] void notATrace(const std::string& what, bool memoryData);
    void identifyNonTrace();
    void identifyArrayOfArrays();
    void readTopLevelObject();
    void reserveEvents();
    void readEventArray();
    void readEventArrayInParallel();
    void mergeChunk(EventChunk& chunk);
    StringId chunkString(StringId local);
    uint32_t storeInputs();
    uint32_t storeRawArgs(std::string_view raw) override;
    void commitOp(Event& e);
    void readDeviceProperties(JsonToken first);
    void commit();
    void commitMetadata();
    void commitMemory(TrackId track);
    TrackId trackFor(StringId pid, bool pidIsString, StringId tid, bool tidIsString);
    uint32_t processFor(StringId pid, bool pidIsString);
    EventKind kindFor();
    void reportProgress();
    void closeOpenBegins();

    io::ByteSource& m_source;
    JsonReader m_reader;
    const LoadOptions& m_options;
    std::unique_ptr<Trace> m_trace;
    ParsedRecord m_rec; // the record being committed, strings in the trace's pool
    CounterValues m_counters;
    RecordDetails m_details; // m_rec's, when m_rec.hasDetails
    EventParser m_parser;
    std::unordered_map<TrackKey, TrackId, TrackKeyHash> m_tracks;
    std::unordered_map<TrackKey, uint32_t, TrackKeyHash> m_processes; // tid unused
    std::unordered_map<TrackId, std::vector<uint32_t>> m_openBegins;
    bool m_topLevelArray = false;
    bool m_firstElementNotAnEvent = false; // a top-level array's element 0 is no event object: other JSON, not a trace
    bool m_sawTraceEvents = false;
    bool m_sawModernCategory = false, m_sawOldCategory = false, m_sawLegacyPid = false;
    uint64_t m_nextProgressAt = 1 << 20;
    OpInputList m_opInputs; // reused for torch's FLOPs of each op
    // torch's FLOPs by (op name, input list): the lists are stored once each, and most ops repeat.
    std::unordered_map<uint64_t, uint64_t> m_flopsByNameAndInputs;
    std::vector<uint8_t> m_kindOfCategory; // by category StringId: the EventKind plus one, 0 until classified
    StringId m_zero = kNoIndex;            // "0", the pid or tid of an event without one
    TrackKey m_lastTrackKey{kNoIndex, kNoIndex, false, false};
    TrackId m_lastTrack = 0;
    // Parallel loading: worker threads, chunk size, and the chunk being merged with its id maps.
    unsigned m_threads;
    size_t m_chunkBytes;
    bool m_wentParallel = false;
    const EventChunk* m_chunk = nullptr;
    std::vector<StringId> m_chunkStrings; // chunk string id -> trace string id, kNoIndex until needed
    std::vector<uint32_t> m_chunkInputs;  // chunk op-input list -> trace list, kNoIndex until needed
    OpInputReader m_mergeInputs;          // files chunk lists in the trace's table, reusing equal ones
};

// Files TileScope reads elsewhere get their own name instead of a JSON or structure error, in the loader
// so the CLI and the app's error dialog say the same.
void Loader::notATrace(const std::string& what, bool memoryData)
{
    m_sawTraceEvents = false; // not a trace that --partial could keep part of
    io::TraceFileError error(m_source.name(), std::nullopt, "this is " + what + ", not a trace");
    error.setMemoryData(memoryData);
    error.setNotATrace(true);
    throw error;
}

void Loader::identifyNonTrace()
{
    // A pickle starts with PROTO: 0x80 and the protocol (2 to 5); the allocator's snapshot is a dict
    // whose first key is "segments".
    const std::string_view head = m_reader.lookahead(64);
    // A byte-order mark: JSON forbids one (RFC 8259 §8.1), and Python's json.load refuses it too; name it rather
    // than "found 0xef".
    if (head.starts_with("\xEF\xBB\xBF"))
        m_reader.failAt(0,
                        "the file starts with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it without "
                        "one (e.g. `sed -i '1s/^\\xEF\\xBB\\xBF//' FILE` on a copy)");
    if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5) {
        if (head.find("segments") != std::string_view::npos)
            notATrace("a CUDA allocator snapshot (torch.cuda.memory._snapshot() pickle)", true);
        notATrace("a Python pickle", false);
    }
}

// A top-level array whose first element is an array of numbers: prof.export_memory_timeline's JSON is
// [times, sizes per category] (the second element an array of arrays); its raw export is a list of
// [time, action, ...] records (the second element an array of numbers).
void Loader::identifyArrayOfArrays()
{
    JsonToken token = m_reader.next();
    if (token != JsonToken::Number && token != JsonToken::ArrayEnd)
        return;
    if (token == JsonToken::Number)
        m_reader.skipValue(JsonToken::ArrayBegin);
    if (m_reader.next() != JsonToken::ArrayBegin)
        return;
    token = m_reader.next();
    if (token == JsonToken::ArrayBegin)
        notATrace("a torch memory timeline export (prof.export_memory_timeline: times and sizes per category)", true);
    if (token == JsonToken::Number)
        notATrace("a torch memory timeline export (prof.export_memory_timeline raw: [time, action, ...] records)", true);
}

std::unique_ptr<Trace> Loader::run()
{
    identifyNonTrace();
    try {
        const JsonToken first = m_reader.next();
        if (first == JsonToken::ObjectBegin) {
            readTopLevelObject();
        } else if (first == JsonToken::ArrayBegin) {
            m_topLevelArray = true;
            m_sawTraceEvents = true;
            readEventArray();
        } else {
            failAt(m_reader.tokenOffset(),
                   std::string("expected a JSON object or array at the top level, found ") + io::jsonTokenName(first));
        }
        if (m_reader.next() != JsonToken::End)
            failAt(m_reader.tokenOffset(), "unexpected data after the end of the trace");
    } catch (const io::TraceFileError& error) {
        if (m_wentParallel)
            throw ParallelLoadFailed();
        if (!m_sawTraceEvents)
            throw;
        if (m_firstElementNotAnEvent) {
            // A top-level array whose first element is no trace event ([1, 2], torch's key averages as a list)
            // is some other JSON, not a damaged trace.
            io::TraceFileError notTrace = error;
            notTrace.setNotATrace(true);
            throw notTrace;
        }
        if (!m_options.partial) {
            io::TraceFileError withPrefix = error; // tells the caller a partial load would keep something
            withPrefix.setCompleteEventsBefore(t().events.size() + t().memory.size());
            throw withPrefix;
        }
        t().stats.partial = true;
        t().stats.partialStopOffset = error.offset();
        t().stats.partialStopReason = error.problem();
        t().stats.warnings.push_back("partial load: stopped at " + std::string(error.what()) + "; kept "
                                     + std::to_string(t().events.size() + t().memory.size()) + " complete events");
    }
    if (!m_sawTraceEvents) {
        io::TraceFileError error(m_source.name(), std::nullopt, "no 'traceEvents' array: this is not a Chrome/Kineto trace");
        error.setNotATrace(true);
        throw error;
    }

    closeOpenBegins();
    auto& meta = t().meta;
    if (m_topLevelArray)
        meta.format = m_sawLegacyPid ? TraceFormat::LegacyAutograd : TraceFormat::ChromeArray;
    else if (m_sawOldCategory && !m_sawModernCategory)
        meta.format = TraceFormat::Kineto18;
    else if (m_sawModernCategory || meta.schemaVersion || !meta.devices.empty())
        meta.format = TraceFormat::Kineto;
    else
        meta.format = TraceFormat::ChromeObject;
    t().stats.inputBytes = m_source.totalInputBytes();
    t().stats.decodedBytes = m_reader.bytesRead();
    if (std::string none = noEventsText(t()); !none.empty())
        t().stats.warnings.push_back(std::move(none));
    t().finalize(m_threads);
    return std::move(m_trace);
}

void Loader::readTopLevelObject()
{
    auto& meta = t().meta;
    for (;;) {
        JsonToken token = m_reader.next();
        if (token == JsonToken::ObjectEnd)
            return;
        const std::string key(m_reader.text());
        token = m_reader.next();
        if (key == "traceEvents") {
            if (token == JsonToken::Null)
                continue;
            expect(token, JsonToken::ArrayBegin, "'traceEvents'");
            m_sawTraceEvents = true;
            readEventArray();
        } else if (key == "deviceProperties") {
            readDeviceProperties(token);
        } else if (key == "schemaVersion" && token == JsonToken::Number) {
            meta.schemaVersion = integerValue(token, "'schemaVersion'");
        } else if (key == "baseTimeNanoseconds") {
            meta.baseTimeNs = integerValue(token, "'baseTimeNanoseconds'");
        } else if (key == "displayTimeUnit" && token == JsonToken::String) {
            meta.displayTimeUnit = m_reader.text();
        } else if (key == "traceName" && token == JsonToken::String) {
            meta.traceName = m_reader.text();
        } else {
            m_reader.beginCapture();
            m_reader.skipValue(token);
            std::string raw(m_reader.endCapture());
            const bool on = raw != "0" && raw != "false" && raw != "null";
            if (key == "record_shapes")
                meta.recordShapes = on;
            else if (key == "with_flops")
                meta.withFlops = on;
            else if (key == "profile_memory")
                meta.profileMemory = on;
            else if (key == "with_stack")
                meta.withStack = on;
            if (key == "distributedInfo")
                meta.distributedInfo = std::move(raw);
            else
                meta.otherKeys.emplace_back(key, std::move(raw));
        }
    }
}

void Loader::readDeviceProperties(JsonToken first)
{
    if (first == JsonToken::Null)
        return;
    expect(first, JsonToken::ArrayBegin, "'deviceProperties'");
    for (;;) {
        JsonToken token = m_reader.next();
        if (token == JsonToken::ArrayEnd)
            return;
        expect(token, JsonToken::ObjectBegin, "a 'deviceProperties' entry");
        m_reader.beginCapture();
        DeviceProperties device;
        std::vector<std::pair<std::string, int64_t>> numbers;
        for (;;) {
            token = m_reader.next();
            if (token == JsonToken::ObjectEnd)
                break;
            const std::string key(m_reader.text());
            token = m_reader.next();
            if (key == "name" && token == JsonToken::String) {
                device.name = m_reader.text();
            } else if (token == JsonToken::Number) {
                if (const auto v = io::parseExactInteger(m_reader.text()))
                    numbers.emplace_back(key, *v);
            } else {
                m_reader.skipValue(token);
            }
        }
        device.rawJson = m_reader.endCapture();
        for (const auto& [key, v] : numbers) {
            if (key == "id")
                device.id = v;
            else if (key == "totalGlobalMem")
                device.totalGlobalMem = v;
            else if (key == "computeMajor")
                device.computeMajor = v;
            else if (key == "computeMinor")
                device.computeMinor = v;
            else if (key == "numSms")
                device.numSms = v;
            else if (key == "maxThreadsPerBlock")
                device.maxThreadsPerBlock = v;
            else if (key == "maxThreadsPerMultiprocessor")
                device.maxThreadsPerMultiprocessor = v;
            else if (key == "regsPerBlock")
                device.regsPerBlock = v;
            else if (key == "regsPerMultiprocessor")
                device.regsPerMultiprocessor = v;
            else if (key == "warpSize")
                device.warpSize = v;
            else if (key == "sharedMemPerBlock")
                device.sharedMemPerBlock = v;
            else if (key == "sharedMemPerBlockOptin")
                device.sharedMemPerBlockOptin = v;
            else if (key == "sharedMemPerMultiprocessor")
                device.sharedMemPerMultiprocessor = v;
        }
        t().meta.devices.push_back(std::move(device));
    }
}

void Loader::reportProgress()
{
    const uint64_t consumed = m_source.consumedInputBytes();
    if (consumed < m_nextProgressAt)
        return;
    m_nextProgressAt = consumed + (1 << 20);
    if (m_options.cancel && m_options.cancel->load(std::memory_order_relaxed))
        throw io::LoadCancelled();
    if (m_options.progress)
        m_options.progress({consumed, m_source.totalInputBytes(), t().events.size() + t().memory.size()});
}

// Room for the events a file of this size may hold, set aside before the first is read, so that the vector
// never moves: each move copied every event into fresh pages (a tenth of a load's time went to page faults,
// half of them there). Capacity that is never written costs address space, not memory (but commit charge
// where overcommit is strict, so the estimate is kept near the need). Kineto's events take 340-520 bytes
// of JSON (HTA's, the H200 fixtures, the generated ones); a trace of smaller ones grows it once or twice.
// The flows likewise: a launch's ac2g pair and the fwdbwd pairs come to one flow per 700-2,000 bytes.
void Loader::reserveEvents()
{
    const uint64_t json = expectedJsonBytes(m_source);
    const uint64_t events = std::min<uint64_t>(json / 256, uint64_t(1) << 23); // at most 512 MiB
    const uint64_t flows = std::min<uint64_t>(json / 512, uint64_t(1) << 23);  // at most 256 MiB
    try {
        if (events > t().events.capacity())
            t().events.reserve(static_cast<size_t>(events));
        if (flows > t().flows.capacity())
            t().flows.reserve(static_cast<size_t>(flows));
    } catch (const std::bad_alloc&) { // no address space to spare: the vectors grow as they go
    }
}

void Loader::readEventArray()
{
    reserveEvents();
    if (m_threads > 1) {
        readEventArrayInParallel();
        return;
    }
    for (;;) {
        const JsonToken token = m_reader.next();
        if (token == JsonToken::ArrayEnd)
            break;
        if (token == JsonToken::ArrayBegin && m_topLevelArray && t().stats.records == 0) {
            const uint64_t offset = m_reader.tokenOffset();
            identifyArrayOfArrays();
            m_firstElementNotAnEvent = true;
            failAt(offset, "element 0 of the top-level array is an array, expected a trace event object");
        }
        if (token != JsonToken::ObjectBegin) {
            m_firstElementNotAnEvent = m_topLevelArray && t().stats.records == 0;
            failAt(m_reader.tokenOffset(),
                   std::string(m_topLevelArray ? "element " : "traceEvents element ") + std::to_string(t().stats.records)
                       + (m_topLevelArray ? " of the top-level array is " : " is ") + io::jsonTokenName(token)
                       + ", expected a trace event object");
        }
        m_parser.readEvent();
        commit();
        ++t().stats.records;
        if ((t().stats.records & 255) == 0)
            reportProgress();
    }
}

// traceEvents in parallel: this thread reads the array in blocks, cuts it into chunks of whole elements,
// hands them to the workers and merges their records back in file order, so that everything stateful
// (tracks, B/E pairs, metadata, the trace's string pool) sees the events exactly as the streaming pass does.
// Memory stays bounded: a few chunks in flight, never the whole file.
//
// Where to cut is guessed (io::ArraySplitter::findLikelySeparator: a "},{" past the chunk's size) and proven
// by the worker's strict parse: a chunk that starts at a real separator parses only if it also ends at one,
// so the chunks merged in order are exactly the array's elements. When a guessed chunk fails to parse, it
// and the chunks after it are put back together and it is cut again by the exact scan (io::ArraySplitter:
// every byte since the chunk's start, strings and nesting tracked), which was a third of this thread's
// instructions when it cut every chunk; after a few wrong guesses (elements that hold arrays of objects, or
// "},{" in their strings), every chunk is. A chunk with no guess in its first 64 KiB past its size, and the
// array's end, are cut exactly too.
constexpr uint64_t kMaxWrongCuts = 3; // then the exact scan only: a wrong guess costs a chunk's parse and a wait for all
constexpr size_t kLookBack = 64;      // a guess window's bytes before the chunk's size (the '}', ',' and whitespace before a '{')

void Loader::readEventArrayInParallel()
{
    m_wentParallel = true;
    uint64_t pendingOffset = m_reader.bytesRead();
    const size_t depth = m_reader.depth();
    const std::string_view unread = m_reader.takeUnread();
    // The bytes read and not yet handed over: pending[0, filled). The rest of pending is room for the next
    // read, written by it without being zeroed first (resize() zeroes only where a buffer grows).
    std::vector<char> pending(unread.begin(), unread.end());
    size_t filled = pending.size();
    // Each chunk is read at once to its size and a small tail, then a tail at a time until its cut: the bytes
    // read past the cut are copied into the next chunk's buffer, and with a tail of 4 KiB that is a few
    // hundred bytes an element (reading in 64 KiB pieces copied half a piece a chunk: with 64 KiB chunks, 8%
    // of the loading thread's time on ns_resolution).
    const size_t tailBlock = std::clamp<size_t>(m_chunkBytes / 8, 1, size_t(4) << 10);
    const size_t guessWindow = 16 * tailBlock; // past the chunk's size
    io::ArraySplitter splitter;
    std::deque<std::unique_ptr<EventChunk>> inFlight; // before the workers: they go first, joined
    std::vector<std::unique_ptr<EventChunk>> spare;   // merged chunks, kept for their buffers
    ChunkWorkers workers(m_threads, m_source, m_options.keepRawArgs);
    // A plain file's chunks are read by their workers: this thread reads only around each guessed cut, in
    // `window`, where it read every byte of the file (past four cores this thread is what the load waits
    // for; on a 130 MB trace its CPU time went from 70 to 51 ms by this, to 41 with eventPages below).
    // Bytes it did read past a guessed cut are dropped and read again by the next chunk's worker, so that
    // the next chunk is read by its worker too. TILESCOPE_LOAD_STREAMED: read every file as a stream (for
    // measurements).
    const bool positional = m_source.canReadAt() && !std::getenv("TILESCOPE_LOAD_STREAMED");
    std::vector<char> window;
    const size_t maxInFlight = 2 * size_t(m_threads) + 1;
    // The merged events' next pages, past 2 MiB of them (TILESCOPE_LOAD_NO_PREFAULT: none, for measurements).
    PrefaultAhead eventPages(size_t(1) << 20);
    const bool prefault = !std::getenv("TILESCOPE_LOAD_NO_PREFAULT");
    bool guessing = !std::getenv("TILESCOPE_LOAD_EXACT_CUTS"); // off: every chunk cut exactly (for measurements)
    bool exactChunk = !guessing;                               // the chunk being cut: scanned exactly
    size_t searched = 0;                                       // the guess search of the chunk being cut went up to here
    size_t scanned = 0;                                        // the exact scan of the chunk being cut went up to here
    bool anyChunk = false;                                     // the chunk being cut follows a ','
    const auto startChunk = [&] {
        exactChunk = !guessing;
        searched = scanned = 0;
        splitter = io::ArraySplitter();
    };
    // A guessed chunk that does not parse: it and the chunks after it become pending again, in their order
    // with their separators, and the rest of the array is cut exactly. If the bytes are bad, the exact cut
    // hands them to a worker again, whose error ends the parallel load as before.
    const auto cutExactlyFromFront = [&] {
        for (const auto& chunk : inFlight)
            workers.wait(chunk.get());
        if (positional) { // read again from the front chunk's start
            pendingOffset = inFlight.front()->offset;
            m_source.seek(pendingOffset);
            filled = 0;
        } else {
            std::vector<char> joined;
            size_t size = filled;
            for (const auto& chunk : inFlight)
                size += chunk->textSize + 1;
            joined.reserve(std::max(size, m_chunkBytes) + tailBlock);
            for (const auto& chunk : inFlight) {
                joined.insert(joined.end(), chunk->text.begin(), chunk->text.begin() + static_cast<ptrdiff_t>(chunk->textSize));
                joined.push_back(chunk->terminator);
            }
            joined.insert(joined.end(), pending.begin(), pending.begin() + static_cast<ptrdiff_t>(filled));
            pendingOffset -= size - filled;
            filled = size;
            joined.resize(std::max(size, m_chunkBytes) + tailBlock);
            pending = std::move(joined);
        }
        anyChunk = inFlight.front()->afterSeparator;
        for (auto& chunk : inFlight) {
            chunk->recycle();
            spare.push_back(std::move(chunk));
        }
        inFlight.clear();
        ++t().stats.wrongCuts;
        guessing = t().stats.wrongCuts < kMaxWrongCuts;
        startChunk();
        exactChunk = true;
    };
    // Merges the oldest chunk; false when it was a wrong guess and pending was rebuilt (cut it again).
    const auto mergeOldest = [&] {
        EventChunk& oldest = *inFlight.front();
        workers.wait(&oldest);
        if (oldest.error && oldest.guessed) {
            cutExactlyFromFront();
            return false;
        }
        mergeChunk(oldest);
        if (prefault)
            eventPages.filledTo(t().events);
        spare.push_back(std::move(inFlight.front()));
        spare.back()->recycle();
        inFlight.pop_front();
        return true;
    };
    // Merges the oldest chunks while `more()` says so; false when one was a wrong guess and pending was rebuilt.
    const auto mergeOldestWhile = [&](auto more) {
        while (!inFlight.empty() && more())
            if (!mergeOldest())
                return false;
        return true;
    };
    const auto mergeAllInFlight = [&] { return mergeOldestWhile([] { return true; }); };
    // Hands a chunk of `size` bytes to a worker; the next chunk starts.
    const auto submit = [&](std::unique_ptr<EventChunk> chunk, size_t size, char terminator) {
        chunk->textSize = size;
        chunk->terminator = terminator;
        chunk->guessed = !exactChunk;
        chunk->afterSeparator = anyChunk;
        chunk->depth = depth;
        workers.submit(chunk.get());
        inFlight.push_back(std::move(chunk));
        ++t().stats.parallelChunks;
        anyChunk = true;
        startChunk();
    };
    const auto takeChunk = [&] { // a merged chunk's buffers, else a new one
        if (spare.empty())
            return std::make_unique<EventChunk>();
        std::unique_ptr<EventChunk> chunk = std::move(spare.back());
        spare.pop_back();
        return chunk;
    };
    // Hands pending[0, end) to a worker; pending goes on with its bytes from `next` (in the chunk's old
    // buffer), or from the file at their offset where the next chunk is to be read by its worker.
    const auto dispatch = [&](size_t end, size_t next, char terminator) {
        std::unique_ptr<EventChunk> chunk = takeChunk();
        chunk->offset = pendingOffset;
        chunk->readByWorker = false;
        const bool dropRest = positional && guessing && terminator == ',';
        const size_t rest = dropRest ? 0 : filled - next;
        if (chunk->text.size() < std::max(rest, m_chunkBytes) + tailBlock)
            chunk->text.resize(std::max(rest, m_chunkBytes) + tailBlock);
        std::copy(pending.begin() + static_cast<ptrdiff_t>(next), pending.begin() + static_cast<ptrdiff_t>(next + rest),
                  chunk->text.begin());
        std::swap(chunk->text, pending);
        filled = rest;
        pendingOffset += next;
        if (dropRest)
            m_source.seek(pendingOffset);
        submit(std::move(chunk), end, terminator);
    };
    // Hands the file's bytes [pendingOffset, +size) to a worker that reads them itself (pending is empty).
    const auto dispatchUnread = [&](size_t size) {
        std::unique_ptr<EventChunk> chunk = takeChunk();
        chunk->offset = pendingOffset;
        chunk->readByWorker = true;
        pendingOffset += size + 1;
        m_source.seek(pendingOffset);
        ++t().stats.chunksReadByWorkers;
        submit(std::move(chunk), size, ',');
    };
    for (;;) {
        // Room for one more chunk first: merging may find a wrong guess and rebuild pending.
        if (!mergeOldestWhile([&] { return inFlight.size() >= maxInFlight; }))
            continue;
        if (!exactChunk && positional && filled == 0) {
            // The guess from a window of the file past the chunk's size, read a tail at a time (the guess is
            // mostly in the first); none there: the chunk is read and cut below, as a stream's.
            const size_t back = std::min(kLookBack, m_chunkBytes);
            const uint64_t windowStart = pendingOffset + m_chunkBytes - back;
            size_t cut = SIZE_MAX;
            window.resize(back + guessWindow);
            for (size_t got = 0, searchedTo = back; cut == SIZE_MAX && got < window.size(); searchedTo = got) {
                const size_t more = m_source.readAt(windowStart + got, window.data() + got,
                                                    std::min(tailBlock + (got ? 0 : back), window.size() - got));
                if (more == 0)
                    break;
                got += more;
                cut = io::ArraySplitter::findLikelySeparator(window.data(), searchedTo, got);
            }
            if (cut != SIZE_MAX) {
                dispatchUnread(m_chunkBytes - back + cut);
                continue;
            }
        }
        if (!exactChunk) {
            const size_t cut = io::ArraySplitter::findLikelySeparator(pending.data(), std::max(searched, m_chunkBytes), filled);
            if (cut != SIZE_MAX) {
                dispatch(cut, cut + 1, ',');
                continue;
            }
            searched = filled;
            if (filled >= m_chunkBytes + guessWindow) {
                exactChunk = true;
                // The exact scan starts where this chunk starts, a separator only if the guessed chunks before it
                // parse: they are merged first, or a wrong guess could send the scan reading to the file's end.
                if (!mergeAllInFlight())
                    continue;
            }
        }
        if (exactChunk) {
            const io::ArraySplitter::Result found = splitter.scan(pending.data(), scanned, filled, m_chunkBytes);
            if (found.malformed) {
                if (!mergeAllInFlight()) // a wrong guess before: cut again from there
                    continue;
                throw ParallelLoadFailed();
            }
            if (found.arrayEnd != SIZE_MAX) {
                // An empty array has no chunk; after a ',' an empty chunk is an error the worker reports.
                size_t rest = 0; // where the bytes after the ']' start in pending
                if (anyChunk || std::string_view(pending.data(), found.arrayEnd).find_first_not_of(" \t\r\n") != std::string_view::npos)
                    dispatch(found.arrayEnd, found.arrayEnd + 1, ']');
                else
                    rest = found.arrayEnd + 1;
                if (!mergeAllInFlight())
                    continue;
                m_reader.resumeAfterArray(std::string_view(pending.data() + rest, filled - rest), pendingOffset + rest);
                eventPages.finish(t().events);
                return;
            }
            if (found.separator != SIZE_MAX) {
                dispatch(found.separator, found.separator + 1, ',');
                continue;
            }
            scanned = filled;
        }
        if (!mergeOldestWhile([&] { return workers.isDone(inFlight.front().get()); }))
            continue;
        const size_t want = filled < m_chunkBytes ? m_chunkBytes + tailBlock - filled : tailBlock;
        if (pending.size() < filled + want)
            pending.resize(filled + want);
        const size_t got = m_source.read(pending.data() + filled, want);
        filled += got;
        if (got == 0) {
            if (exactChunk) { // truncated: the streaming pass says where, or keeps what it can with --partial
                if (!mergeAllInFlight())
                    continue;
                throw ParallelLoadFailed();
            }
            // The array's end, or a truncated file: the exact scan finds which. It may start after a wrong guess
            // still in flight: what it finds is then undone with that guess, and it fails only once they merged.
            exactChunk = true;
        }
    }
}

void Loader::mergeChunk(EventChunk& chunk)
{
    if (chunk.error) {
        try {
            std::rethrow_exception(chunk.error);
        } catch (const io::TraceFileError&) {
            throw ParallelLoadFailed();
        }
    }
    Trace& tr = t();
    m_chunk = &chunk;
    m_chunkStrings.assign(chunk.strings.size(), kNoIndex);
    m_chunkInputs.assign(chunk.opInputs.size(), kNoIndex);
    for (const ParsedRecord& local : chunk.records) {
        m_rec = local;
        m_rec.name = chunkString(local.name);
        m_rec.cat = chunkString(local.cat);
        m_rec.pid = chunkString(local.pid);
        m_rec.tid = chunkString(local.tid);
        if (local.hasDetails) {
            m_details = chunk.details[local.details];
            m_details.argName = chunkString(m_details.argName);
            m_details.argLabels = chunkString(m_details.argLabels);
            m_details.dtype = chunkString(m_details.dtype);
            m_details.collectiveName = chunkString(m_details.collectiveName);
        }
        if (local.hasId && local.idIsString)
            m_rec.id = chunkString(static_cast<StringId>(local.id));
        m_counters.clear();
        for (uint32_t i = 0; i < local.counterCount; ++i) {
            const auto& [key, value] = chunk.counters[local.counterBegin + i];
            m_counters.emplace_back(chunkString(key), value);
        }
        if (local.argsRef != kNoIndex)
            m_rec.argsRef = storeRawArgs(chunk.rawArgs(local.argsRef));
        commit();
        ++tr.stats.records;
        if ((tr.stats.records & 255) == 0)
            reportProgress();
    }
    m_chunk = nullptr;
}

StringId Loader::chunkString(StringId local)
{
    StringId& id = m_chunkStrings[local];
    if (id == kNoIndex)
        id = t().strings.intern(m_chunk->strings.view(local));
    return id;
}

// The op inputs of the record being committed, filed in the trace's table.
uint32_t Loader::storeInputs()
{
    Trace& tr = t();
    if (!m_chunk)
        return m_parser.inputs().store(tr.opInputs, tr.strings);
    uint32_t& list = m_chunkInputs[m_rec.inputs];
    if (list == kNoIndex) {
        m_mergeInputs.assign(m_chunk->opInputs, m_rec.inputs, m_chunk->strings);
        list = m_mergeInputs.store(tr.opInputs, tr.strings);
    }
    return list;
}

// Every event's raw args pass here, in file order.
uint32_t Loader::storeRawArgs(std::string_view raw) { return t().args.append(raw); }

uint32_t Loader::processFor(StringId pid, bool pidIsString)
{
    const TrackKey key{pid, 0, pidIsString, false};
    const auto [it, inserted] = m_processes.try_emplace(key, static_cast<uint32_t>(t().processes.size()));
    if (inserted) {
        Process p;
        p.pidText = pid;
        p.pidIsString = pidIsString;
        p.pid = numericValue(t().strings.view(pid));
        t().processes.push_back(p);
    }
    return it->second;
}

TrackId Loader::trackFor(StringId pid, bool pidIsString, StringId tid, bool tidIsString)
{
    const TrackKey key{pid, tid, pidIsString, tidIsString};
    if (key == m_lastTrackKey) // events come in runs of one thread
        return m_lastTrack;
    if (const auto it = m_tracks.find(key); it != m_tracks.end()) {
        m_lastTrackKey = key;
        m_lastTrack = it->second;
        return it->second;
    }
    const auto id = static_cast<TrackId>(t().tracks.size());
    Track track;
    track.process = processFor(pid, pidIsString);
    track.tidText = tid;
    track.tidIsString = tidIsString;
    track.tid = numericValue(t().strings.view(tid));
    t().tracks.push_back(std::move(track));
    m_tracks.emplace(key, id);
    return id;
}

EventKind Loader::kindFor()
{
    if (m_rec.hasCat) {
        const std::string_view cat = t().strings.view(m_rec.cat);
        // Few distinct categories: each is classified once.
        if (m_rec.cat >= m_kindOfCategory.size())
            m_kindOfCategory.resize(m_rec.cat + 1, 0);
        uint8_t& known = m_kindOfCategory[m_rec.cat];
        if (known == 0)
            known = static_cast<uint8_t>(eventKindFromCategory(cat)) + 1;
        const auto kind = static_cast<EventKind>(known - 1);
        if (kind != EventKind::Other && kind != EventKind::TraceSpan && kind != EventKind::Instant) {
            const bool old = !cat.empty() && cat[0] >= 'A' && cat[0] <= 'Z';
            (old ? m_sawOldCategory : m_sawModernCategory) = true;
        }
        return kind;
    }
    if (m_rec.hasPid && m_rec.pidIsString) {
        const std::string_view pid = t().strings.view(m_rec.pid);
        // Python's export_chrome_trace writes "CPU functions"; LibTorch's C++ writer
        // (writeProfilerEventsToStream, RecordProfile) writes "CPU Functions".
        if (pid == "CPU functions" || pid == "CPU Functions") {
            m_sawLegacyPid = true;
            return EventKind::CpuOp;
        }
        if (pid == "CUDA functions") {
            m_sawLegacyPid = true;
            return EventKind::Kernel;
        }
    }
    return EventKind::Other;
}

void Loader::commit()
{
    Trace& tr = t();
    const char phase = m_rec.phase;
    if (phase == 0) {
        m_firstElementNotAnEvent = m_topLevelArray && tr.stats.records == 0;
        failAt(m_rec.offset, "event " + std::to_string(tr.stats.records) + " has no 'ph' (phase)");
    }
    if (phase == 'M') {
        commitMetadata();
        return;
    }
    if (!m_rec.hasTs)
        failAt(m_rec.offset,
               "event " + std::to_string(tr.stats.records) + " ('" + std::string(tr.strings.view(m_rec.name)) + "', ph '"
                   + std::string(1, phase) + "') has no 'ts'");
    if (m_zero == kNoIndex)
        m_zero = tr.strings.intern("0");
    const StringId zero = m_zero;
    const TrackId track = trackFor(m_rec.hasPid ? m_rec.pid : zero, m_rec.hasPid && m_rec.pidIsString, m_rec.hasTid ? m_rec.tid : zero,
                                   m_rec.hasTid && m_rec.tidIsString);
    auto makeEvent = [&](EventKind kind, int64_t duration) {
        Event e{};
        e.start = m_rec.ts;
        e.duration = duration;
        e.externalId = m_rec.externalId;
        e.correlation = m_rec.correlation;
        e.name = m_rec.name;
        e.category = m_rec.cat;
        e.track = track;
        e.parent = kNoIndex;
        e.args = m_rec.argsRef;
        e.op = kNoIndex;
        e.kind = kind;
        commitOp(e);
        return e;
    };
    switch (phase) {
    case 'X': {
        if (!m_rec.hasDur)
            failAt(m_rec.offset,
                   "complete event " + std::to_string(tr.stats.records) + " ('" + std::string(tr.strings.view(m_rec.name))
                       + "') has no 'dur'");
        if (m_rec.dur < 0)
            failAt(m_rec.offset,
                   "event " + std::to_string(tr.stats.records) + " ('" + std::string(tr.strings.view(m_rec.name))
                       + "') has a negative duration");
        tr.events.push_back(makeEvent(kindFor(), m_rec.dur));
        return;
    }
    case 'B':
        m_openBegins[track].push_back(static_cast<uint32_t>(tr.events.size()));
        tr.events.push_back(makeEvent(kindFor(), 0));
        tr.events.back().flags |= FromBeginEnd | UnclosedBegin;
        return;
    case 'E': {
        auto& open = m_openBegins[track];
        if (open.empty()) {
            ++tr.stats.ignoredRecords;
            return;
        }
        Event& begin = tr.events[open.back()];
        open.pop_back();
        if (m_rec.ts < begin.start)
            failAt(m_rec.offset, "end event before its begin ('" + std::string(tr.strings.view(begin.name)) + "')");
        begin.duration = m_rec.ts - begin.start;
        begin.flags &= static_cast<uint8_t>(~UnclosedBegin);
        return;
    }
    case 'i':
    case 'I': {
        const std::string_view name = tr.strings.view(m_rec.name);
        if (name == "[memory]" || name == "[OutOfMemory]") {
            commitMemory(track);
            return;
        }
        tr.events.push_back(makeEvent(EventKind::Instant, 0));
        return;
    }
    case 's':
    case 't':
    case 'f':
        tr.flows.push_back({m_rec.ts, m_rec.hasId ? m_rec.id : 0, m_rec.cat, track, phase, m_rec.bindsEnclosing, m_rec.idIsString});
        return;
    case 'C':
        for (const auto& [key, value] : m_counters) {
            std::string series(tr.strings.view(m_rec.name));
            series += '.';
            series += tr.strings.view(key);
            tr.counters.push_back({m_rec.ts, track, tr.strings.intern(series), value});
        }
        return;
    default: ++tr.stats.ignoredRecords; return;
    }
}

// What analyses need from the args, structured (the raw args text is optional): the op's inputs and
// torch's FLOPs over them, a transfer's size, a collective's message.
void Loader::commitOp(Event& e)
{
    Trace& tr = t();
    const auto index = static_cast<uint32_t>(tr.events.size()); // the event is appended next
    if (m_rec.hasInputs) {
        const uint32_t list = storeInputs();
        const auto [flops, first] = m_flopsByNameAndInputs.try_emplace((uint64_t(m_rec.name) << 32) | list, 0);
        if (first) {
            tr.opInputs.get(list, tr.strings, m_opInputs);
            flops->second = computeFlops(tr.strings.view(m_rec.name), m_opInputs.inputs);
        }
        e.op = static_cast<uint32_t>(tr.ops.size());
        tr.ops.push_back({tr.opInputs.shapesText(list), tr.opInputs.typesText(list), flops->second, m_rec.sequence, list});
    }
    const RecordDetails& d = details();
    if (d.transferBytes && (e.kind == EventKind::GpuMemcpy || e.kind == EventKind::GpuMemset))
        tr.transferBytes.emplace_back(index, *d.transferBytes);
    if (d.hasMessage)
        tr.collectiveArgs.push_back({index, d.collectiveName, d.dtype, d.hasDtype, d.inNelems, d.outNelems, d.groupSize});
}

void Loader::commitMemory(TrackId track)
{
    Trace& tr = t();
    const RecordDetails& d = details();
    if (!d.bytes) {
        ++tr.stats.ignoredRecords;
        return;
    }
    MemoryRecord m{};
    m.time = m_rec.ts;
    m.bytes = *d.bytes;
    m.totalAllocated = d.totalAllocated.value_or(kNoId);
    m.totalReserved = d.totalReserved.value_or(kNoId);
    m.address = d.address.value_or(kNoId);
    m.track = track;
    m.deviceType = static_cast<int16_t>(d.deviceType.value_or(0));
    m.deviceId = static_cast<int16_t>(d.deviceId.value_or(-1));
    m.outOfMemory = tr.strings.view(m_rec.name) == "[OutOfMemory]";
    tr.memory.push_back(m);
}

void Loader::commitMetadata()
{
    Trace& tr = t();
    if (!m_rec.hasPid)
        return;
    const std::string_view what = tr.strings.view(m_rec.name);
    const RecordDetails& d = details();
    Process& process = tr.processes[processFor(m_rec.pid, m_rec.pidIsString)];
    if (what == "process_name" && d.hasArgName) {
        process.name = d.argName;
    } else if (what == "process_labels" && d.hasArgLabels) {
        process.labels = d.argLabels;
    } else if (what == "process_sort_index" && d.sortIndex) {
        process.sortIndex = d.sortIndex;
    } else if (what == "thread_name" && d.hasArgName && m_rec.hasTid) {
        Track& track = tr.tracks[trackFor(m_rec.pid, m_rec.pidIsString, m_rec.tid, m_rec.tidIsString)];
        const std::string_view current = tr.strings.view(track.name);
        // Keep the first specific name: Kineto repeats records and sometimes adds a generic one.
        if (track.name == 0 || (isGenericThreadName(current) && !isGenericThreadName(tr.strings.view(d.argName))))
            track.name = d.argName;
    } else if (what == "thread_sort_index" && d.sortIndex && m_rec.hasTid) {
        tr.tracks[trackFor(m_rec.pid, m_rec.pidIsString, m_rec.tid, m_rec.tidIsString)].sortIndex = d.sortIndex;
    }
}

void Loader::closeOpenBegins()
{
    Trace& tr = t();
    int64_t last = 0;
    for (const Event& e : tr.events)
        last = std::max(last, e.end());
    uint64_t unclosed = 0;
    for (auto& [track, open] : m_openBegins) {
        for (const uint32_t index : open) {
            tr.events[index].duration = std::max<int64_t>(0, last - tr.events[index].start);
            ++unclosed;
        }
    }
    if (unclosed > 0)
        tr.stats.warnings.push_back(std::to_string(unclosed)
                                    + " 'B' events have no matching 'E'; they are shown up to the end of the trace");
}

} // namespace

namespace {

// The threads asked for (options.threads, else TILESCOPE_LOAD_THREADS); 0 when the choice is left to
// the loader.
unsigned requestedThreads(const LoadOptions& options)
{
    if (options.threads > 0)
        return options.threads;
    if (const char* env = std::getenv("TILESCOPE_LOAD_THREADS"))
        if (const int n = std::atoi(env); n > 0)
            return static_cast<unsigned>(n);
    return 0;
}

// Under this much JSON one streaming pass is done before the threads of a parallel one would pay for
// their start (whole summary process: a 0.75 MB trace 5.6 ms in one pass against 6.2 ms on two threads,
// a 96 kB one 3.1 against 3.8 ms; a 4.6 MB one 19.7 against 19.1 ms).
constexpr uint64_t kParallelFromJsonBytes = uint64_t(2) << 20;

} // namespace

unsigned loadThreads(const LoadOptions& options)
{
    if (options.threads > 0)
        return options.threads;
    // TILESCOPE_LOAD_THREADS, else the cores; a limit (a rank set's share) caps either.
    const unsigned requested = requestedThreads(options);
    const unsigned count = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
    return options.maxThreads > 0 ? std::min(count, options.maxThreads) : count;
}

std::unique_ptr<Trace> loadTrace(io::ByteSource& source, const LoadOptions& options)
{
    Loader loader(source, options, 1);
    return loader.run();
}

std::unique_ptr<Trace> loadTrace(const std::function<std::unique_ptr<io::ByteSource>()>& open, const LoadOptions& options)
{
    const unsigned threads = loadThreads(options);
    if (threads > 1) {
        auto source = open();
        const uint64_t json = expectedJsonBytes(*source);
        if (requestedThreads(options) == 0 && json > 0 && json < kParallelFromJsonBytes)
            return loadTrace(*source, options);
        // Inflating is the one part of a compressed trace's load no chunk can take: it runs ahead on a
        // thread of its own while this one splits and merges, in blocks of a chunk's size (few in flight: a
        // small trace's peak stays where it was).
        if (source->isCompressed()) {
            const size_t block = defaultChunkBytes(*source);
            source = io::readAheadSource(std::move(source), block, 4);
        }
        try {
            Loader loader(*source, options, threads);
            return loader.run();
        } catch (const ParallelLoadFailed&) {
            // bad or unusual input: the streaming pass below reports it as it always has
        }
    }
    const auto source = open();
    return loadTrace(*source, options);
}

std::unique_ptr<Trace> loadTrace(const std::string& path, const LoadOptions& options)
{
    return loadTrace([&path] { return io::openTraceFile(path); }, options);
}

} // namespace tilescope::trace
