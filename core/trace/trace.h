// SPDX-License-Identifier: MIT
#pragma once

#include "trace/argsstore.h"
#include "trace/eventkind.h"
#include "trace/idindex.h"
#include "trace/ids.h"
#include "trace/opinputs.h"
#include "trace/stringpool.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tilescope::trace {

using TrackId = uint32_t;

// One slice or instant. Times are int64 ns on the file's clock (its `ts`, parsed from the decimal text);
// add TraceMetadata::baseTimeNs for Unix time. Everything else is an index, never a pointer.
struct Event
{
    int64_t start;
    int64_t duration;
    int64_t externalId;  // args "External id" (1.8: "external id"), kNoId when absent
    int64_t correlation; // args "correlation", kNoId when absent
    StringId name;
    StringId category; // the category text as written
    TrackId track;
    uint32_t parent; // enclosing event on the same track, kNoIndex at the top level
    uint32_t args;   // raw args JSON in Trace::args (an ArgsStore entry), kNoIndex when not kept
    uint32_t op;     // Trace::ops entry (input shapes, FLOPs), kNoIndex when none
    EventKind kind;
    uint8_t flags;
    uint16_t depth; // nesting depth on its track
    uint32_t reserved;

    int64_t end() const { return start + duration; }
};
static_assert(sizeof(Event) == 64, "Event must stay one cache line");

enum EventFlags : uint8_t {
    FromBeginEnd = 1,  // built from a B/E pair
    UnclosedBegin = 2, // a B without its E: ends at the trace's end
    PartialOverlap = 4 // overlaps an earlier slice on its track without nesting in it
};

// A `[memory]` or `[OutOfMemory]` instant (trace-format.md §11.1).
struct MemoryRecord
{
    int64_t time;
    int64_t bytes;          // negative for a free; for OOM the failed request
    int64_t totalAllocated; // kNoId when absent (1.8 format)
    int64_t totalReserved;
    int64_t address; // kNoId when absent
    TrackId track;
    int16_t deviceType; // c10::DeviceType
    int16_t deviceId;
    bool outOfMemory;
};

struct Flow
{
    int64_t time;
    int64_t id; // a numeric id, or the StringId of a string id (idIsString)
    StringId category;
    TrackId track;
    char phase; // 's', 't' or 'f'
    bool bindsEnclosing;
    bool idIsString;
};

struct CounterSample
{
    int64_t time;
    TrackId track;
    StringId series; // "name" or "name.key"
    double value;
};

struct OpInfo
{
    StringId inputShapes; // Python str() of torch's input_shapes, e.g. "[[8, 512], []]"
    StringId inputTypes;  // the `Input type` entries joined by ", "
    uint64_t flops;       // torch's computeFlops over the inputs (0 when it has no formula)
    int64_t sequence;     // args "Sequence number" (the autograd node), kNoId when absent
    uint32_t inputs;      // Trace::opInputs list
};

// The message args Kineto records on a NCCL kernel or on the record_param_comms op that launched it.
struct CollectiveArgs
{
    uint32_t event;
    StringId collectiveName; // "Collective name", 0 when absent
    StringId dtype;          // "dtype" (a c10::ScalarType name), 0 when absent
    bool hasDtype;
    std::optional<double> inNelems, outNelems; // "In msg nelems", "Out msg nelems"
    std::optional<int64_t> groupSize;          // "Group size"
};

struct Process
{
    StringId pidText;
    bool pidIsString;
    std::optional<int64_t> pid;
    StringId name = 0;
    StringId labels = 0;
    std::optional<int64_t> sortIndex;
};

struct Track
{
    enum class Type : uint8_t { HostThread, GpuStream, Overhead, Spans, Other };
    Type type = Type::Other;
    uint32_t process = kNoIndex;
    StringId tidText = 0;
    bool tidIsString = false;
    std::optional<int64_t> tid; // numeric value (also of a numeric string)
    StringId name = 0;
    std::optional<int64_t> sortIndex;
    int device = -1; // GPU device index for streams
    std::optional<int64_t> stream;
    std::vector<uint32_t> events; // sorted by start, longer first (stable)
    uint16_t maxDepth = 0;
    uint32_t partialOverlaps = 0;
};

struct DeviceProperties
{
    int64_t id = 0;
    std::string name;
    int64_t totalGlobalMem = 0;
    int64_t computeMajor = 0;
    int64_t computeMinor = 0;
    int64_t numSms = 0;
    int64_t maxThreadsPerBlock = 0;
    int64_t maxThreadsPerMultiprocessor = 0;
    int64_t regsPerBlock = 0;
    int64_t regsPerMultiprocessor = 0;
    int64_t warpSize = 0;
    int64_t sharedMemPerBlock = 0;
    int64_t sharedMemPerBlockOptin = 0;
    int64_t sharedMemPerMultiprocessor = 0;
    std::string rawJson;
};

enum class TraceFormat : uint8_t {
    Kineto,         // torch.profiler / Kineto JSON object
    Kineto18,       // PyTorch 1.8-1.9 Kineto (Operator/Kernel/Runtime categories)
    LegacyAutograd, // torch without Kineto: array of "CPU functions"
    ChromeObject,   // generic Chrome Trace Event Format, object form
    ChromeArray     // generic Chrome Trace Event Format, bare array
};
std::string_view traceFormatName(TraceFormat format);

struct TraceMetadata
{
    TraceFormat format = TraceFormat::ChromeObject;
    std::optional<int64_t> schemaVersion;
    std::optional<int64_t> baseTimeNs;
    std::string displayTimeUnit;
    std::string traceName;
    std::vector<DeviceProperties> devices;
    std::optional<std::string> distributedInfo; // raw JSON
    // Every other top-level key, value as raw JSON text, in file order.
    std::vector<std::pair<std::string, std::string>> otherKeys;
    bool recordShapes = false;
    bool withFlops = false;
    bool profileMemory = false; // the key, or [memory] instants present
    bool withStack = false;
    // Older Kineto writers put the activity's own correlation as External id when it had no op.
    bool externalIdEqualsCorrelationMeansNone = false;
    // The gpu_user_annotation widening that was undone (trace-format.md §3.3), in ns.
    int64_t annotationWideningStart = 0;
    int64_t annotationWideningEnd = 0;

    std::optional<std::string> key(std::string_view name) const;
};

struct LoadStatistics
{
    uint64_t inputBytes = 0;   // bytes of the file
    uint64_t decodedBytes = 0; // JSON bytes after decompression
    uint64_t records = 0;      // elements of traceEvents
    uint64_t ignoredRecords = 0;
    std::vector<std::string> warnings;
    bool partial = false;
    // Where a partial load stopped, and why (the loader's words, without the file's name); empty when whole.
    std::optional<uint64_t> partialStopOffset;
    std::string partialStopReason;
    uint64_t parallelChunks = 0;      // traceEvents chunks parsed in parallel; 0 after one streaming pass
    uint64_t wrongCuts = 0;           // chunks cut at a guessed separator that was not one, then cut exactly
    uint64_t chunksReadByWorkers = 0; // of the parallel chunks, those a worker read itself (a plain file's)
};

// A loaded trace: columnar, immutable after loading.
class Trace
{
public:
    StringPool strings;
    std::vector<Event> events;        // in file order
    std::vector<MemoryRecord> memory; // in file order
    std::vector<Flow> flows;
    std::vector<CounterSample> counters;
    std::vector<Process> processes;
    std::vector<Track> tracks;
    std::vector<OpInfo> ops;
    OpInputTable opInputs;                                  // the distinct input lists of `ops`
    std::vector<std::pair<uint32_t, double>> transferBytes; // memcpy/memset event -> its "bytes" arg, by event
    std::vector<CollectiveArgs> collectiveArgs;             // by event; only events with a message size
    ArgsStore args;                                         // raw args JSON of the events, on disk
    TraceMetadata meta;
    LoadStatistics stats;

    std::string_view name(const Event& e) const { return strings.view(e.name); }
    // The event's args object as written in the file; empty when not kept (read from disk: not for hot loops).
    std::string rawArgs(const Event& e) const;
    // The recorded inputs of an event's op (empty when it has no Input Dims).
    OpInputList inputsOf(const Event& e) const;
    // A memcpy/memset's "bytes" arg.
    std::optional<double> transferBytesOf(uint32_t event) const;
    // The message args on `event`, nullptr when it has none.
    const CollectiveArgs* collectiveArgsOf(uint32_t event) const;
    int64_t firstTime() const { return m_firstTime; }
    int64_t lastTime() const { return m_lastTime; }
    // The profiler's Trace span start, else the first event: torch's origin for relative times.
    int64_t originTime() const { return m_originTime; }

    // Links (trace-format.md §8.1). All return kNoIndex / empty when there is no link.
    uint32_t launchOf(uint32_t gpuActivity) const;
    std::vector<uint32_t> activitiesOf(uint32_t launch) const;
    // The op that launched `event`: the cpu_op/user_annotation whose External id it carries; when that
    // names no op (pre-2.0 traces write the correlation id there), for a launch call or a GPU activity the
    // innermost cpu_op enclosing the launch call on its thread.
    uint32_t opOf(uint32_t event) const;
    uint32_t annotationOf(uint32_t gpuUserAnnotation) const; // the CPU user_annotation of a GPU span
    const std::vector<std::pair<uint32_t, uint32_t>>& forwardBackward() const { return m_forwardBackward; }
    bool hasExternalLink(const Event& e) const;

    // Called once by the loader after all records are in; with threads > 1 a second thread builds the id
    // indexes meanwhile.
    void finalize(unsigned threads = 1);

private:
    struct EventCensus;
    EventCensus takeCensus(unsigned threads) const;
    void classifyTracks(const EventCensus& census);
    void undoAnnotationWidening(EventCensus& census);
    // The events' earliest start and latest end, and the first Trace span in file order (kNoIndex: none).
    struct EventSpan
    {
        int64_t first = 0, last = 0;
        uint32_t firstTraceSpan = kNoIndex;
        uint64_t repeats = 0; // events equal to the one before them on their track (isRepeatOf)
    };
    EventSpan sortAndNestTracks(unsigned threads, const EventCensus& census);
    void indexIds();
    void linkForwardBackward();
    uint32_t enclosingOpOfLaunch(uint32_t event) const;

    int64_t m_firstTime = 0;
    int64_t m_lastTime = 0;
    int64_t m_originTime = 0;
    IdIndex m_launchByCorrelation;
    IdIndex m_activitiesByCorrelation;
    IdIndex m_opByExternalId;
    IdIndex m_annotationByExternalId;
    std::vector<std::pair<uint32_t, uint32_t>> m_forwardBackward;
};

// Why a trace has nothing to show: no slices, no [memory] records and no counters. "the trace holds no events:
// its traceEvents list is empty", or, when it has records (process and thread names, ...), that none of them
// is an event. Empty when there is something. The loader's warning, the app's timeline and roofline say it.
std::string noEventsText(const Trace& trace);
// The same as a sentence of its own ("The trace holds no events: ... ."), as the roofline and the figures line say it.
std::string noEventsSentence(const Trace& trace);
// Kernels recorded by CUPTI's range profiler (Kineto's `cuda_profiler_range` events, as in a trace taken with
// `experimental_config=_ExperimentalConfig(profiler_metrics=...)`): each kernel replayed on its own for its counters,
// which are in its args, at placeholder times. They are not timed GPU activity, so such a trace has none; where
// that is said, this says why ("its 77 kernels are ..."). Empty for a trace without them.
std::string profilerRangeText(const Trace& trace);

} // namespace tilescope::trace
