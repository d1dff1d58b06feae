// SPDX-License-Identifier: MIT
#include "trace/traceloader.h"

#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/jsonreader.h"
#include "io/tracefileerror.h"

#include <charconv>
#include <cstring>
#include <unordered_map>

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

// One traceEvents element while it is being read; fields arrive in any order.
struct PendingRecord
{
    char phase = 0;
    bool hasName = false, hasCat = false, hasPid = false, hasTid = false, hasTs = false, hasDur = false;
    bool pidIsString = false, tidIsString = false, hasId = false, bindsEnclosing = false;
    bool hasArgs = false;
    StringId name = 0, cat = 0, pid = 0, tid = 0;
    int64_t id = 0;
    bool idIsString = false;
    int64_t ts = 0, dur = 0;
    uint64_t offset = 0;
    // args
    int64_t externalId = kNoId, correlation = kNoId;
    std::optional<int64_t> bytes, totalAllocated, totalReserved, address, deviceType, deviceId, sortIndex;
    std::string argName, argLabels;
    bool hasArgName = false, hasArgLabels = false;
    OpInputReader inputs;
    std::optional<int64_t> sequence;
    std::optional<double> transferBytes;
    // NCCL message args: kept when "In msg nelems" or "Out msg nelems" is there.
    bool hasMessage = false, hasDtype = false;
    std::optional<double> inNelems, outNelems;
    std::optional<int64_t> groupSize;
    std::string dtype, collectiveName;
    std::vector<std::pair<StringId, double>> counterValues;
    uint32_t argsRef = kNoIndex;

    void reset(uint64_t at)
    {
        phase = 0;
        hasName = hasCat = hasPid = hasTid = hasTs = hasDur = false;
        pidIsString = tidIsString = hasId = bindsEnclosing = hasArgs = false;
        name = cat = pid = tid = 0;
        id = 0;
        idIsString = false;
        ts = dur = 0;
        offset = at;
        externalId = correlation = kNoId;
        bytes.reset();
        totalAllocated.reset();
        totalReserved.reset();
        address.reset();
        deviceType.reset();
        deviceId.reset();
        sortIndex.reset();
        hasArgName = hasArgLabels = false;
        inputs.reset();
        sequence.reset();
        transferBytes.reset();
        hasMessage = hasDtype = false;
        inNelems.reset();
        outNelems.reset();
        groupSize.reset();
        dtype.clear();
        collectiveName.clear();
        counterValues.clear();
        argsRef = kNoIndex;
    }
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

class Loader
{
public:
    Loader(io::ByteSource& source, const LoadOptions& options)
        : m_source(source)
        , m_reader(source)
        , m_options(options)
        , m_trace(std::make_unique<Trace>())
    { }

    std::unique_ptr<Trace> run();

private:
    Trace& t() { return *m_trace; }
    [[noreturn]] void failAt(uint64_t offset, const std::string& problem) { m_reader.failAt(offset, problem); }
    void expect(JsonToken got, JsonToken want, const char* what);
    int64_t integerValue(JsonToken token, const char* what);
    StringId internString(JsonToken token, const char* what);

    [[noreturn]] void notATrace(const std::string& what, bool memoryData);
    void identifyNonTrace();
    void identifyArrayOfArrays();
    void readTopLevelObject();
    void readEventArray();
    void readEvent();
    void readArgs();
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
    PendingRecord m_rec;
    std::unordered_map<TrackKey, TrackId, TrackKeyHash> m_tracks;
    std::unordered_map<TrackKey, uint32_t, TrackKeyHash> m_processes; // tid unused
    std::unordered_map<TrackId, std::vector<uint32_t>> m_openBegins;
    bool m_topLevelArray = false;
    bool m_sawTraceEvents = false;
    bool m_insideEvents = false;
    bool m_sawModernCategory = false, m_sawOldCategory = false, m_sawLegacyPid = false;
    uint64_t m_nextProgressAt = 1 << 20;
    OpInputList m_opInputs; // reused for torch's FLOPs of each op
    StringId m_lastCategory = 0;
    std::pair<StringId, std::string_view> m_idCache[2];
    std::string_view m_lastCategoryText;
    EventKind m_lastCategoryKind = EventKind::Other;
};

void Loader::expect(JsonToken got, JsonToken want, const char* what)
{
    if (got != want)
        failAt(m_reader.tokenOffset(),
               std::string("expected ") + io::jsonTokenName(want) + " for " + what + ", found " + io::jsonTokenName(got));
}

int64_t Loader::integerValue(JsonToken token, const char* what)
{
    if (token != JsonToken::Number)
        failAt(m_reader.tokenOffset(), std::string("expected an integer for ") + what + ", found " + io::jsonTokenName(token));
    const auto v = io::parseExactInteger(m_reader.text());
    if (!v)
        failAt(m_reader.tokenOffset(), std::string("expected an integer for ") + what + ", found " + std::string(m_reader.text()));
    return *v;
}

StringId Loader::internString(JsonToken token, const char* what)
{
    expect(token, JsonToken::String, what);
    return t().strings.intern(m_reader.text());
}

// Files TileScope reads elsewhere get their own name instead of a JSON or structure error, in the loader
// so the CLI and the app's error dialog say the same.
void Loader::notATrace(const std::string& what, bool memoryData)
{
    m_sawTraceEvents = false; // not a trace that --partial could keep part of
    io::TraceFileError error(m_source.name(), std::nullopt,
                             "this is " + what + ", not a trace" + (memoryData ? "; open it with `tilescope-cli memory`" : ""));
    error.setMemoryData(memoryData);
    throw error;
}

void Loader::identifyNonTrace()
{
    // A pickle starts with PROTO: 0x80 and the protocol (2 to 5); the allocator's snapshot is a dict
    // whose first key is "segments".
    const std::string_view head = m_reader.lookahead(64);
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
        if (!m_sawTraceEvents)
            throw;
        if (!m_options.partial) {
            io::TraceFileError withPrefix = error; // tells the caller a partial load would keep something
            withPrefix.setCompleteEventsBefore(t().events.size() + t().memory.size());
            throw withPrefix;
        }
        t().stats.partial = true;
        t().stats.warnings.push_back("partial load: stopped at " + std::string(error.what()) + "; kept "
                                     + std::to_string(t().events.size() + t().memory.size()) + " complete events");
    }
    if (!m_sawTraceEvents)
        throw io::TraceFileError(m_source.name(), std::nullopt, "no 'traceEvents' array: this is not a Chrome/Kineto trace");

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
    if (t().events.empty() && t().memory.empty())
        t().stats.warnings.push_back("the trace holds no events");
    t().finalize();
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

void Loader::readEventArray()
{
    m_insideEvents = true;
    for (;;) {
        const JsonToken token = m_reader.next();
        if (token == JsonToken::ArrayEnd)
            break;
        if (token == JsonToken::ArrayBegin && m_topLevelArray && t().stats.records == 0) {
            const uint64_t offset = m_reader.tokenOffset();
            identifyArrayOfArrays();
            failAt(offset, "element 0 of the top-level array is an array, expected a trace event object");
        }
        if (token != JsonToken::ObjectBegin)
            failAt(m_reader.tokenOffset(),
                   std::string(m_topLevelArray ? "element " : "traceEvents element ") + std::to_string(t().stats.records)
                       + (m_topLevelArray ? " of the top-level array is " : " is ") + io::jsonTokenName(token)
                       + ", expected a trace event object");
        readEvent();
        ++t().stats.records;
        if ((t().stats.records & 255) == 0)
            reportProgress();
    }
    m_insideEvents = false;
}

void Loader::readEvent()
{
    m_rec.reset(m_reader.tokenOffset());
    Trace& tr = t();
    for (;;) {
        JsonToken token = m_reader.next();
        if (token == JsonToken::ObjectEnd)
            break;
        const EventField field = eventFieldOf(m_reader.text());
        token = m_reader.next();
        switch (field) {
        case EventField::Ph:
            expect(token, JsonToken::String, "'ph'");
            if (m_reader.text().size() != 1)
                failAt(m_reader.tokenOffset(), "invalid 'ph' \"" + std::string(m_reader.text()) + "\": expected one character");
            m_rec.phase = m_reader.text()[0];
            break;
        case EventField::Cat:
            if (token == JsonToken::Null)
                break;
            expect(token, JsonToken::String, "'cat'");
            // Few distinct categories, mostly repeating: skip the hash when it is the previous one.
            if (m_reader.text() != m_lastCategoryText) {
                m_lastCategory = tr.strings.intern(m_reader.text());
                m_lastCategoryText = tr.strings.view(m_lastCategory);
                m_lastCategoryKind = eventKindFromCategory(m_lastCategoryText);
            }
            m_rec.cat = m_lastCategory;
            m_rec.hasCat = true;
            break;
        case EventField::Name:
            if (token == JsonToken::Number) { // some producers write numeric names
                m_rec.name = tr.strings.intern(m_reader.text());
            } else {
                m_rec.name = internString(token, "'name'");
            }
            m_rec.hasName = true;
            break;
        case EventField::Pid:
        case EventField::Tid: {
            if (token != JsonToken::Number && token != JsonToken::String)
                failAt(m_reader.tokenOffset(),
                       std::string("expected a number or string for '") + (field == EventField::Pid ? "pid" : "tid") + "', found "
                           + io::jsonTokenName(token));
            // pid and tid repeat from one event to the next: skip the hash when the text is the same.
            auto& cache = m_idCache[field == EventField::Pid ? 0 : 1];
            if (m_reader.text() != cache.second) {
                cache.first = tr.strings.intern(m_reader.text());
                cache.second = tr.strings.view(cache.first);
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
                failAt(m_reader.tokenOffset(), std::string("expected a number for ") + what + ", found " + io::jsonTokenName(token));
            const auto ns = io::parseMicrosecondsAsNanoseconds(m_reader.text());
            if (!ns)
                failAt(m_reader.tokenOffset(), std::string(what) + " " + std::string(m_reader.text()) + " is out of range");
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
                m_rec.id = number ? *number : tr.strings.intern(m_reader.text());
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
            expect(token, JsonToken::ObjectBegin, "'args'");
            readArgs();
            break;
        case EventField::Scope:
        case EventField::Other: m_reader.skipValue(token); break;
        }
    }
    commit();
}

void Loader::readArgs()
{
    Trace& tr = t();
    const bool capture = m_options.keepRawArgs;
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
            counterKey = tr.strings.intern(key);
        token = m_reader.next();
        if (token == JsonToken::Null)
            continue;
        if (maybeCounter && analysisArg && token == JsonToken::Number)
            m_rec.counterValues.emplace_back(counterKey, doubleValue(token, m_reader.text()).value_or(0));
        switch (field) {
        case ArgField::ExternalId: m_rec.externalId = integerValue(token, "args 'External id'"); break;
        case ArgField::Correlation: m_rec.correlation = integerValue(token, "args 'correlation'"); break;
        case ArgField::Bytes: m_rec.bytes = integerValue(token, "args 'Bytes'"); break;
        case ArgField::TotalAllocated: m_rec.totalAllocated = integerValue(token, "args 'Total Allocated'"); break;
        case ArgField::TotalReserved: m_rec.totalReserved = integerValue(token, "args 'Total Reserved'"); break;
        case ArgField::Address: m_rec.address = integerValue(token, "args 'Addr'"); break;
        case ArgField::DeviceType: m_rec.deviceType = integerValue(token, "args 'Device Type'"); break;
        case ArgField::DeviceId: m_rec.deviceId = integerValue(token, "args 'Device Id'"); break;
        case ArgField::SortIndex: m_rec.sortIndex = integerValue(token, "args 'sort_index'"); break;
        case ArgField::InputDims: m_rec.inputs.readDims(m_reader, token); break;
        case ArgField::InputType: m_rec.inputs.readTypes(m_reader, token); break;
        case ArgField::InputStrides: m_rec.inputs.readStrides(m_reader, token); break;
        case ArgField::ConcreteInputs: m_rec.inputs.readConcrete(m_reader, token); break;
        // The rest only feed analyses (the roofline's work estimate): never an error, just absent when odd.
        case ArgField::SequenceNumber:
            m_rec.sequence = token == JsonToken::Number ? io::parseExactInteger(m_reader.text()) : std::nullopt;
            m_reader.skipValue(token);
            break;
        case ArgField::TransferBytes:
            m_rec.transferBytes = doubleValue(token, m_reader.text());
            m_reader.skipValue(token);
            break;
        case ArgField::InMsgNelems:
        case ArgField::OutMsgNelems:
            m_rec.hasMessage = true;
            (field == ArgField::InMsgNelems ? m_rec.inNelems : m_rec.outNelems) = doubleValue(token, m_reader.text());
            m_reader.skipValue(token);
            break;
        case ArgField::GroupSize:
            m_rec.groupSize = token == JsonToken::Number ? io::parseExactInteger(m_reader.text()) : std::nullopt;
            m_reader.skipValue(token);
            break;
        case ArgField::Dtype:
        case ArgField::CollectiveName: {
            std::string& target = field == ArgField::Dtype ? m_rec.dtype : m_rec.collectiveName;
            if (token == JsonToken::String || token == JsonToken::Number)
                target = m_reader.text();
            else
                target.clear();
            m_rec.hasDtype = m_rec.hasDtype || field == ArgField::Dtype;
            m_reader.skipValue(token);
            break;
        }
        case ArgField::Name:
            if (token == JsonToken::String) {
                m_rec.argName = m_reader.text();
                m_rec.hasArgName = true;
            } else {
                m_reader.skipValue(token);
            }
            break;
        case ArgField::Labels:
            if (token == JsonToken::String) {
                m_rec.argLabels = m_reader.text();
                m_rec.hasArgLabels = true;
            } else {
                m_reader.skipValue(token);
            }
            break;
        case ArgField::Other:
            if (maybeCounter && token == JsonToken::Number) {
                double value = 0;
                const auto text = m_reader.text();
                std::from_chars(text.data(), text.data() + text.size(), value);
                m_rec.counterValues.emplace_back(counterKey, value);
            } else {
                m_reader.skipValue(token);
            }
            break;
        }
    }
    if (capture)
        m_rec.argsRef = tr.args.append(m_reader.endCapture());
}

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
    if (const auto it = m_tracks.find(key); it != m_tracks.end())
        return it->second;
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
        const EventKind kind = m_rec.cat == m_lastCategory ? m_lastCategoryKind : eventKindFromCategory(cat);
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
    if (phase == 0)
        failAt(m_rec.offset, "event " + std::to_string(tr.stats.records) + " has no 'ph' (phase)");
    if (phase == 'M') {
        commitMetadata();
        return;
    }
    if (!m_rec.hasTs)
        failAt(m_rec.offset,
               "event " + std::to_string(tr.stats.records) + " ('" + std::string(tr.strings.view(m_rec.name)) + "', ph '"
                   + std::string(1, phase) + "') has no 'ts'");
    const StringId zero = tr.strings.intern("0");
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
        for (const auto& [key, value] : m_rec.counterValues) {
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
    if (m_rec.inputs.hasInputs()) {
        const uint32_t list = m_rec.inputs.store(tr.opInputs, tr.strings);
        tr.opInputs.get(list, tr.strings, m_opInputs);
        e.op = static_cast<uint32_t>(tr.ops.size());
        tr.ops.push_back({tr.opInputs.shapesText(list), tr.opInputs.typesText(list),
                          computeFlops(tr.strings.view(m_rec.name), m_opInputs.inputs), m_rec.sequence.value_or(kNoId), list});
    }
    if (m_rec.transferBytes && (e.kind == EventKind::GpuMemcpy || e.kind == EventKind::GpuMemset))
        tr.transferBytes.emplace_back(index, *m_rec.transferBytes);
    if (m_rec.hasMessage)
        tr.collectiveArgs.push_back({index, tr.strings.intern(m_rec.collectiveName), tr.strings.intern(m_rec.dtype), m_rec.hasDtype,
                                     m_rec.inNelems, m_rec.outNelems, m_rec.groupSize});
}

void Loader::commitMemory(TrackId track)
{
    Trace& tr = t();
    if (!m_rec.bytes) {
        ++tr.stats.ignoredRecords;
        return;
    }
    MemoryRecord m{};
    m.time = m_rec.ts;
    m.bytes = *m_rec.bytes;
    m.totalAllocated = m_rec.totalAllocated.value_or(kNoId);
    m.totalReserved = m_rec.totalReserved.value_or(kNoId);
    m.address = m_rec.address.value_or(kNoId);
    m.track = track;
    m.deviceType = static_cast<int16_t>(m_rec.deviceType.value_or(0));
    m.deviceId = static_cast<int16_t>(m_rec.deviceId.value_or(-1));
    m.outOfMemory = tr.strings.view(m_rec.name) == "[OutOfMemory]";
    tr.memory.push_back(m);
}

void Loader::commitMetadata()
{
    Trace& tr = t();
    if (!m_rec.hasPid)
        return;
    const std::string_view what = tr.strings.view(m_rec.name);
    Process& process = tr.processes[processFor(m_rec.pid, m_rec.pidIsString)];
    if (what == "process_name" && m_rec.hasArgName) {
        process.name = tr.strings.intern(m_rec.argName);
    } else if (what == "process_labels" && m_rec.hasArgLabels) {
        process.labels = tr.strings.intern(m_rec.argLabels);
    } else if (what == "process_sort_index" && m_rec.sortIndex) {
        process.sortIndex = m_rec.sortIndex;
    } else if (what == "thread_name" && m_rec.hasArgName && m_rec.hasTid) {
        Track& track = tr.tracks[trackFor(m_rec.pid, m_rec.pidIsString, m_rec.tid, m_rec.tidIsString)];
        const std::string_view current = tr.strings.view(track.name);
        // Keep the first specific name: Kineto repeats records and sometimes adds a generic one.
        if (track.name == 0 || (isGenericThreadName(current) && !isGenericThreadName(m_rec.argName)))
            track.name = tr.strings.intern(m_rec.argName);
    } else if (what == "thread_sort_index" && m_rec.sortIndex && m_rec.hasTid) {
        tr.tracks[trackFor(m_rec.pid, m_rec.pidIsString, m_rec.tid, m_rec.tidIsString)].sortIndex = m_rec.sortIndex;
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

std::unique_ptr<Trace> loadTrace(io::ByteSource& source, const LoadOptions& options)
{
    Loader loader(source, options);
    return loader.run();
}

std::unique_ptr<Trace> loadTrace(const std::string& path, const LoadOptions& options)
{
    auto source = io::openTraceFile(path);
    return loadTrace(*source, options);
}

} // namespace tilescope::trace
