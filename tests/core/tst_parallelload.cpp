// SPDX-License-Identifier: MIT
// The parallel loader (traceEvents cut into chunks parsed on several threads, merged in file order) makes
// the same Trace as one streaming pass, on every fixture and on bad input: the same events field by
// field (strings compared by text), tracks, processes, memory, flows, counters, ops, metadata, links,
// warnings, and the same error text. Chunks are forced tiny so their boundaries, and the boundaries of
// the blocks the array is read in, fall everywhere: inside strings, escapes and nested args.
#include "gziptext.h"
#include "testutil.h"

#include "io/bytesource.h"
#include "io/tracefileerror.h"
#include "trace/traceloader.h"

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

#include <atomic>
#include <fstream>

#include <filesystem>
#include <variant>

using namespace tilescope;
using trace::Trace;

namespace {

// A trace or the error text of a load.
using Outcome = std::variant<std::unique_ptr<Trace>, std::string>;

Outcome loadWith(const std::function<std::unique_ptr<io::ByteSource>()>& open, unsigned threads, size_t chunkBytes, bool partial)
{
    trace::LoadOptions options;
    options.threads = threads;
    options.chunkBytes = chunkBytes;
    options.partial = partial;
    try {
        return trace::loadTrace(open, options);
    } catch (const io::TraceFileError& e) {
        return std::string(e.what()) + " [complete before: " + std::to_string(e.completeEventsBefore())
            + (e.isMemoryData() ? ", memory data]" : "]");
    }
}

std::string text(const Trace& t, trace::StringId id) { return std::string(t.strings.view(id)); }

std::string opText(const Trace& t, uint32_t op)
{
    if (op == trace::kNoIndex)
        return "-";
    const trace::OpInfo& info = t.ops[op];
    std::string out = text(t, info.inputShapes) + "|" + text(t, info.inputTypes) + "|" + std::to_string(info.flops) + "|"
        + std::to_string(info.sequence);
    const trace::OpInputList list = t.opInputs.get(info.inputs, t.strings);
    out += "|" + std::to_string(list.hasStrides) + std::to_string(list.hasConcrete);
    for (const trace::OpInput& in : list.inputs) {
        out += "|" + std::string(in.type) + "/" + std::string(in.concrete) + "/" + std::to_string(in.isList) + "/";
        for (const int64_t v : in.sizes)
            out += std::to_string(v) + ",";
        out += "/";
        for (const int64_t v : in.strides)
            out += std::to_string(v) + ",";
    }
    return out;
}

template <class T> std::string optText(const std::optional<T>& v) { return v ? std::to_string(*v) : std::string("none"); }

// Everything a Trace holds, as lines of text with strings spelled out (string ids may differ).
std::vector<std::string> describe(const Trace& t)
{
    std::vector<std::string> lines;
    const auto add = [&lines](std::string line) { lines.push_back(std::move(line)); };
    add("events " + std::to_string(t.events.size()) + " first " + std::to_string(t.firstTime()) + " last " + std::to_string(t.lastTime())
        + " origin " + std::to_string(t.originTime()));
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        add("event " + std::to_string(i) + " " + std::to_string(e.start) + " " + std::to_string(e.duration) + " "
            + std::to_string(e.externalId) + " " + std::to_string(e.correlation) + " '" + text(t, e.name) + "' '" + text(t, e.category)
            + "' track " + std::to_string(e.track) + " parent " + std::to_string(e.parent) + " kind " + std::to_string(int(e.kind))
            + " flags " + std::to_string(e.flags) + " depth " + std::to_string(e.depth) + " args "
            + (e.args == trace::kNoIndex ? std::string("-") : std::string(t.rawArgs(e))) + " op " + opText(t, e.op) + " launch "
            + std::to_string(t.launchOf(i)) + " opOf " + std::to_string(t.opOf(i)) + " annotation " + std::to_string(t.annotationOf(i))
            + " bytes " + optText(t.transferBytesOf(i)));
        if (const trace::CollectiveArgs* c = t.collectiveArgsOf(i))
            add("  collective '" + text(t, c->collectiveName) + "' '" + text(t, c->dtype) + "' " + std::to_string(c->hasDtype) + " "
                + optText(c->inNelems) + " " + optText(c->outNelems) + " " + optText(c->groupSize));
    }
    for (const auto& [a, b] : t.forwardBackward())
        add("fwdbwd " + std::to_string(a) + " " + std::to_string(b));
    for (const trace::MemoryRecord& m : t.memory)
        add("memory " + std::to_string(m.time) + " " + std::to_string(m.bytes) + " " + std::to_string(m.totalAllocated) + " "
            + std::to_string(m.totalReserved) + " " + std::to_string(m.address) + " " + std::to_string(m.track) + " "
            + std::to_string(m.deviceType) + " " + std::to_string(m.deviceId) + " " + std::to_string(m.outOfMemory));
    for (const trace::Flow& f : t.flows)
        add("flow " + std::to_string(f.time) + " " + (f.idIsString ? text(t, trace::StringId(f.id)) : std::to_string(f.id)) + " '"
            + text(t, f.category) + "' " + std::to_string(f.track) + " " + f.phase + " " + std::to_string(f.bindsEnclosing));
    for (const trace::CounterSample& c : t.counters)
        add("counter " + std::to_string(c.time) + " " + std::to_string(c.track) + " '" + text(t, c.series) + "' "
            + std::to_string(c.value));
    for (const trace::Process& p : t.processes)
        add("process '" + text(t, p.pidText) + "' " + std::to_string(p.pidIsString) + " " + optText(p.pid) + " '" + text(t, p.name) + "' '"
            + text(t, p.labels) + "' " + optText(p.sortIndex));
    for (const trace::Track& k : t.tracks) {
        std::string line = "track " + std::to_string(int(k.type)) + " " + std::to_string(k.process) + " '" + text(t, k.tidText) + "' "
            + std::to_string(k.tidIsString) + " " + optText(k.tid) + " '" + text(t, k.name) + "' " + optText(k.sortIndex) + " "
            + std::to_string(k.device) + " " + optText(k.stream) + " depth " + std::to_string(k.maxDepth) + " overlaps "
            + std::to_string(k.partialOverlaps) + ":";
        for (const uint32_t e : k.events)
            line += " " + std::to_string(e);
        add(line);
    }
    const trace::TraceMetadata& m = t.meta;
    add("meta " + std::string(trace::traceFormatName(m.format)) + " " + optText(m.schemaVersion) + " " + optText(m.baseTimeNs) + " '"
        + m.displayTimeUnit + "' '" + m.traceName + "' " + m.distributedInfo.value_or("none") + " " + std::to_string(m.recordShapes)
        + std::to_string(m.withFlops) + std::to_string(m.profileMemory) + std::to_string(m.withStack)
        + std::to_string(m.externalIdEqualsCorrelationMeansNone) + " " + std::to_string(m.annotationWideningStart) + " "
        + std::to_string(m.annotationWideningEnd));
    for (const trace::DeviceProperties& d : m.devices)
        add("device " + std::to_string(d.id) + " '" + d.name + "' " + d.rawJson);
    for (const auto& [key, value] : m.otherKeys)
        add("key " + key + " = " + value);
    const trace::LoadStatistics& s = t.stats;
    add("stats " + std::to_string(s.inputBytes) + " " + std::to_string(s.decodedBytes) + " " + std::to_string(s.records) + " "
        + std::to_string(s.ignoredRecords) + " " + std::to_string(s.partial));
    for (const std::string& w : s.warnings)
        add("warning " + w);
    return lines;
}

std::vector<std::string> describe(const Outcome& outcome)
{
    if (const auto* error = std::get_if<std::string>(&outcome))
        return {"error " + *error};
    return describe(*std::get<std::unique_ptr<Trace>>(outcome));
}

// Compares line by line so that a failure names the first difference.
void compareOutcomes(const Outcome& serial, const Outcome& parallel, const std::string& what)
{
    const std::vector<std::string> a = describe(serial), b = describe(parallel);
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (a[i] != b[i]) {
            const std::string message = what + ": line " + std::to_string(i) + "\n serial:   " + a[i] + "\n parallel: " + b[i];
            QFAIL(message.c_str());
        }
    }
    const std::string sizes = what + ": " + std::to_string(a.size()) + " lines serial, " + std::to_string(b.size()) + " parallel";
    QVERIFY2(a.size() == b.size(), sizes.c_str());
}

// A source that can only be read as a stream, as a gzip one: the parallel pass then reads every byte of
// the array itself, where it has a plain file's or memory's chunks read by their workers.
class StreamOnlySource final : public io::ByteSource
{
public:
    explicit StreamOnlySource(std::unique_ptr<io::ByteSource> inner)
        : ByteSource(inner->name())
        , m_inner(std::move(inner))
    { }
    size_t read(char* buffer, size_t capacity) override { return m_inner->read(buffer, capacity); }
    uint64_t consumedInputBytes() const override { return m_inner->consumedInputBytes(); }
    uint64_t totalInputBytes() const override { return m_inner->totalInputBytes(); }
    bool isCompressed() const override { return m_inner->isCompressed(); }

private:
    std::unique_ptr<io::ByteSource> m_inner;
};

// A memory source whose positional reads go wrong from the `goodReads`-th on, those of `bytes` or more
// (a chunk's, read by its worker) or under (the loading thread's look past a chunk's size): short (a file
// that shrank), or an error (EIO). A chunk read so fails as a wrong guess does; a look that fails ends the
// parallel pass, whose streaming pass then loads the trace.
class FailingSource final : public io::ByteSource
{
public:
    enum class Fails { ShortReads, Errors };
    enum class Which { ChunkReads, Looks };
    FailingSource(std::string_view data, int goodReads, Fails fails, Which which, size_t bytes)
        : ByteSource("failing.json")
        , m_inner(io::memorySource(data, "failing.json"))
        , m_goodReads(goodReads)
        , m_fails(fails)
        , m_which(which)
        , m_bytes(bytes)
    { }
    size_t read(char* buffer, size_t capacity) override { return m_inner->read(buffer, capacity); }
    uint64_t consumedInputBytes() const override { return m_inner->consumedInputBytes(); }
    uint64_t totalInputBytes() const override { return m_inner->totalInputBytes(); }
    bool canReadAt() const override { return true; }
    size_t readAt(uint64_t offset, char* buffer, size_t capacity) const override
    {
        const size_t got = m_inner->readAt(offset, buffer, capacity);
        if ((capacity >= m_bytes) != (m_which == Which::ChunkReads) || m_reads.fetch_add(1) < m_goodReads)
            return got;
        if (m_fails == Fails::Errors)
            throw io::TraceFileError(name(), offset, "read failed: Input/output error");
        return got / 2;
    }
    void seek(uint64_t offset) override { m_inner->seek(offset); }

private:
    std::unique_ptr<io::ByteSource> m_inner;
    const int m_goodReads;
    const Fails m_fails;
    const Which m_which;
    const size_t m_bytes;
    mutable std::atomic<int> m_reads{0};
};

// The tests below with a `streamed` column run twice: memory read as a plain file is (its chunks read by
// their workers) and as a stream.
bool g_streamed = false;

std::function<std::unique_ptr<io::ByteSource>()> memoryOpener(const std::string& data)
{
    if (g_streamed)
        return [&data] { return std::make_unique<StreamOnlySource>(io::memorySource(data, "mem.json")); };
    return [&data] { return io::memorySource(data, "mem.json"); };
}

void addStreamedColumn()
{
    QTest::addColumn<bool>("streamed");
    QTest::newRow("chunks read by workers") << false;
    QTest::newRow("read as a stream") << true;
}

// Sets g_streamed from the test's data row.
#define FETCH_STREAMED()                                                                                                                   \
    QFETCH(bool, streamed);                                                                                                                \
    g_streamed = streamed;                                                                                                                 \
    const auto resetStreamed = qScopeGuard([] { g_streamed = false; })

// Events with names and args that hold everything the splitter must see through: quotes, backslashes,
// brackets and commas inside strings, escapes that end in a backslash, nested args, B/E pairs, metadata,
// flows, counters, memory, op inputs, a collective, and whitespace between elements.
using testutil::gzipped;

std::string trickyTrace()
{
    std::string s = "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"H200\", \"numSms\": 132}],\n"
                    "\"traceEvents\" : [ \n";
    const char* names[] = {
        "plain",         "q\\\"uote",           "back\\\\slash\\\\", "br}ace{s", "squ]are[s", "com,ma\\\",\\\"",
        "},{\\\"ph\\\"", "\\u00e9t\\u00e9 \\n", "\\\\\\\"],[{\\\\",  "日本語",   "",
    };
    int i = 0;
    for (const char* name : names) {
        const std::string n = name;
        const std::string ts = std::to_string(100 + i * 10) + "." + std::to_string(i % 1000);
        s += "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": " + std::to_string(i % 3) + ", \"args\": {\"name\": \"t" + n
            + "\"}},\n";
        s += "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + n + "\", \"pid\": 1, \"tid\": " + std::to_string(i % 3)
            + ", \"ts\": " + ts + ", \"dur\": 5, \"args\": {\"External id\": " + std::to_string(i + 1)
            + ", \"Input Dims\": [[2, 3], [], [[1]]], \"Input type\": [\"float\", \"" + n
            + "\", \"TensorList\"], \"Concrete Inputs\": [\"\", \"" + n
            + "\", \"\"], \"deep\": {\"a\": [1, [2, {\"b\": \"]\"}]]}, \"objects\": [{\"a\": 1},\n {\"b\": [{}, {}]}]}}";
        s += i % 2 ? ",\n" : " , ";
        s += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + n + "\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": " + ts
            + ", \"dur\": 1.5, \"args\": {\"correlation\": " + std::to_string(i + 100) + ", \"External id\": " + std::to_string(i + 1)
            + ", \"In msg nelems\": 10, \"Collective name\": \"" + n + "\", \"dtype\": \"Float\"}},";
        s += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 0, \"ts\": " + ts
            + ", \"dur\": 0.5, \"args\": {\"correlation\": " + std::to_string(i + 100) + "}},";
        s += "{\"ph\": \"B\", \"name\": \"b" + n + "\", \"pid\": 2, \"tid\": 2, \"ts\": " + ts + "},";
        if (i % 3 != 2)
            s += "{\"ph\": \"E\", \"pid\": 2, \"tid\": 2, \"ts\": " + std::to_string(200 + i * 10) + "},";
        s += "{\"ph\": \"s\", \"id\": \"" + n + "\", \"cat\": \"fwdbwd\", \"pid\": 1, \"tid\": 0, \"ts\": " + ts + "},";
        s += "{\"ph\": \"f\", \"id\": " + std::to_string(i) + ", \"bp\": \"e\", \"cat\": \"ac2g\", \"pid\": 0, \"tid\": 7, \"ts\": " + ts
            + "},";
        s += "{\"ph\": \"C\", \"name\": \"c" + n + "\", \"pid\": 3, \"ts\": " + ts + ", \"args\": {\"v" + n + "\": " + std::to_string(i)
            + ", \"w\": 2.5}},";
        s += "{\"ts\": " + ts + ", \"args\": {\"zz" + n + "\": 1}, \"ph\": \"C\", \"name\": \"late\", \"pid\": 3},";
        s += "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 0, \"tid\": 7, \"ts\": " + ts
            + ", \"args\": {\"Bytes\": " + std::to_string(1024 * (i + 1))
            + ", \"Total Allocated\": 4096, \"Device Type\": 1, \"Device Id\": 0, \"Addr\": " + std::to_string(i) + "}},\n";
        s += "\t{\"ph\": \"i\", \"name\": \"mark " + n + "\", \"s\": \"g\", \"pid\": 1, \"tid\": 0, \"ts\": " + ts + "},";
        s += "{\"ph\": \"Q\", \"name\": \"unknown\", \"pid\": 1, \"ts\": 1}";
        s += ++i < int(std::size(names)) ? ",\n" : "\n";
    }
    s += "] ,\"traceName\": \"tricky\", \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}, \"x\": [1, \"]\"]}\n";
    return s;
}

// The tricky trace with `bytes` of plain events first: many chunks, and many read-ahead blocks gzipped.
std::string trickyTraceAfterPlainEvents(size_t bytes)
{
    std::string data = trickyTrace();
    std::string plain;
    for (int i = 0; plain.size() < bytes; ++i)
        plain += R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": )" + std::to_string(i * 3)
            + R"(, "dur": 2, "args": {"External id": )" + std::to_string(900000 + i) + "}},";
    data.insert(data.find("\"traceEvents\" : [") + 17, plain);
    return data;
}

// Under a sanitizer (CI's ASan build, about 10x slower) the fixtures over 256 KB are left to the plain
// build's run of this test, and the 1-byte chunks (an element per chunk, the workers' hardest case) run on
// those under 64 KB: all of them take longer there than QtTest's 300 s per function.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

} // namespace

class TestParallelLoad : public QObject
{
    Q_OBJECT
private slots:
    // Every trace, memory file and pickle in tests/data: same Trace or same error, partial or not.
    void fixtures()
    {
        std::vector<std::string> files;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(TILESCOPE_TEST_DATA)) {
            const std::string path = entry.path().string();
            if (entry.is_regular_file()
                && (path.ends_with(".json") || path.ends_with(".gz") || path.ends_with(".pickle") || path.ends_with(".pt")))
                files.push_back(path);
        }
        std::sort(files.begin(), files.end());
        QVERIFY(files.size() > 50);
        size_t parallelLoads = 0;
        for (const std::string& path : files) {
            if (kSanitized && std::filesystem::file_size(path) > 256 * 1024)
                continue;
            const auto open = [&path] { return io::openTraceFile(path); };
            for (const bool partial : {false, true}) {
                const Outcome serial = loadWith(open, 1, 0, partial);
                for (const size_t chunk : {size_t(0), size_t(1), size_t(4096)}) {
                    if (chunk == 1 && kSanitized && std::filesystem::file_size(path) > 64 * 1024)
                        continue;
                    const Outcome parallel = loadWith(open, 3, chunk, partial);
                    compareOutcomes(serial, parallel, path + " chunk " + std::to_string(chunk) + (partial ? " partial" : ""));
                    // A trace that loads did load in parallel, not through the streaming pass's fallback (which a cut
                    // file kept in part takes, as designed: findings/partial_trace).
                    if (const auto* t = std::get_if<std::unique_ptr<Trace>>(&parallel);
                        t && (*t)->stats.records > 0 && !(*t)->stats.partial) {
                        QVERIFY2((*t)->stats.parallelChunks > 0, path.c_str());
                        ++parallelLoads;
                    }
                }
            }
        }
        QVERIFY(parallelLoads > 100);
    }

    // Every chunk size from 1 to 300 bytes: the read blocks end at every offset of the array, in and out
    // of strings, escapes and nested values.
    void boundariesEverywhere_data() { addStreamedColumn(); }
    void boundariesEverywhere()
    {
        FETCH_STREAMED();
        const std::string data = trickyTrace();
        const Outcome serial = loadWith(memoryOpener(data), 1, 0, false);
        QVERIFY(std::holds_alternative<std::unique_ptr<Trace>>(serial));
        const Trace& t = *std::get<std::unique_ptr<Trace>>(serial);
        QVERIFY(t.events.size() > 50);
        QVERIFY(!t.flows.empty() && !t.counters.empty() && !t.memory.empty() && !t.ops.empty());
        // Its arrays of objects and "},{" in strings make cuts guessed wrong: those chunks are cut again exactly.
        uint64_t wrongCuts = 0;
        for (size_t chunk = 1; chunk <= 300; ++chunk)
            for (const unsigned threads : {2u, 5u}) {
                const Outcome parallel = loadWith(memoryOpener(data), threads, chunk, false);
                compareOutcomes(serial, parallel, "chunk " + std::to_string(chunk) + " threads " + std::to_string(threads));
                QVERIFY(std::get<std::unique_ptr<Trace>>(parallel)->stats.parallelChunks > 1);
                wrongCuts += std::get<std::unique_ptr<Trace>>(parallel)->stats.wrongCuts;
            }
        QVERIFY(wrongCuts > 100);
        // A top-level array (the legacy export) goes through the same path.
        const std::string array = "["
            + data.substr(data.find("\"traceEvents\" : [") + 17, data.find("] ,\"traceName\"") - data.find("\"traceEvents\" : [") - 17)
            + "]";
        const Outcome serialArray = loadWith(memoryOpener(array), 1, 0, false);
        QVERIFY(std::holds_alternative<std::unique_ptr<Trace>>(serialArray));
        for (const size_t chunk : {size_t(1), size_t(7), size_t(100), size_t(0)}) {
            const Outcome parallel = loadWith(memoryOpener(array), 2, chunk, false);
            compareOutcomes(serialArray, parallel, "array chunk " + std::to_string(chunk));
            QVERIFY(std::get<std::unique_ptr<Trace>>(parallel)->stats.parallelChunks > 0);
        }
    }

    // A wrong guess in the last chunks, where the exact scan takes over to find the array's end (or no guess
    // comes within the window): the chunks before are proven first, so the load stays parallel.
    void wrongGuessNearTheEnd_data() { addStreamedColumn(); }
    void wrongGuessNearTheEnd()
    {
        FETCH_STREAMED();
        std::string data = "{\"traceEvents\": [";
        for (int i = 0; i < 40; ++i)
            data += R"({"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) + R"(, "dur": 5}, )";
        for (const std::string last :
             {R"({"ph": "X", "name": "a},{b", "pid": 1, "tid": 1, "ts": 500, "dur": 1}]})",
              R"({"ph": "X", "name": "a}, {", "pid": 1, "tid": 1, "ts": 500, "dur": 1, "args": {"x": [{}, {}]}}]})"}) {
            const std::string trace = data + last;
            const Outcome serial = loadWith(memoryOpener(trace), 1, 0, false);
            QVERIFY(std::holds_alternative<std::unique_ptr<Trace>>(serial));
            for (size_t chunk = 1; chunk <= 64; ++chunk) {
                const Outcome parallel = loadWith(memoryOpener(trace), 2, chunk, false);
                compareOutcomes(serial, parallel, "chunk " + std::to_string(chunk));
                QVERIFY2(std::get<std::unique_ptr<Trace>>(parallel)->stats.parallelChunks > 0, ("chunk " + std::to_string(chunk)).c_str());
            }
        }
    }

    // Random traces full of what makes a guess wrong ("},{" in strings, escapes, arrays of objects, an array
    // of objects after traceEvents), some damaged: the same Trace or error as the streaming pass, and every
    // trace that loads loaded in parallel (a wrong guess never sends the load back to the streaming pass).
    void randomWrongGuesses_data() { addStreamedColumn(); }
    void randomWrongGuesses()
    {
        FETCH_STREAMED();
        std::mt19937 random(12345);
        const char* pieces[] = {"},{", "}, {", "},\\n{", "]", "[", "{", "}", ",", "\\\"", "\\\\", "x", " "};
        size_t loadedInParallel = 0;
        for (int round = 0; round < 300; ++round) {
            std::string data = "{\"traceEvents\": [";
            const int events = 1 + static_cast<int>(random() % 12);
            for (int e = 0; e < events; ++e) {
                std::string text;
                for (int k = static_cast<int>(random() % 6); k > 0; --k)
                    text += pieces[random() % std::size(pieces)];
                data += "{\"ph\": \"X\", \"name\": \"" + text + "\", \"pid\": 1, \"tid\": " + std::to_string(e % 2)
                    + ", \"ts\": " + std::to_string(e * 10) + ", \"dur\": 3";
                if (random() % 2)
                    data += ", \"args\": {\"objects\": [{\"a\": \"" + text + "\"},\n {\"b\": [{}, {}]}], \"s\": \"" + text + "\"}";
                data += "}";
                if (e + 1 < events)
                    data += random() % 2 ? "," : ",\n ";
            }
            data += "]";
            if (random() % 2)
                data += ", \"after\": [{\"a\": 1},{\"b\": \"},{\"}]";
            data += "}";
            if (random() % 3 == 0) {
                const size_t at = random() % data.size();
                switch (random() % 3) {
                case 0: data.erase(at, 1); break;
                case 1: data.insert(at, 1, "{}[],\"\\x"[random() % 8]); break;
                default: data.resize(at); break;
                }
            }
            const Outcome serial = loadWith(memoryOpener(data), 1, 0, false);
            for (int k = 0; k < 6; ++k) {
                const size_t chunk = 1 + random() % 120;
                const Outcome parallel = loadWith(memoryOpener(data), 2 + static_cast<unsigned>(random() % 3), chunk, false);
                compareOutcomes(serial, parallel, "round " + std::to_string(round) + " chunk " + std::to_string(chunk) + ": " + data);
                if (const auto* t = std::get_if<std::unique_ptr<Trace>>(&parallel)) {
                    QVERIFY2((*t)->stats.parallelChunks > 0,
                             ("round " + std::to_string(round) + " chunk " + std::to_string(chunk) + ": " + data).c_str());
                    ++loadedInParallel;
                }
            }
        }
        QVERIFY2(loadedInParallel > 500, std::to_string(loadedInParallel).c_str());
    }

    // The trace cut at every byte (a crashed run), and bytes changed into ones that break it: the same
    // error text, or with --partial the same events kept.
    void truncatedAndDamaged_data() { addStreamedColumn(); }
    void truncatedAndDamaged()
    {
        FETCH_STREAMED();
        const std::string data = trickyTrace().substr(0, 1800);
        const size_t arrayStart = data.find("\"traceEvents\"");
        for (size_t cut = arrayStart; cut <= data.size(); cut += 7) {
            const std::string part = data.substr(0, cut);
            for (const bool partial : {false, true}) {
                const Outcome serial = loadWith(memoryOpener(part), 1, 0, partial);
                const Outcome parallel = loadWith(memoryOpener(part), 2, 1 + cut % 50, partial);
                compareOutcomes(serial, parallel, "cut at " + std::to_string(cut) + (partial ? " partial" : ""));
                if (const auto* t = std::get_if<std::unique_ptr<Trace>>(&parallel); t && !(*t)->stats.partial && (*t)->stats.records > 0)
                    QVERIFY2((*t)->stats.parallelChunks > 0, ("cut at " + std::to_string(cut)).c_str());
            }
        }
        for (size_t at = arrayStart; at < data.size(); at += 5) {
            for (const char bad : {',', '"', '}', ']', '\\', '{'}) {
                std::string damaged = data.substr(0, 1500) + "]}";
                if (at >= damaged.size())
                    break;
                damaged[at] = bad;
                const Outcome serial = loadWith(memoryOpener(damaged), 1, 0, false);
                const Outcome parallel = loadWith(memoryOpener(damaged), 3, 1 + at % 31, false);
                compareOutcomes(serial, parallel, "byte " + std::to_string(at) + " set to " + std::string(1, bad));
                if (const auto* t = std::get_if<std::unique_ptr<Trace>>(&parallel); t && (*t)->stats.records > 0)
                    QVERIFY2((*t)->stats.parallelChunks > 0, ("byte " + std::to_string(at) + " set to " + std::string(1, bad)).c_str());
            }
        }
    }

    // A gzipped trace is inflated ahead on a thread of its own in the parallel pass: cut anywhere in the
    // compressed stream, or with a byte of it damaged, it gives the streaming pass's error text (or, with
    // --partial, its events), and whole it gives the same Trace.
    void gzippedTruncatedAndDamaged()
    {
        // The tricky trace after 800 kB of plain events: several read-ahead blocks (a chunk's size, 64-256 KiB).
        const std::string data = trickyTraceAfterPlainEvents(800000);
        const std::string whole = gzipped(data);
        QVERIFY(whole.size() > 1000);
        const Outcome serialWhole = loadWith(memoryOpener(whole), 1, 0, false);
        if (const auto* error = std::get_if<std::string>(&serialWhole))
            QFAIL(error->c_str());
        const Outcome parallelWhole = loadWith(memoryOpener(whole), 2, 4096, false);
        compareOutcomes(serialWhole, parallelWhole, "gzipped whole");
        QVERIFY(std::get<std::unique_ptr<Trace>>(parallelWhole)->stats.parallelChunks > 10);
        for (size_t cut = 10; cut < whole.size(); cut += whole.size() / 23) {
            const std::string part = whole.substr(0, cut);
            for (const bool partial : {false, true})
                compareOutcomes(loadWith(memoryOpener(part), 1, 0, partial), loadWith(memoryOpener(part), 2, 1000 + cut % 3000, partial),
                                "gzip cut at " + std::to_string(cut) + (partial ? " partial" : ""));
        }
        for (size_t at = 20; at + 8 < whole.size(); at += whole.size() / 17) {
            std::string damaged = whole;
            damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
            for (const bool partial : {false, true})
                compareOutcomes(loadWith(memoryOpener(damaged), 1, 0, partial), loadWith(memoryOpener(damaged), 3, 2048, partial),
                                "gzip byte " + std::to_string(at) + " damaged" + (partial ? " partial" : ""));
        }
    }

    // The inputs of tst_badinput (inline), through the parallel path.
    void badInput_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("streamed");
        const auto row = [](const char* name, const QByteArray& content) {
            QTest::newRow(name) << content << false;
            QTest::newRow((std::string(name) + ", read as a stream").c_str()) << content << true;
        };
        const QByteArray good("{\"schemaVersion\": 1, \"traceEvents\": [\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": 100.000, \"dur\": 5.000, \"args\": {\"External id\": 1}}");
        row("truncated", good.left(good.size() - 30));
        row("truncated after comma", good + ",");
        row("trailing comma", good + ",]}");
        row("leading comma", QByteArray("{\"traceEvents\": [,{\"ph\": \"i\", \"ts\": 1}]}"));
        row("missing comma", QByteArray("{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1} {\"ph\": \"i\", \"ts\": 2}]}"));
        row("brace closes array", QByteArray("{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1}}}"));
        row("empty array", QByteArray("{\"traceEvents\": [ ]}"));
        row("null traceEvents", QByteArray("{\"traceEvents\": null}"));
        row("event not object", QByteArray("{\"traceEvents\": [1]}"));
        row("second event not object", QByteArray("{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1}, \"x\"]}"));
        row("array of arrays", QByteArray("[[1, 2], [[3]]]"));
        row("ts is string", QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": \"1\", \"dur\": 1}]}"));
        row("missing ts", QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"dur\": 1}]}"));
        row("missing ph", QByteArray("{\"traceEvents\": [{\"name\": \"a\", \"ts\": 1}]}"));
        row("negative dur", QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": -5}]}"));
        row("invalid utf8", QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\xc3\x28\", \"ts\": 1, \"dur\": 1}]}"));
        row("end before begin",
            QByteArray("{\"traceEvents\": [{\"ph\": \"B\", \"name\": \"a\", \"ts\": 5, \"pid\": 1, \"tid\": 1}, "
                       "{\"ph\": \"E\", \"ts\": 4, \"pid\": 1, \"tid\": 1}]}"));
        row("garbage after", good + "]} trailing");
        row("two arrays", QByteArray("{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1}], \"traceEvents\": [{\"ph\": \"i\", \"ts\": 2}]}"));
        QString deep = "{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1, \"args\": {\"a\": ";
        for (int i = 0; i < 996; ++i)
            deep += "[";
        row("nesting at the limit", (deep + QString(996, QChar(']')) + "}}]}").toUtf8());
        row("nesting past the limit", (deep + "[" + QString(997, QChar(']')) + "}}]}").toUtf8());
    }
    void badInput()
    {
        QFETCH(QByteArray, content);
        FETCH_STREAMED();
        const std::string data(content.constData(), size_t(content.size()));
        for (const bool partial : {false, true}) {
            const Outcome serial = loadWith(memoryOpener(data), 1, 0, partial);
            for (const size_t chunk : {size_t(1), size_t(3), size_t(0)}) {
                const Outcome parallel = loadWith(memoryOpener(data), 2, chunk, partial);
                compareOutcomes(serial, parallel, "chunk " + std::to_string(chunk));
                // What loads whole loaded in parallel, not through the streaming pass's fallback.
                if (const auto* t = std::get_if<std::unique_ptr<Trace>>(&parallel); t && !(*t)->stats.partial && (*t)->stats.records > 0)
                    QVERIFY2((*t)->stats.parallelChunks > 0, ("chunk " + std::to_string(chunk)).c_str());
            }
        }
    }

    // A plain file's (or memory's) chunks are read by their workers, a stream's and a gzip file's by the
    // loading thread: the same Trace either way, from a file on disk too.
    void workersReadPlainFiles()
    {
        const std::string data = trickyTraceAfterPlainEvents(200000);
        const Outcome serial = loadWith(memoryOpener(data), 1, 0, false);
        QVERIFY(std::holds_alternative<std::unique_ptr<Trace>>(serial));
        const auto stats = [](const Outcome& outcome) { return std::get<std::unique_ptr<Trace>>(outcome)->stats; };

        const Outcome fromMemory = loadWith(memoryOpener(data), 3, 4096, false);
        compareOutcomes(serial, fromMemory, "memory");
        QVERIFY(stats(fromMemory).chunksReadByWorkers > 40);
        QVERIFY(stats(fromMemory).chunksReadByWorkers < stats(fromMemory).parallelChunks); // the array's end is cut exactly

        const auto streamOnly = [&data] { return std::make_unique<StreamOnlySource>(io::memorySource(data, "mem.json")); };
        const Outcome streamed = loadWith(streamOnly, 3, 4096, false);
        compareOutcomes(serial, streamed, "stream");
        QCOMPARE(stats(streamed).chunksReadByWorkers, 0u);
        QVERIFY(stats(streamed).parallelChunks > 40);

        const std::string gz = gzipped(data);
        const Outcome gzip = loadWith(memoryOpener(gz), 3, 4096, false);
        compareOutcomes(loadWith(memoryOpener(gz), 1, 0, false), gzip, "gzip");
        QCOMPARE(stats(gzip).chunksReadByWorkers, 0u);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("plain.json").toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out << data;
        }
        const Outcome fromFile = loadWith([&path] { return io::openTraceFile(path); }, 2, 4096, false);
        const Outcome fileSerial = loadWith([&path] { return io::openTraceFile(path); }, 1, 0, false);
        compareOutcomes(fileSerial, fromFile, "file");
        QVERIFY(stats(fromFile).chunksReadByWorkers > 40);
    }

    // A worker's read that comes up short (the file shrank under it) or fails fails its chunk as a wrong
    // guess does: cut again from the stream, the load gives the same Trace, in parallel. The loading thread's
    // look past a chunk's size going wrong: the same Trace, by the parallel pass or the streaming one.
    void failingPositionalReads()
    {
        const std::string data = trickyTrace();
        const Outcome serial = loadWith(memoryOpener(data), 1, 0, false);
        constexpr size_t chunk = 300; // worker reads are 300 bytes or more; looks 64 + 38 bytes, then 38
        for (const auto fails : {FailingSource::Fails::ShortReads, FailingSource::Fails::Errors})
            for (const auto which : {FailingSource::Which::ChunkReads, FailingSource::Which::Looks})
                for (const int goodReads : {0, 1, 5, 20}) {
                    const auto open = [&, fails, which, goodReads] {
                        return std::make_unique<FailingSource>(data, goodReads, fails, which, chunk);
                    };
                    const std::string what = std::string(fails == FailingSource::Fails::Errors ? "errors" : "short reads") + " in "
                        + (which == FailingSource::Which::ChunkReads ? "chunk reads" : "looks") + " after " + std::to_string(goodReads);
                    const Outcome parallel = loadWith(open, 2, chunk, false);
                    compareOutcomes(serial, parallel, what);
                    const trace::LoadStatistics& stats = std::get<std::unique_ptr<Trace>>(parallel)->stats;
                    if (which == FailingSource::Which::ChunkReads) {
                        QVERIFY2(stats.wrongCuts > 0, what.c_str());
                        QVERIFY2(stats.parallelChunks > 0, what.c_str());
                    }
                }
    }

    // A trace of under 64 bytes (read whole by the first look at its bytes) loads in parallel too: the
    // reader goes on after the array from where the loading thread left the file.
    void tinyTraceStaysParallel_data() { addStreamedColumn(); }
    void tinyTraceStaysParallel()
    {
        FETCH_STREAMED();
        for (const std::string& data : {std::string(R"({"traceEvents": [{"ph": "i", "ts": 1}, {"ph": "i", "ts": 2}]})"),
                                        std::string(R"([{"ph": "i", "ts": 1}, {"ph": "i", "ts": 2}])")}) {
            QVERIFY(data.size() < 64);
            const Outcome serial = loadWith(memoryOpener(data), 1, 0, false);
            for (const size_t chunk : {size_t(1), size_t(5), size_t(20)}) {
                const Outcome parallel = loadWith(memoryOpener(data), 2, chunk, false);
                compareOutcomes(serial, parallel, data + " chunk " + std::to_string(chunk));
                QVERIFY2(std::get<std::unique_ptr<Trace>>(parallel)->stats.parallelChunks > 0, data.c_str());
            }
        }
    }

    // Positional reads and seeks of a plain file, over the bytes read to tell gzip from JSON; a gzip source
    // has none.
    void sourcesReadAtOffsets()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bytes.json").toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            out << "0123456789abcdef";
        }
        const auto file = io::openTraceFile(path);
        QVERIFY(file->canReadAt());
        char buffer[32] = {};
        QCOMPARE(file->readAt(1, buffer, 4), size_t(4));
        QCOMPARE(std::string(buffer, 4), std::string("1234"));
        QCOMPARE(file->readAt(14, buffer, 8), size_t(2)); // fewer at the end
        QCOMPARE(std::string(buffer, 2), std::string("ef"));
        QCOMPARE(file->readAt(16, buffer, 8), size_t(0));
        QCOMPARE(file->read(buffer, 3), size_t(2)); // the sniffed bytes first: readAt did not move the stream
        QCOMPARE(std::string(buffer, 2), std::string("01"));
        file->seek(1);
        QCOMPARE(file->read(buffer, 3), size_t(1));
        QCOMPARE(buffer[0], '1');
        QCOMPARE(file->read(buffer, 3), size_t(3));
        QCOMPARE(std::string(buffer, 3), std::string("234"));
        file->seek(10);
        QCOMPARE(file->consumedInputBytes(), uint64_t(10));
        QCOMPARE(file->read(buffer, 32), size_t(6));
        QCOMPARE(std::string(buffer, 6), std::string("abcdef"));
        const std::string gz = gzipped("{\"traceEvents\": []}");
        QVERIFY(!io::memorySource(gz)->canReadAt());
        QVERIFY(io::memorySource("{}")->canReadAt());
    }

    // From 20,000 events Trace::finalize builds the id indexes on a second thread beside the nesting, and
    // with more threads nests the tracks of 5,000 events or more on several (this trace has three): the same
    // trace as with one thread, parents, depths, links, fwdbwd pairs and extent included, gzipped and plain
    // (its chunks read by the workers). Run under ASan too
    // (the fixtures above skip large files there), for the threads' sharing of the events.
    void finalizeOnSeveralThreads()
    {
        const std::string gz = std::string(TILESCOPE_TEST_DATA) + "/external/hta/ns_resolution_trace_rank0.json.gz";
        QTemporaryDir dir;
        const std::string plain = dir.filePath("ns_resolution.json").toStdString();
        {
            std::string json;
            const auto source = io::openTraceFile(gz);
            char block[1 << 16];
            for (size_t got; (got = source->read(block, sizeof block)) > 0;)
                json.append(block, got);
            std::ofstream(plain, std::ios::binary) << json;
        }
        for (const std::string& path : {gz, plain}) {
            const auto open = [&path] { return io::openTraceFile(path); };
            const Outcome serial = loadWith(open, 1, 0, false);
            for (const unsigned threads : {2u, 4u, 7u}) {
                const Outcome parallel = loadWith(open, threads, 0, false);
                const auto* t = std::get_if<std::unique_ptr<Trace>>(&parallel);
                QVERIFY(t);
                QVERIFY((*t)->events.size() >= 20000);
                QVERIFY(!(*t)->forwardBackward().empty());
                QCOMPARE(
                    std::count_if((*t)->tracks.begin(), (*t)->tracks.end(), [](const trace::Track& k) { return k.events.size() >= 5000; }),
                    3);
                compareOutcomes(serial, parallel, path + " threads " + std::to_string(threads));
                QVERIFY(std::get<std::unique_ptr<Trace>>(parallel)->stats.parallelChunks > 0);
            }
        }
    }

    // Finalize nests tracks of many events on several threads, and the trace's extent, its origin (the first
    // Trace span) and the count of repeated records are gathered along the way: each comes from another
    // large track here, and the Trace Span sits on a small one, so none may be lost whichever thread nests it.
    void extentFromEveryNestedTrack()
    {
        constexpr int kTracks = 4, kPerTrack = 6000; // each over a quarter of finalize's 20,000 events a thread
        std::string json = "{\"traceEvents\": [";
        // A record with an External id: a second record equal to it is a repeat (an id is what tells them apart).
        const auto add = [&json](int tid, int64_t tsUs, int64_t durUs, const char* name, int64_t id, const char* cat = "cpu_op") {
            json += "{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name
                + "\", \"pid\": 1, \"tid\": " + std::to_string(tid) + ", \"ts\": " + std::to_string(tsUs)
                + ", \"dur\": " + std::to_string(durUs) + ", \"args\": {\"External id\": " + std::to_string(id) + "}},\n";
        };
        const auto idOf = [](int tid, int i) { return int64_t(10) * i + tid; };
        for (int i = 0; i < kPerTrack; ++i)
            for (int tid = 1; tid <= kTracks; ++tid)
                add(tid, 1000 + 10 * i, 5, "op", idOf(tid, i));
        add(3, 7, 2, "earliest", 1000000);       // the first start: track 3
        add(2, 500000, 9000, "latest", 1000001); // the last end: track 2, at 509,000 us
        add(1, 1000, 5, "op", idOf(1, 0));       // repeats: one on track 1 ...
        add(4, 1010, 5, "op", idOf(4, 1));       // ... two on track 4
        add(4, 1020, 5, "op", idOf(4, 2));
        add(9, 900, 100000, "run", 1000002, "Trace"); // the origin: a Trace span on a track of its own
        json.resize(json.size() - 2);
        json += "]}";
        for (const unsigned threads : {1u, 2u, 4u, 7u}) {
            const Outcome outcome = loadWith([&json] { return io::memorySource(json); }, threads, 0, false);
            const auto* t = std::get_if<std::unique_ptr<Trace>>(&outcome);
            if (!t)
                QFAIL(std::get<std::string>(outcome).c_str());
            QCOMPARE((*t)->events.size(), size_t(kTracks * kPerTrack + 6));
            QCOMPARE((*t)->firstTime(), int64_t(7000));
            QCOMPARE((*t)->lastTime(), int64_t(509000000));
            QCOMPARE((*t)->originTime(), int64_t(900000));
            const auto& warnings = (*t)->stats.warnings;
            QVERIFY2(
                std::any_of(warnings.begin(), warnings.end(), [](const std::string& w) { return w.starts_with("3 events are repeats"); }),
                ("threads " + std::to_string(threads)).c_str());
        }
    }

    // finalize's passes over every event (the tracks' kinds, the GPU annotations' widening, the tracks' lists)
    // take ranges of a large trace side by side on spare cores and join them in range order: every track, its
    // list, and every event's times, parent and depth come out as on one thread. Kernels under widened GPU
    // annotations on a stream, ops on three threads; part of each written again later in the file, earlier
    // in time (the lists are sorted from a few runs).
    void finalizeRangesJoinedInOrder()
    {
        constexpr int kPerTrack = 15000; // 3 ops a step and a kernel, 61,550 events: 2 ranges on 3 threads, 3 on 7
        std::string json = "{\"traceEvents\": [";
        const auto add = [&json](int pid, int tid, const std::string& ts, const std::string& dur, const char* name, const char* cat) {
            json += "{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name + "\", \"pid\": " + std::to_string(pid)
                + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts + ", \"dur\": " + dur + "},\n";
        };
        const auto step = [&](int i) {
            const std::string ts = std::to_string(1000 + 20 * i);
            for (int tid = 1; tid <= 3; ++tid)
                add(1, tid, ts, std::to_string(5 + tid), tid == 2 && i % 7 == 0 ? "outer" : "op", "cpu_op");
            add(0, 7, ts, "4", "kernel", "kernel");
            if (i % 10 == 0) // over this kernel and the next: widened by 1 ns at each end, as Kineto writes it
                add(0, 7, std::to_string(1000 + 20 * i - 1) + ".999", "24.002", "annotation", "gpu_user_annotation");
        };
        // Twins, first in the file, of ops written last: the same times on the same thread. The one written
        // first holds the other (file order breaks the tie), wherever the ranges were cut.
        for (int i = 0; i < 50; ++i)
            add(1, 1, std::to_string(1000 + 20 * i), "6", "twin", "cpu_op");
        for (int i = kPerTrack / 3; i < kPerTrack; ++i)
            step(i);
        for (int i = 0; i < kPerTrack / 3; ++i) // the first third of the time, last in the file
            step(i);
        json.resize(json.size() - 2);
        json += "]}";
        const Outcome one = loadWith([&json] { return io::memorySource(json); }, 1, 0, false);
        const auto* serial = std::get_if<std::unique_ptr<Trace>>(&one);
        if (!serial)
            QFAIL(std::get<std::string>(one).c_str());
        const Trace& a = **serial;
        QCOMPARE(a.meta.annotationWideningStart, int64_t(1));
        QCOMPARE(a.meta.annotationWideningEnd, int64_t(1));
        QCOMPARE(a.strings.view(a.events[0].name), std::string_view("twin"));
        QVERIFY(std::any_of(a.events.begin(), a.events.end(), [](const trace::Event& e) { return e.parent == 0; }));
        for (const unsigned threads : {3u, 7u}) { // two ranges, three
            const Outcome many = loadWith([&json] { return io::memorySource(json); }, threads, 0, false);
            const auto* parallel = std::get_if<std::unique_ptr<Trace>>(&many);
            if (!parallel)
                QFAIL(std::get<std::string>(many).c_str());
            const Trace& b = **parallel;
            QCOMPARE(b.meta.annotationWideningStart, a.meta.annotationWideningStart);
            QCOMPARE(b.meta.annotationWideningEnd, a.meta.annotationWideningEnd);
            QCOMPARE(b.tracks.size(), a.tracks.size());
            for (size_t t = 0; t < a.tracks.size(); ++t) {
                QVERIFY(b.tracks[t].type == a.tracks[t].type);
                QCOMPARE(b.tracks[t].maxDepth, a.tracks[t].maxDepth);
                QVERIFY2(b.tracks[t].events == a.tracks[t].events, ("track " + std::to_string(t)).c_str());
            }
            QCOMPARE(b.events.size(), a.events.size());
            for (size_t i = 0; i < a.events.size(); ++i) {
                const trace::Event &x = a.events[i], &y = b.events[i];
                if (x.start != y.start || x.duration != y.duration || x.parent != y.parent || x.depth != y.depth)
                    QFAIL(("event " + std::to_string(i) + " differs on " + std::to_string(threads) + " threads").c_str());
            }
        }
    }

    void threadCount()
    {
        trace::LoadOptions options;
        options.threads = 3;
        QCOMPARE(trace::loadThreads(options), 3u);
        options.threads = 0;
        QVERIFY(trace::loadThreads(options) >= 1);
    }

    // Left to the loader, a trace under 2 MiB of JSON is read in one streaming pass (threads cost more
    // to start than they save there) and a larger one in parallel; a thread count asked for is kept.
    void smallTracesStreamWhenLeftToTheLoader()
    {
        // The environment's thread count would be an explicit one: unset here, put back afterwards.
        const QByteArray saved = qgetenv("TILESCOPE_LOAD_THREADS");
        const bool wasSet = qEnvironmentVariableIsSet("TILESCOPE_LOAD_THREADS");
        qunsetenv("TILESCOPE_LOAD_THREADS");
        const auto restore = qScopeGuard([&] {
            if (wasSet)
                qputenv("TILESCOPE_LOAD_THREADS", saved);
        });
        const std::string small = std::string(TILESCOPE_TEST_DATA) + "/h200/gemm_compare/trace.json";
        QVERIFY(std::filesystem::file_size(small) < (2u << 20));
        const auto openSmall = [&small] { return io::openTraceFile(small); };
        // The same events repeated past 2 MiB, in memory.
        std::string large = R"({"traceEvents": [)";
        for (int i = 0; large.size() < (3u << 20); ++i)
            large += (i ? "," : "") + std::string(R"({"ph": "X", "name": "aten::add", "pid": 1, "tid": 1, "ts": )") + std::to_string(i * 10)
                + R"(, "dur": 5, "args": {"External id": )" + std::to_string(i) + "}}";
        large += "]}";
        const auto openLarge = [&large] { return io::memorySource(large, "large.json"); };
        const auto chunks = [](const Outcome& outcome) { return std::get<std::unique_ptr<Trace>>(outcome)->stats.parallelChunks; };

        // Asked for: kept, whatever the size.
        QVERIFY(chunks(loadWith(openSmall, 2, 0, false)) > 0);
        QCOMPARE(chunks(loadWith(openLarge, 1, 0, false)), 0u);
        // A limit (a rank set's share of the cores) is not a count asked for: a small trace still streams.
        trace::LoadOptions limited;
        limited.maxThreads = 1;
        QCOMPARE(trace::loadThreads(limited), 1u);
        QCOMPARE(trace::loadTrace(openLarge, limited)->stats.parallelChunks, 0u);
        limited.maxThreads = 2;
        QCOMPARE(trace::loadTrace(openSmall, limited)->stats.parallelChunks, 0u);
        if (trace::loadThreads({}) < 2)
            QSKIP("one core: a load left to the loader is always one streaming pass");
        QCOMPARE(chunks(loadWith(openSmall, 0, 0, false)), 0u);
        QVERIFY(chunks(loadWith(openLarge, 0, 0, false)) > 0);
        QCOMPARE(trace::loadThreads(limited), 2u);
        QVERIFY(trace::loadTrace(openLarge, limited)->stats.parallelChunks > 0);
        // The environment's count is capped by the limit too (8 ranks under TILESCOPE_LOAD_THREADS=16 start
        // 16 threads in all, not 128); a count passed in options is not.
        qputenv("TILESCOPE_LOAD_THREADS", "16");
        QCOMPARE(trace::loadThreads(limited), 2u);
        limited.maxThreads = 0;
        QCOMPARE(trace::loadThreads(limited), 16u);
        limited.threads = 5;
        limited.maxThreads = 1;
        QCOMPARE(trace::loadThreads(limited), 5u);
        qunsetenv("TILESCOPE_LOAD_THREADS");
    }
};

QTEST_APPLESS_MAIN(TestParallelLoad)
#include "tst_parallelload.moc"
