// SPDX-License-Identifier: MIT
// The CUDA allocator snapshot: the bounded pickle decoder (CPython's own pickles of every protocol it takes,
// code opcodes refused, every prefix of a cut file, hostile sizes), the snapshot structure (memory_churn's
// real snapshot against the figures of trace-format.md §11.3 and against the same run's Kineto trace), the
// replay for the graph, and the CLI report.
#include "io/pickledecoder.h"
#include "io/tracefileerror.h"
#include "memory/allocatorsnapshot.h"
#include "memory/epochtime.h"
#include "picklewriter.h"
#include "report/snapshotreport.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <map>
#include <variant>
#include <set>
#include <zlib.h>

using namespace tilescope;
using io::PickleRef;
using io::PickleType;

namespace {

const std::string kChurn = "h200/memory_churn/memory_snapshot.pickle.gz";
const std::string kCut = "memory/memory_snapshot.pickle";

std::string pickleData(const std::string& name) { return testutil::readFile(testutil::dataPath("memory/pickles/" + name)); }

// The error decoding `bytes` gives ("(no error)" when it decodes).
std::string decodeError(const std::string& bytes, const io::PickleLimits& limits = {})
{
    try {
        io::decodePickle(bytes, "x.pickle", limits);
    } catch (const io::TraceFileError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string snapshotError(const std::string& bytes)
{
    try {
        memory::allocatorSnapshotFromBytes(bytes, "s.pickle");
    } catch (const io::TraceFileError& e) {
        return e.what();
    }
    return "(no error)";
}

using testutil::contains;
QJsonValue at(const QJsonValue& v, std::initializer_list<std::variant<const char*, int>> path) { return testutil::jsonAt(v, path); }

std::string gunzip(const std::string& compressed)
{
    z_stream z{};
    inflateInit2(&z, 16 + MAX_WBITS);
    std::string out(compressed.size() * 100, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z.avail_in = static_cast<uInt>(compressed.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    out.resize(z.total_out);
    inflateEnd(&z);
    return rc == Z_STREAM_END ? out : std::string();
}

// A small snapshot of one segment, three blocks and a short history, as the tests' writer spells it.
testpickle::Value smallSnapshot()
{
    using testpickle::Dict;
    using testpickle::List;
    const Dict userFrame{{"name", "train_step"}, {"filename", "/home/me/train.py"}, {"line", 42}};
    const Dict torchFrame{{"name", "forward"}, {"filename", "/usr/lib/python3/site-packages/torch/nn/modules/linear.py"}, {"line", 116}};
    const Dict cppFrame{{"name", "c10::cuda::CUDACachingAllocator::malloc"}, {"filename", "??"}, {"line", 0}};
    const List frames{cppFrame, torchFrame, userFrame};
    Dict block1{{"address", int64_t(1 << 20)}, {"size", 4096}, {"requested_size", 4000}, {"state", "active_allocated"}, {"frames", frames}};
    Dict block2{{"address", int64_t((1 << 20) + 4096)},
                {"size", 8192},
                {"requested_size", 8192},
                {"state", "active_pending_free"},
                {"frames", frames}};
    Dict block3{{"address", int64_t((1 << 20) + 12288)}, {"size", 4096}, {"requested_size", 0}, {"state", "inactive"}, {"frames", List{}}};
    Dict segment{{"device", 0},
                 {"address", int64_t(1 << 20)},
                 {"total_size", 16384},
                 {"allocated_size", 4096},
                 {"active_size", 12288},
                 {"requested_size", 4000},
                 {"stream", 0},
                 {"segment_type", "small"},
                 {"is_expandable", false},
                 {"frames", List{}},
                 {"blocks", List{block1, block2, block3}}};
    auto entry = [&](const char* action, int64_t addr, int64_t size, int64_t time) {
        return Dict{{"action", action}, {"addr", addr}, {"size", size}, {"stream", 0}, {"time_us", time}, {"frames", frames}};
    };
    List trace{entry("segment_alloc", 1 << 20, 16384, 100), entry("alloc", 1 << 20, 4000, 101), entry("alloc", (1 << 20) + 4096, 8192, 102),
               entry("free_requested", (1 << 20) + 4096, 8192, 103),
               Dict{{"action", "oom"},
                    {"device_free", int64_t(1024)},
                    {"size", int64_t(1) << 40},
                    {"stream", 0},
                    {"time_us", 104},
                    {"frames", frames}}};
    return Dict{{"segments", List{segment}}, {"device_traces", List{trace}}, {"allocator_settings", Dict{{"max_split_size", -1}}}};
}

} // namespace

class TestSnapshot : public QObject
{
    Q_OBJECT
private slots:
    // CPython's pickler, protocols 2 to 5 (tests/data/memory/pickles/make_pickles.py): every data opcode it
    // writes for dicts, lists, tuples, str, bytes, ints, floats, bools, None and the memo.
    void decodesWhatCPythonWrites_data()
    {
        QTest::addColumn<int>("protocol");
        for (int p = 2; p <= 5; ++p)
            QTest::newRow(("protocol " + std::to_string(p)).c_str()) << p;
    }
    void decodesWhatCPythonWrites()
    {
        QFETCH(int, protocol);
        const auto doc = io::decodePickle(pickleData("values_p" + std::to_string(protocol) + ".pickle"), "values.pickle");
        const PickleRef root = doc.root();
        QCOMPARE(doc.type(root), PickleType::Dict);
        auto get = [&](const char* key) {
            const auto v = doc.member(root, key);
            if (!v)
                qFatal("missing %s", key);
            return *v;
        };
        QCOMPARE(doc.type(get("none")), PickleType::None);
        QCOMPARE(doc.type(get("true")), PickleType::Bool);
        QVERIFY(doc.boolean(get("true")));
        QVERIFY(!doc.boolean(get("false")));
        QCOMPARE(doc.integer(get("small")), int64_t(7));
        QCOMPARE(doc.integer(get("u16")), int64_t(40000));
        QCOMPARE(doc.integer(get("negative")), int64_t(-5));
        QCOMPARE(doc.integer(get("i32_min")), int64_t(INT32_MIN));
        QCOMPARE(doc.integer(get("i64_max")), INT64_MAX);
        QCOMPARE(doc.integer(get("i64_min")), INT64_MIN);
        QCOMPARE(doc.integer(get("address")), int64_t(139661766819840));
        QCOMPARE(doc.type(get("float")), PickleType::Float);
        QCOMPARE(doc.number(get("float")), 1.5);
        QCOMPARE(doc.number(get("negative_float")), -0.1); // exact: BINFLOAT is big-endian
        QCOMPARE(std::string(doc.text(get("text"))), std::string("h\xc3\xa9llo \xe2\x9c\x93"));
        QCOMPARE(std::string(doc.text(get("long_text"))), std::string(300, 'x'));
        QCOMPARE(doc.type(get("empty_list")), PickleType::List);
        QCOMPARE(doc.items(get("empty_list")).size(), size_t(0));
        const auto range = doc.items(get("range")); // several APPENDS batches
        QCOMPARE(range.size(), size_t(1200));
        for (size_t i = 0; i < range.size(); ++i)
            QCOMPARE(doc.integer(range[i]), int64_t(i));
        for (int n : {0, 1, 2, 3, 5}) {
            const PickleRef t = get(("tuple" + std::to_string(n)).c_str());
            QCOMPARE(doc.type(t), PickleType::Tuple);
            QCOMPARE(doc.items(t).size(), size_t(n));
            for (int i = 0; i < n; ++i)
                QCOMPARE(doc.integer(doc.items(t)[size_t(i)]), int64_t(i + 1));
        }
        QCOMPARE(doc.repr(get("nested")), std::string("{'a': [{'b': (1, 'c')}], 3: 'int key'}"));
        const auto strings = doc.items(get("strings"));
        QCOMPARE(strings.size(), size_t(300));
        QCOMPARE(std::string(doc.text(strings[299])), std::string("s299"));
        // The memo holds references: both keys name the very same list (LONG_BINGET past 256 entries).
        QCOMPARE(get("shared"), get("shared_again"));
        QCOMPARE(doc.repr(get("shared")), std::string("[1, 'shared']"));
        // Cycles through the memo (POP / POP_MARK then a memo get): the tuple's list holds the tuple itself.
        for (const char* key : {"recursive", "recursive4"}) {
            const PickleRef t = get(key);
            QCOMPARE(doc.type(t), PickleType::Tuple);
            const PickleRef list = doc.items(t)[0];
            QCOMPARE(doc.type(list), PickleType::List);
            QCOMPARE(doc.items(list).size(), size_t(1));
            QCOMPARE(doc.items(list)[0], t);
            QVERIFY(doc.repr(t).size() < 200); // bounded despite the cycle
        }
        if (protocol >= 3) {
            QCOMPARE(doc.type(get("bytes")), PickleType::Bytes);
            QCOMPARE(std::string(doc.text(get("bytes"))), std::string("\x00\x01\xff", 3));
            QCOMPARE(std::string(doc.text(get("long_bytes"))), std::string(300, '\x07'));
        }
        // Keys keep the writer's order.
        QCOMPARE(std::string(doc.text(doc.dictItems(root)[0].key)), std::string("none"));
    }

    void codeOpcodesAreRefusedNamingOpcodeAndOffset()
    {
        // pickle.dumps(os.system, protocol=4) and protocol=2, as CPython writes them.
        const std::string system4("\x80\x04\x95\x14\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94\x8c\x06system\x94\x93\x94.", 31);
        QCOMPARE(system4, pickleData("os_system_p4.pickle"));
        const std::string e4 = decodeError(system4);
        QVERIFY2(e4.starts_with("x.pickle: byte 28: STACK_GLOBAL (0x93): refused"), e4.c_str());
        QVERIFY2(contains(e4, "never executes"), e4.c_str());
        const std::string system2("\x80\x02\x63posix\nsystem\nq\x00.", 19);
        QCOMPARE(system2, pickleData("os_system_p2.pickle"));
        QVERIFY2(decodeError(system2).starts_with("x.pickle: byte 2: GLOBAL (0x63 'c'): refused"), decodeError(system2).c_str());
        // Protocol 2 writes bytes as a call of _codecs.encode.
        QVERIFY(contains(decodeError(pickleData("bytes_p2.pickle")), "GLOBAL (0x63 'c'): refused"));
        // Every code opcode, after harmless data so the offset is 4.
        const std::map<std::string, char> code{{"REDUCE", 'R'},         {"BUILD", 'b'},        {"INST", 'i'},    {"OBJ", 'o'},
                                               {"NEWOBJ", '\x81'},      {"NEWOBJ_EX", '\x92'}, {"PERSID", 'P'},  {"BINPERSID", 'Q'},
                                               {"EXT1", '\x82'},        {"EXT2", '\x83'},      {"EXT4", '\x84'}, {"GLOBAL", 'c'},
                                               {"STACK_GLOBAL", '\x93'}};
        for (const auto& [name, op] : code) {
            const std::string e = decodeError(std::string("\x80\x04K\x01", 4) + op + "K\x01K\x01.");
            QVERIFY2(e.starts_with("x.pickle: byte 4: " + name + " (0x"), e.c_str());
            QVERIFY2(contains(e, "refused"), e.c_str());
        }
        // Data opcodes snapshots never use, and bytes that are no opcode.
        QVERIFY(contains(decodeError("\x80\x04\x8f."), "byte 2: EMPTY_SET (0x8f): unsupported opcode"));
        QVERIFY(contains(decodeError("\x80\x04(d."), "byte 3: DICT (0x64 'd'): unsupported opcode"));
        QVERIFY(contains(decodeError("\x80\x04\xff."), "byte 2: byte 0xff: unknown pickle opcode"));
        QVERIFY(contains(decodeError(std::string("\x80\x04\x00.", 4)), "byte 2: byte 0x00: unknown pickle opcode"));
        // And a snapshot reader passes the same refusal on, naming the file.
        QVERIFY(snapshotError(system4).starts_with("s.pickle: byte 28: STACK_GLOBAL"));
    }

    // A cut file fails cleanly at every length, whether or not it has protocol 4 frames.
    void everyPrefixFailsCleanly_data()
    {
        QTest::addColumn<std::string>("file");
        QTest::newRow("cut snapshot (frames)") << testutil::dataPath(kCut);
        QTest::newRow("protocol 2 (no frames)") << testutil::dataPath("memory/pickles/values_p2.pickle");
        QTest::newRow("protocol 4 (frames)") << testutil::dataPath("memory/pickles/values_p4.pickle");
    }
    void everyPrefixFailsCleanly()
    {
        QFETCH(std::string, file);
        const std::string data = testutil::readFile(file);
        QVERIFY(data.size() > 1000);
        io::decodePickle(data, "whole.pickle"); // the whole file decodes
        for (size_t n = 0; n < data.size(); ++n) {
            const std::string e = decodeError(data.substr(0, n));
            const bool expected = n == 0 ? contains(e, "empty input") : contains(e, "truncated pickle");
            if (!expected || !e.starts_with("x.pickle: byte "))
                QFAIL(("prefix of " + std::to_string(n) + " bytes: " + e).c_str());
        }
        // The snapshot reader only ever sees whole pickles.
        QVERIFY(contains(snapshotError(data.substr(0, data.size() / 2)), "truncated pickle"));
    }

    void truncatedGzipFailsCleanly()
    {
        const std::string gz = testutil::readFile(testutil::dataPath(kChurn));
        for (size_t n = 2; n < gz.size(); n += 509) {
            const std::string e = snapshotError(gz.substr(0, n));
            QVERIFY2(contains(e, "truncated"), e.c_str());
        }
        // A bad byte in the compressed data: zlib's check fails, or the pickle does.
        std::string damaged = gz;
        damaged[gz.size() / 2] ^= 0x55;
        QVERIFY(snapshotError(damaged).starts_with("s.pickle: "));
    }

    void hostileSizesAndShapesAreBounded()
    {
        // Huge declared lengths fail on the bytes that remain, before any allocation.
        QVERIFY(contains(decodeError("\x80\x04X\xff\xff\xff\xff."), "BINUNICODE (0x58 'X') needs 4294967295 argument bytes, 1 remain"));
        QVERIFY(contains(decodeError(std::string("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f.", 12)), "BINUNICODE8 (0x8d) needs"));
        QVERIFY(contains(decodeError(std::string("\x80\x04\x8e\x00\x00\x00\x00\x00\x00\x00\x80.", 12)), "BINBYTES8 (0x8e) needs"));
        QVERIFY(contains(decodeError("\x80\x04\x8b\xff\xff\xff\x7f."), "LONG4 (0x8b) needs 2147483647"));
        QVERIFY(contains(decodeError("\x80\x04\x8b\xff\xff\xff\xff."), "negative byte count"));
        QVERIFY(contains(decodeError("\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\xffN."), "the frame declares 18446744073709551615 bytes"));
        // Ints: 64 bits exactly (pickle.dumps(2**64), 2**63 refused; -2**63 and a long sign extension kept).
        QVERIFY(contains(
            decodeError(std::string("\x80\x04\x95\x0c\x00\x00\x00\x00\x00\x00\x00\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.", 23)),
            "byte 11: LONG1 (0x8a): integer wider than 64 bits"));
        QVERIFY(contains(decodeError(std::string("\x80\x04\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00.", 14)), "wider than 64 bits"));
        QVERIFY(contains(decodeError(std::string("\x80\x02\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff.", 14)), "wider than 64 bits"));
        const auto minimum = io::decodePickle(std::string("\x80\x02\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80.", 13), "m");
        QCOMPARE(minimum.integer(minimum.root()), INT64_MIN);
        const auto minusOne = io::decodePickle(std::string("\x80\x02\x8a\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff.", 15), "m");
        QCOMPARE(minusOne.integer(minusOne.root()), int64_t(-1));
        const auto zero = io::decodePickle(std::string("\x80\x02\x8a\x00.", 5), "m"); // LONG1 with n = 0
        QCOMPARE(zero.integer(zero.root()), int64_t(0));
        // Nesting: open MARKs are limited; containers nested 100 000 deep decode, and print bounded.
        QVERIFY(contains(decodeError("\x80\x04" + std::string(5000, '(')), "more than 4096 open MARKs"));
        const auto deep = io::decodePickle("\x80\x04" + std::string(100000, ']') + std::string(99999, 'a') + ".", "deep");
        QVERIFY(deep.repr(deep.root()).size() < 100);
        QVERIFY(contains(snapshotError("\x80\x04" + std::string(100000, ']') + std::string(99999, 'a') + "."), "the pickle holds a list"));
        // Each limit, with small limits.
        io::PickleLimits small;
        small.maxStack = 100;
        QVERIFY(contains(decodeError("\x80\x04" + std::string(101, 'N'), small), "more than 100 values on the stack"));
        small = {};
        small.maxValues = 10;
        QVERIFY(contains(decodeError("\x80\x04]" + std::string(10, 'N') + ".", small), "more than 10 values"));
        small = {};
        small.maxLinks = 5;
        QVERIFY(contains(decodeError("\x80\x04](NNNNNNe.", small), "more than 5 container items"));
        small = {};
        small.maxBytes = 1000;
        QVERIFY(contains(decodeError(testutil::readFile(testutil::dataPath(kChurn)), small),
                         "larger than the pickle reader's limit of 1000 bytes"));
        // The memo.
        QVERIFY(contains(decodeError("\x80\x04h\x05."), "BINGET (0x68 'h'): memo index 5 was never stored"));
        QVERIFY(contains(decodeError("\x80\x04Nr\xff\xff\xff\xff."), "memo index 4294967295 beyond the 1 values read so far"));
        QVERIFY(contains(decodeError("\x80\x04\x94."), "nothing on the stack to memoise"));
        // Stack discipline.
        QVERIFY(contains(decodeError("\x80\x04N."
                                     "N"),
                         "1 bytes of data after STOP"));
        QVERIFY(contains(decodeError("\x80\x04NN."), "STOP with 2 values on the stack"));
        QVERIFY(contains(decodeError("\x80\x04."), "STOP with 0 values on the stack"));
        QVERIFY(contains(decodeError("\x80\x04(N."), "STOP with a MARK still open"));
        QVERIFY(contains(decodeError("\x80\x04N(\x86."), "TUPLE2 (0x86): stack underflow"));
        QVERIFY(contains(decodeError("\x80\x04}(Nu."), "an odd number of values"));
        QVERIFY(contains(decodeError("\x80\x04}Na."), "expected a list to append to, found a dict"));
        QVERIFY(contains(decodeError("\x80\x04]NNs."), "expected a dict to set an item in, found a list"));
        QVERIFY(contains(decodeError("\x80\x04}(]Nu."), "unhashable dict key of type list"));
        QVERIFY(contains(decodeError("\x80\x04(Ne."), "no list below the items"));
        QVERIFY(contains(decodeError("\x80\x04"
                                     "1."),
                         "POP_MARK (0x31 '1'): no MARK to pop"));
        QVERIFY(contains(decodeError("\x80\x04\x30."), "POP (0x30 '0'): stack underflow"));
        // DUP, POP of a MARK, BINBYTES and the 8-byte strings (CPython never writes these for snapshot data).
        const auto dup = io::decodePickle("\x80\x04]2(0a.", "dup"); // the list, itself again; POP removes the MARK
        QCOMPARE(dup.items(dup.root()).size(), size_t(1));
        QCOMPARE(dup.items(dup.root())[0], dup.root());
        const auto strings = io::decodePickle(
            std::string("\x80\x04\x8d\x02\x00\x00\x00\x00\x00\x00\x00hi\x8e\x01\x00\x00\x00\x00\x00\x00\x00!B\x00\x00\x00\x00\x87.", 30),
            "s");
        QCOMPARE(strings.repr(strings.root()), std::string("('hi', b'!', b'')"));
        // Not a pickle, or another protocol.
        QVERIFY(contains(decodeError(""), "empty input"));
        QVERIFY(contains(decodeError("N."), "does not start with PROTO"));
        QVERIFY(contains(decodeError("\x80\x06N."), "protocol 6 (this reader takes 2 to 5)"));
        QVERIFY(contains(decodeError("\x80\x01N."), "protocol 1"));
        QVERIFY(contains(decodeError("\x80\x04\x80\x04N."), "a second PROTO"));
    }

    // A small file whose device trace is one list referenced 1000 times through the memo (make_pickles.py).
    void sharedReferencesCannotMultiplyEntries()
    {
        const std::string data = pickleData("shared_expansion.pickle");
        QVERIFY(data.size() < 8192);
        io::decodePickle(data, "ok"); // as data it is fine
        const std::string e = snapshotError(data);
        QVERIFY2(contains(e, "device_traces") && contains(e, "shared references expand"), e.c_str());
    }

    // memory_churn's whole snapshot (gzip of the original): the figures of trace-format.md §11.3.
    void memoryChurnSnapshot()
    {
        const auto s = memory::loadAllocatorSnapshot(testutil::dataPath(kChurn));
        QCOMPARE(s.segments.size(), size_t(3));
        QCOMPARE(s.segments[0].segmentType, std::string("large"));
        QCOMPARE(s.segments[0].totalSize, int64_t(2) << 30);
        for (size_t i : {1, 2}) {
            QCOMPARE(s.segments[i].segmentType, std::string("small"));
            QCOMPARE(s.segments[i].totalSize, int64_t(2) << 20);
        }
        size_t states[3] = {0, 0, 0};
        for (const auto& segment : s.segments) {
            QCOMPARE(segment.device, int64_t(0));
            // Blocks tile their segment: contiguous, and their sizes add up to the segment.
            uint64_t next = segment.address;
            int64_t sum = 0, allocated = 0, active = 0;
            for (const auto& b : segment.blocks) {
                QCOMPARE(b.address, next);
                next += uint64_t(b.size);
                sum += b.size;
                ++states[size_t(b.state)];
                if (b.state == memory::BlockState::ActiveAllocated)
                    allocated += b.size;
                if (b.state != memory::BlockState::Inactive)
                    active += b.size;
            }
            QCOMPARE(sum, segment.totalSize);
            QCOMPARE(allocated, segment.allocatedSize);
            QCOMPARE(active, segment.activeSize);
        }
        QCOMPARE(s.blockCount(), size_t(17));
        QCOMPARE(states[0], size_t(11));
        QCOMPARE(states[1], size_t(0));
        QCOMPARE(states[2], size_t(6));
        QCOMPARE(s.reservedBytes(), int64_t(2151677952)); // = the trace's peak Total Reserved (§11.1)
        QCOMPARE(s.allocatedBytes(), int64_t(704643072));

        QCOMPARE(s.deviceTraces.size(), size_t(1));
        const auto& trace = s.deviceTraces[0];
        QCOMPARE(trace.size(), size_t(1812));
        std::map<std::string, int> actions;
        for (const auto& e : trace) {
            ++actions[std::string(s.actionName(e))];
            QVERIFY(e.timeUs != memory::kNoTimeUs);
            // 23 to 40 frames per entry (§11.3).
            const auto frames = s.stackFrames(e.stack);
            QVERIFY2(frames.size() >= 23 && frames.size() <= 40, std::to_string(frames.size()).c_str());
        }
        QCOMPARE(actions,
                 (std::map<std::string, int>{{"alloc", 610}, {"free_requested", 600}, {"free_completed", 600}, {"segment_alloc", 2}}));
        for (size_t i = 1; i < trace.size(); ++i)
            QVERIFY(trace[i].timeUs >= trace[i - 1].timeUs);

        // Frames and stacks are stored once: no two equal frames, far fewer frames than references.
        std::set<std::tuple<std::string, std::string, int64_t>> distinct;
        for (const auto& f : s.frames)
            distinct.emplace(f.name, f.filename, f.line);
        QCOMPARE(distinct.size(), s.frames.size());
        QVERIFY(s.frames.size() < 200);
        QVERIFY(s.stackRanges.size() < trace.size() / 4);

        // The user frame: the workload's Python frame, not torch's or C++ (gen.py:327, under the C++ frames).
        const auto& firstAlloc = *std::find_if(trace.begin(), trace.end(),
                                               [](const auto& e) { return e.action == memory::TraceAction::Alloc; });
        const auto user = memory::userFrame(s, firstAlloc.stack);
        QVERIFY(user);
        QCOMPARE(s.frame(*user).name, std::string("w_memory_churn"));
        QVERIFY(s.frame(*user).filename.ends_with("gen.py"));
        QVERIFY(s.frame(*user).line > 0);
        const auto frames = s.stackFrames(firstAlloc.stack);
        QVERIFY(s.frame(frames[0]).line == 0); // torch records the innermost (C++) frame first
        const auto ordered = memory::framesUserFirst(s, firstAlloc.stack);
        QCOMPARE(ordered.size(), frames.size());
        QCOMPARE(ordered[0], *user);

        // Settings as text, annotations as read.
        std::map<std::string, std::string> settings(s.allocatorSettings.begin(), s.allocatorSettings.end());
        QCOMPARE(settings["max_split_size"], std::string("-1"));
        QCOMPARE(settings["expandable_segments"], std::string("False"));
        QCOMPARE(settings["garbage_collection_threshold"], std::string("0.0"));
        QCOMPARE(settings["PYTORCH_CUDA_ALLOC_CONF"], std::string(""));
        QVERIFY(settings["roundup_power2_divisions"].starts_with("{'1': 0, '2': 0,"));
        QCOMPARE(s.externalAnnotations.size(), size_t(60));
        for (size_t i = 0; i < s.externalAnnotations.size(); ++i) {
            const auto& a = s.externalAnnotations[i];
            QCOMPARE(a.stage, std::string(i % 2 ? "END" : "START"));
            QCOMPARE(a.name, "alloc_round_" + std::to_string(i / 2));
        }
    }

    // The replay ends at the segments' state and starts from what pre-dates the ring buffer: checked against
    // _memory_viz's rule (frees without their alloc, live blocks without an alloc) and against the
    // [memory] totals of the same run's Kineto trace.
    void replayMatchesTheTrace()
    {
        const auto s = memory::loadAllocatorSnapshot(testutil::dataPath(kChurn));
        const auto replay = memory::replayDeviceMemory(s, 0);
        QVERIFY(replay.consistent);
        QCOMPARE(replay.finalReservedBytes, s.reservedBytes());
        QCOMPARE(replay.finalAllocatedBytes, int64_t(704643072));
        QCOMPARE(replay.points.back().allocatedBytes, replay.finalAllocatedBytes);
        QCOMPARE(replay.points.back().reservedBytes, replay.finalReservedBytes);
        QCOMPARE(replay.points.size(), size_t(610 + 600 + 2));

        // _memory_viz.py: the start is the blocks freed without their alloc in the trace plus the live blocks
        // whose alloc it never saw.
        std::set<uint64_t> liveFromTrace;
        int64_t freedWithoutAlloc = 0;
        for (const auto& e : s.deviceTraces[0]) {
            if (e.action == memory::TraceAction::Alloc)
                liveFromTrace.insert(e.address);
            if (e.action == memory::TraceAction::FreeCompleted && !liveFromTrace.erase(e.address))
                freedWithoutAlloc += e.size;
        }
        int64_t liveBeforeRecording = 0;
        for (const auto& segment : s.segments)
            for (const auto& b : segment.blocks)
                if (b.state != memory::BlockState::Inactive && !liveFromTrace.contains(b.address))
                    liveBeforeRecording += b.requestedSize;
        QCOMPARE(replay.initialAllocatedBytes, freedWithoutAlloc + liveBeforeRecording);
        QCOMPARE(replay.initialAllocatedBytes, int64_t(32) << 20); // the one 32 MiB block allocated before recording
        QCOMPARE(replay.initialReservedBytes, int64_t(2) << 30);   // the large segment, cudaMalloc'd before

        // The trace's [memory] instants of the same run: its maxima of Total Allocated / Total Reserved.
        const auto t = trace::loadTrace(testutil::workloadTrace("memory_churn"));
        int64_t peakAllocated = 0, peakReserved = 0;
        int allocs = 0;
        for (const auto& m : t->memory)
            if (m.deviceType == 1 && !m.outOfMemory) {
                peakAllocated = std::max(peakAllocated, m.totalAllocated);
                peakReserved = std::max(peakReserved, m.totalReserved);
                allocs += m.bytes > 0;
            }
        QCOMPARE(allocs, 610);
        QCOMPARE(replay.peakAllocatedBytes, peakAllocated);
        QCOMPARE(replay.peakReservedBytes, peakReserved);

        // On the trace's clock (§3.4): the first segment_alloc lands 14 µs before the trace's first [memory] instant.
        QVERIFY(t->meta.baseTimeNs);
        const int64_t first = memory::epochMicrosecondsToTraceNs(s.deviceTraces[0].front().timeUs, t->meta.baseTimeNs);
        QCOMPARE(first, int64_t(5349372135911000));
        int64_t firstMemory = INT64_MAX;
        for (const auto& m : t->memory)
            firstMemory = std::min(firstMemory, m.time);
        QVERIFY2(firstMemory - first >= 13000 && firstMemory - first <= 15000, std::to_string(firstMemory - first).c_str());
        QCOMPARE(memory::epochMicrosecondsToTraceNs(INT64_MAX / 10, int64_t(0)), INT64_MAX); // saturates
    }

    void cutSnapshot()
    {
        const auto s = memory::loadAllocatorSnapshot(testutil::dataPath(kCut));
        QCOMPARE(s.segments.size(), size_t(1));
        QCOMPARE(s.blockCount(), size_t(3));
        QCOMPARE(s.deviceTraces.size(), size_t(1));
        QCOMPARE(s.deviceTraces[0].size(), size_t(8));
        QCOMPARE(s.deviceTraces[0][0].action, memory::TraceAction::SegmentAlloc);
        for (size_t i = 1; i < 8; ++i)
            QCOMPARE(s.deviceTraces[0][i].action, memory::TraceAction::Alloc);
        QCOMPARE(s.externalAnnotations.size(), size_t(4));
        // The same bytes from memory, and gzip-compressed in memory.
        const std::string bytes = testutil::readFile(testutil::dataPath(kCut));
        const auto again = memory::allocatorSnapshotFromBytes(bytes, "cut");
        QCOMPARE(again.deviceTraces[0].size(), size_t(8));
        const std::string churn = gunzip(testutil::readFile(testutil::dataPath(kChurn)));
        QCOMPARE(churn.size(), size_t(1068632)); // §11.3
        QCOMPARE(memory::allocatorSnapshotFromBytes(churn, "plain").deviceTraces[0].size(), size_t(1812));
    }

    // CPython's pickles of a snapshot with every action, both spellings of the pending state and the fields
    // older torch leaves out (make_pickles.py), through the whole reader and the replay of both devices.
    void snapshotVariantsFromCPython_data()
    {
        QTest::addColumn<int>("protocol");
        QTest::newRow("protocol 2") << 2;
        QTest::newRow("protocol 4") << 4;
    }
    void snapshotVariantsFromCPython()
    {
        QFETCH(int, protocol);
        const auto s = memory::allocatorSnapshotFromBytes(pickleData("snapshot_variants_p" + std::to_string(protocol) + ".pickle"), "v");
        QCOMPARE(s.segments.size(), size_t(2));
        const auto& small = s.segments[0];
        QCOMPARE(small.blocks[1].address, uint64_t((1 << 20) + 4096)); // no address: after the block before
        QCOMPARE(small.blocks[2].address, uint64_t((1 << 20) + 12288));
        QCOMPARE(small.blocks[1].state, memory::BlockState::ActivePendingFree);
        QCOMPARE(small.blocks[2].requestedSize, int64_t(4096));
        const auto& large = s.segments[1];
        QCOMPARE(large.device, int64_t(1));
        QCOMPARE(large.blocks[0].state, memory::BlockState::ActivePendingFree); // "active_awaiting_free"
        QCOMPARE(large.allocatedSize, int64_t(0));                              // computed from the blocks
        QCOMPARE(large.activeSize, int64_t(2) << 20);
        QCOMPARE(large.segmentType, std::string());
        QCOMPARE(s.deviceTraces.size(), size_t(2));
        std::vector<std::string> actions;
        for (const auto& e : s.deviceTraces[0])
            actions.emplace_back(s.actionName(e));
        QCOMPARE(actions,
                 (std::vector<std::string>{"segment_alloc", "alloc", "free_requested", "free_completed", "oom", "segment_map",
                                           "segment_unmap", "snapshot"}));
        const auto& oom = s.deviceTraces[0][4];
        QCOMPARE(oom.size, int64_t(1) << 40);
        QCOMPARE(oom.deviceFree, int64_t(1024));
        QCOMPARE(oom.address, uint64_t(0));
        QCOMPARE(s.externalAnnotations.size(), size_t(1));
        std::map<std::string, std::string> settings(s.allocatorSettings.begin(), s.allocatorSettings.end());
        QCOMPARE(settings["garbage_collection_threshold"], std::string("0.5"));
        QCOMPARE(settings["roundup_power2_divisions"], std::string("{'1': 0}"));

        // Device 0: 4000 B allocated and freed, the segment mapped and unmapped: what is live at the end
        // (12 192 B requested in the two active blocks) was there before. Device 1: its 2 MiB segment was
        // freed in the trace yet is in the snapshot, so 4 MiB were reserved before.
        const auto zero = memory::replayDeviceMemory(s, 0);
        QCOMPARE(zero.initialAllocatedBytes, int64_t(4000 + 8192));
        QCOMPARE(zero.initialReservedBytes, int64_t(0));
        QCOMPARE(zero.points.size(), size_t(5)); // segment_alloc, alloc, free_completed, segment_map, segment_unmap
        QCOMPARE(zero.peakAllocatedBytes, int64_t(4000 + 8192 + 4000));
        QCOMPARE(zero.peakReservedBytes, int64_t(16384 + 4096));
        QVERIFY(zero.consistent);
        const auto one = memory::replayDeviceMemory(s, 1);
        QCOMPARE(one.initialReservedBytes, int64_t(4) << 20);
        QCOMPARE(one.finalReservedBytes, int64_t(2) << 20);
        QCOMPARE(one.initialAllocatedBytes, int64_t(2) << 20);
        QVERIFY(one.consistent);
        // A trace that cannot end at the segments' state from non-negative starts: flagged, still anchored at the end.
        const testpickle::Value odd = testpickle::Dict{
            {"segments", testpickle::List{}},
            {"device_traces", testpickle::List{testpickle::List{testpickle::Dict{{"action", "alloc"}, {"addr", 64}, {"size", 100}}}}}};
        const auto inconsistent = memory::replayDeviceMemory(memory::allocatorSnapshotFromBytes(testpickle::dumps(odd), "odd"), 0);
        QVERIFY(!inconsistent.consistent);
        QCOMPARE(inconsistent.initialAllocatedBytes, int64_t(-100));
        QCOMPARE(inconsistent.points.back().allocatedBytes, int64_t(0));
        // A device with no segments and no trace.
        const auto none = memory::replayDeviceMemory(s, 7);
        QVERIFY(none.points.empty() && none.finalReservedBytes == 0 && none.consistent);
    }

    // What the tests' writer builds: older and newer fields, an OOM, states and actions by every spelling.
    void snapshotFieldsAndVariants()
    {
        auto v = smallSnapshot();
        auto& segments = std::get<testpickle::List>(v["segments"].v);
        auto& blocks = std::get<testpickle::List>(segments[0]["blocks"].v);
        blocks[0].erase("address"); // older torch: addresses follow from the segment
        blocks[1].erase("address");
        blocks[1]["state"] = "active_awaiting_free"; // torch's docstring spelling
        blocks[2].erase("requested_size");
        segments[0]["pool_id"] = testpickle::List{0, 1}; // unknown keys are ignored
        auto& trace = std::get<testpickle::List>(std::get<testpickle::List>(v["device_traces"].v)[0].v);
        trace[1].erase("time_us");
        trace.push_back(testpickle::Dict{{"action", "some_future_action"}, {"size", 1}});
        const auto s = memory::allocatorSnapshotFromBytes(testpickle::dumps(v), "w.pickle");
        const auto& b = s.segments[0].blocks;
        QCOMPARE(b[0].address, uint64_t(1 << 20));
        QCOMPARE(b[1].address, uint64_t((1 << 20) + 4096));
        QCOMPARE(b[1].state, memory::BlockState::ActivePendingFree);
        QCOMPARE(b[2].requestedSize, int64_t(4096));
        const auto& e = s.deviceTraces[0];
        QCOMPARE(e[1].timeUs, memory::kNoTimeUs);
        QCOMPARE(e[4].action, memory::TraceAction::Oom);
        QCOMPARE(e[4].size, int64_t(1) << 40);
        QCOMPARE(e[4].deviceFree, int64_t(1024));
        QCOMPARE(e[5].action, memory::TraceAction::Other);
        QCOMPARE(std::string(s.actionName(e[5])), std::string("some_future_action"));
        QCOMPARE(s.frames.size(), size_t(3));
        QCOMPARE(s.frame(*memory::userFrame(s, e[0].stack)).name, std::string("train_step")); // not torch's forward
        QCOMPARE(s.allocatorSettings, (std::vector<std::pair<std::string, std::string>>{{"max_split_size", "-1"}}));

        // Replay: the pending-free block still counts as allocated (no free_completed yet).
        const auto replay = memory::replayDeviceMemory(s, 0);
        QCOMPARE(replay.initialAllocatedBytes, int64_t(0));
        QCOMPARE(replay.initialReservedBytes, int64_t(0));
        QCOMPARE(replay.finalAllocatedBytes, int64_t(4000 + 8192));
        QCOMPARE(replay.points.size(), size_t(3));
        QVERIFY(replay.consistent);

        // Report JSON, read back with Qt's parser: exactly the documented keys.
        const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(report::snapshotJson(s))).object();
        QCOMPARE(j.keys().size(), 6);
        QCOMPARE(j["segments"].toInt(), 1);
        QCOMPARE(j["reserved_bytes"].toInteger(), qint64(16384));
        QCOMPARE(j["allocated_bytes"].toInteger(), qint64(4096));
        const QJsonArray oomList = j["ooms"].toArray();
        QCOMPARE(oomList.size(), 1);
        QCOMPARE(at(oomList, {0, "requested_bytes"}).toInteger(), qint64(1) << 40);
        QCOMPARE(at(oomList, {0, "device_free_bytes"}).toInteger(), qint64(1024));
        QCOMPARE(at(oomList, {0, "frames", 0, "name"}).toString(), QStringLiteral("train_step"));
        QCOMPARE(at(oomList, {0, "frames", 1, "filename"}).toString(), QStringLiteral("??"));
        QCOMPARE(at(oomList, {0, "frames"}).toArray().size(), 3);
        const QJsonObject actions = j["actions"].toObject();
        QCOMPARE(actions["alloc"].toInt(), 2);
        QCOMPARE(actions["oom"].toInt(), 1);
        QCOMPARE(actions["some_future_action"].toInt(), 1);
        const QJsonArray largest = j["largest_blocks"].toArray();
        QCOMPARE(largest.size(), 2); // inactive blocks are not live
        QCOMPARE(at(largest, {0, "size"}).toInt(), 8192);
        QCOMPARE(at(largest, {0, "state"}).toString(), QStringLiteral("active_pending_free"));
        QCOMPARE(at(largest, {1, "requested_size"}).toInt(), 4000);
        const std::string text = report::snapshotText(s);
        QVERIFY2(contains(text, "out of memory: 1") && contains(text, "at train_step (/home/me/train.py:42)"), text.c_str());
    }

    void wrongShapesAreNamed_data()
    {
        QTest::addColumn<std::string>("bytes");
        QTest::addColumn<std::string>("message");
        using testpickle::Dict;
        using testpickle::List;
        auto with = [](auto change) {
            auto v = smallSnapshot();
            change(v);
            return testpickle::dumps(v);
        };
        auto segment = [](testpickle::Value& v) -> testpickle::Value& { return std::get<List>(v["segments"].v)[0]; };
        auto block = [&](testpickle::Value& v, size_t i) -> testpickle::Value& { return std::get<List>(segment(v)["blocks"].v)[i]; };
        auto entry = [](testpickle::Value& v, size_t i) -> testpickle::Value& {
            return std::get<List>(std::get<List>(v["device_traces"].v)[0].v)[i];
        };
        QTest::newRow("root list") << testpickle::dumps(List{1, 2})
                                   << std::string("not an allocator snapshot: the pickle holds a list, expected a dict with 'segments'");
        QTest::newRow("no segments") << testpickle::dumps(Dict{{"device_traces", List{}}})
                                     << std::string("the pickle's dict has no 'segments'");
        QTest::newRow("segments dict") << with([](auto& v) { v["segments"] = Dict{}; })
                                       << std::string("segments: expected a list, found a dict");
        QTest::newRow("segment int") << with([](auto& v) { std::get<List>(v["segments"].v)[0] = 5; })
                                     << std::string("segments[0]: expected a dict, found an int");
        QTest::newRow("no total_size") << with([&](auto& v) { segment(v).erase("total_size"); })
                                       << std::string("segments[0]: missing 'total_size'");
        QTest::newRow("blocks none") << with([&](auto& v) { segment(v)["blocks"] = nullptr; })
                                     << std::string("segments[0].blocks: expected a list, found a NoneType");
        QTest::newRow("block without size") << with([&](auto& v) { block(v, 1).erase("size"); })
                                            << std::string("segments[0].blocks[1]: missing 'size'");
        QTest::newRow("size text") << with([&](auto& v) { block(v, 0)["size"] = "4096"; })
                                   << std::string("segments[0].blocks[0].size: expected an int, found a str");
        QTest::newRow("size float") << with([&](auto& v) { block(v, 0)["size"] = 4096.0; })
                                    << std::string("segments[0].blocks[0].size: expected an int, found a float");
        QTest::newRow("negative size") << with([&](auto& v) { block(v, 2)["size"] = -1; })
                                       << std::string("segments[0].blocks[2].size: negative value -1");
        QTest::newRow("state") << with([&](auto& v) { block(v, 0)["state"] = "allocated"; })
                               << std::string("segments[0].blocks[0].state: unknown block state 'allocated'");
        QTest::newRow("frames dict") << with([&](auto& v) { block(v, 0)["frames"] = Dict{}; })
                                     << std::string("segments[0].blocks[0].frames: expected a list, found a dict");
        QTest::newRow("frame list") << with([&](auto& v) { block(v, 0)["frames"] = List{List{}}; })
                                    << std::string("segments[0].blocks[0].frames[0]: expected a dict, found a list");
        QTest::newRow("frame without name") << with([&](auto& v) {
            block(v, 0)["frames"] = List{Dict{{"filename", "a.py"}, {"line", 1}}};
        }) << std::string("segments[0].blocks[0].frames[0]: missing 'name'");
        QTest::newRow("traces dict") << with([](auto& v) { v["device_traces"] = Dict{}; })
                                     << std::string("device_traces: expected a list, found a dict");
        QTest::newRow("trace of ints") << with([](auto& v) { v["device_traces"] = List{List{1}}; })
                                       << std::string("device_traces[0][0]: expected a dict, found an int");
        QTest::newRow("no action") << with([&](auto& v) { entry(v, 2).erase("action"); })
                                   << std::string("device_traces[0][2]: missing 'action'");
        QTest::newRow("alloc without addr") << with([&](auto& v) { entry(v, 1).erase("addr"); })
                                            << std::string("device_traces[0][1]: missing 'addr'");
        QTest::newRow("oom without device_free")
            << with([&](auto& v) { entry(v, 4).erase("device_free"); }) << std::string("device_traces[0][4]: missing 'device_free'");
        QTest::newRow("time text") << with([&](auto& v) { entry(v, 0)["time_us"] = "now"; })
                                   << std::string("device_traces[0][0].time_us: expected an int, found a str");
        QTest::newRow("annotations") << with([](auto& v) { v["external_annotations"] = List{1}; })
                                     << std::string("external_annotations[0]: expected a dict, found an int");
        QTest::newRow("settings") << with([](auto& v) { v["allocator_settings"] = List{}; })
                                  << std::string("allocator_settings: expected a dict, found a list");
    }
    void wrongShapesAreNamed()
    {
        QFETCH(std::string, bytes);
        QFETCH(std::string, message);
        const std::string e = snapshotError(bytes);
        QVERIFY2(e.starts_with("s.pickle: "), e.c_str());
        QVERIFY2(contains(e, message), e.c_str());
        QVERIFY(e.find('\n') == std::string::npos);
    }

    void snapshotReportOfMemoryChurn()
    {
        const std::string path = testutil::dataPath(kChurn);
        QCOMPARE(report::detectMemoryFile(path), report::MemoryFileKind::AllocatorSnapshot);
        QCOMPARE(report::detectMemoryFile(testutil::dataPath(kCut)), report::MemoryFileKind::AllocatorSnapshot);
        QCOMPARE(report::detectMemoryFile(testutil::workloadTrace("memory_churn")), report::MemoryFileKind::Other);
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(report::memoryFileReport(path, "json")));
        const QJsonObject j = doc.object();
        QCOMPARE(j.keys(), (QStringList{"actions", "allocated_bytes", "largest_blocks", "ooms", "reserved_bytes", "segments"}));
        QCOMPARE(j["segments"].toInt(), 3);
        QCOMPARE(j["reserved_bytes"].toInteger(), qint64(2151677952));
        QCOMPARE(j["allocated_bytes"].toInteger(), qint64(704643072));
        QCOMPARE(j["ooms"].toArray().size(), 0);
        const QJsonObject actions = j["actions"].toObject();
        QCOMPARE(actions.size(), 4);
        QCOMPARE(actions["alloc"].toInt(), 610);
        QCOMPARE(actions["free_requested"].toInt(), 600);
        QCOMPARE(actions["free_completed"].toInt(), 600);
        QCOMPARE(actions["segment_alloc"].toInt(), 2);
        // The 10 largest of the 11 live blocks: the ten 64 MiB tensors, each with its user frame first.
        const QJsonArray largest = j["largest_blocks"].toArray();
        QCOMPARE(largest.size(), 10);
        for (const auto& b : largest) {
            QCOMPARE(at(b, {"size"}).toInteger(), qint64(64) << 20);
            QCOMPARE(at(b, {"state"}).toString(), QStringLiteral("active_allocated"));
            QCOMPARE(at(b, {"frames", 0, "name"}).toString(), QStringLiteral("w_memory_churn"));
            QVERIFY(at(b, {"frames", 0, "line"}).toInt() > 0);
        }
        const std::string text = report::memoryFileReport(path, "table");
        for (const char* part :
             {"segments:  3 (1 large, 2 small) on cuda:0", "blocks:    17 (11 active_allocated, 0 active_pending_free, 6 inactive)",
              "history:   1,812 entries on 1 device", "out of memory: none", "w_memory_churn ("})
            QVERIFY2(contains(text, part), text.c_str());
        try {
            report::memoryFileReport(testutil::workloadTrace("memory_churn"), "json");
            QFAIL("a trace is not a memory file");
        } catch (const io::TraceFileError& e) {
            QVERIFY(contains(e.what(), "not an allocator snapshot (a torch.cuda.memory pickle) or a memory timeline"));
        }
    }
};

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
