// SPDX-License-Identifier: MIT
// Bad input always gives a clear error naming the file and the problem: never a crash, hang or a
// silently wrong result.
#include "gziptext.h"
#include "testutil.h"

#include "io/tracefileerror.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace tilescope;

namespace {

const char* kGoodPrefix = "{\"schemaVersion\": 1, \"traceEvents\": [\n"
                          "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 100.000, "
                          "\"dur\": 5.000, \"args\": {\"External id\": 1}},\n"
                          "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 101.000, \"dur\": "
                          "2.000, \"args\": {\"correlation\": 9, \"External id\": 1}}";

std::string write(const QTemporaryDir& dir, const std::string& name, const std::string& content)
{
    const std::string path = dir.path().toStdString() + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
}

using testutil::gzipped;

} // namespace

class TestBadInput : public QObject
{
    Q_OBJECT
private slots:
    void rejected_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("problem");
        const QByteArray good(kGoodPrefix);
        QTest::newRow("not json") << QByteArray("this is not a trace\n") << "expected a JSON value";
        QTest::newRow("truncated") << good.left(good.size() - 30) << "truncated";
        QTest::newRow("byte-order mark") << QByteArray("\xEF\xBB\xBF") + good << "starts with a UTF-8 byte-order mark";
        QTest::newRow("truncated after comma") << good + ","
                                               << "truncated";
        QTest::newRow("scalar top level") << QByteArray("42") << "expected a JSON object or array";
        QTest::newRow("no traceEvents") << QByteArray("{\"schemaVersion\": 1}") << "no 'traceEvents'";
        QTest::newRow("traceEvents not array") << QByteArray("{\"traceEvents\": {}}") << "expected '[' for 'traceEvents'";
        QTest::newRow("event not object") << QByteArray("{\"traceEvents\": [1]}") << "expected a trace event object";
        QTest::newRow("ts is string") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": \"1\", \"dur\": 1}]}")
                                      << "expected a number for 'ts'";
        QTest::newRow("name is object") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": {}, \"ts\": 1, \"dur\": 1}]}")
                                        << "for 'name'";
        QTest::newRow("args not object") << QByteArray(
            "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1, \"args\": 3}]}")
                                         << "for 'args'";
        QTest::newRow("external id string") << QByteArray(
            "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1, \"args\": {\"External id\": \"x\"}}]}")
                                            << "integer for args 'External id'";
        QTest::newRow("fractional id") << QByteArray(
            "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": 1.5}}]}")
                                       << "integer for args 'correlation'";
        QTest::newRow("missing ts") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"dur\": 1}]}") << "has no 'ts'";
        QTest::newRow("missing dur") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1}]}") << "has no 'dur'";
        QTest::newRow("missing ph") << QByteArray("{\"traceEvents\": [{\"name\": \"a\", \"ts\": 1}]}") << "has no 'ph'";
        QTest::newRow("bad ph") << QByteArray("{\"traceEvents\": [{\"ph\": \"XX\", \"name\": \"a\", \"ts\": 1}]}") << "invalid 'ph'";
        QTest::newRow("negative dur") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": -5}]}")
                                      << "negative duration";
        QTest::newRow("nan") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": NaN, \"dur\": 1}]}") << "NaN";
        QTest::newRow("infinity") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": Infinity, \"dur\": 1}]}")
                                  << "NaN and Infinity";
        QTest::newRow("huge ts") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1e300, \"dur\": 1}]}")
                                 << "out of range";
        QTest::newRow("huge integer ts") << QByteArray(
            "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 123456789012345678901234567890, \"dur\": 1}]}")
                                         << "out of range";
        QTest::newRow("invalid utf8") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\xc3\x28\", \"ts\": 1, \"dur\": 1}]}")
                                      << "invalid UTF-8";
        QTest::newRow("end before begin") << QByteArray("{\"traceEvents\": [{\"ph\": \"B\", \"name\": \"a\", \"ts\": 5, \"pid\": 1, "
                                                        "\"tid\": 1}, {\"ph\": \"E\", \"ts\": 2, \"pid\": 1, \"tid\": 1}]}")
                                          << "end event before its begin";
        QTest::newRow("garbage after") << good + "]} trailing"
                                       << "after the end of the JSON document";
        QTest::newRow("binary") << QByteArray("\x00\x01\x02\x03", 4) << "expected a JSON value";
    }
    void rejected()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const std::string path = write(dir, "bad.json", std::string(content.constData(), size_t(content.size())));
        try {
            trace::loadTrace(path);
            QFAIL("no error");
        } catch (const io::TraceFileError& e) {
            const std::string message = e.what();
            QVERIFY2(message.starts_with(path + ": "), message.c_str());
            QVERIFY2(message.find(problem.toStdString()) != std::string::npos, message.c_str());
            QVERIFY2(message.find('\n') == std::string::npos, "one line");
        }
        // The same bytes compressed fail the same way.
        const std::string gz = write(dir, "bad.json.gz", gzipped(std::string(content.constData(), size_t(content.size()))));
        QVERIFY_THROWS_EXCEPTION(io::TraceFileError, trace::loadTrace(gz));
    }

    // Memory data given where a trace is expected is named, also under --partial, so the CLI and the
    // app's error dialog point to the right reader.
    void memoryDataIsNamed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("what");
        QTest::newRow("timeline") << "memory/memory_timeline.json"
                                  << "this is a torch memory timeline export (";
        QTest::newRow("raw timeline") << "memory/memory_timeline.raw.json.gz"
                                      << "this is a torch memory timeline export (prof.export_memory_timeline raw";
        QTest::newRow("snapshot") << "memory/memory_snapshot.pickle"
                                  << "this is a CUDA allocator snapshot (";
    }
    void memoryDataIsNamed()
    {
        QFETCH(QString, file);
        QFETCH(QString, what);
        const std::string path = testutil::dataPath(file.toStdString());
        for (const bool partial : {false, true}) {
            trace::LoadOptions options;
            options.partial = partial;
            try {
                trace::loadTrace(path, options);
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                const std::string message = e.what();
                QVERIFY2(message.starts_with(path + ": " + what.toStdString()), message.c_str());
                QVERIFY2(message.ends_with(", not a trace"), message.c_str()); // the CLI adds how to read it
                QVERIFY(e.isMemoryData());
            }
        }
        // Other arrays of arrays and other pickles keep their own errors.
        QTemporaryDir dir;
        for (const auto& [content, problem] : {std::pair<std::string, std::string>{"[[\"a\"]]", "expected a trace event object"},
                                               {"[[1, 2], 3]", "expected a trace event object"},
                                               {"\x80\x04\x95\x00K\x01.", "this is a Python pickle, not a trace"}}) {
            try {
                trace::loadTrace(write(dir, "other", content));
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                QVERIFY2(std::string(e.what()).find(problem) != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("memory") == std::string::npos, e.what());
            }
        }
    }

    void fileSystemProblems()
    {
        QTemporaryDir dir;
        auto expectError = [](const std::string& path, const std::string& problem) {
            try {
                trace::loadTrace(path);
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find(problem) != std::string::npos, e.what());
            }
        };
        expectError(write(dir, "empty.json", ""), "empty file");
        expectError(dir.path().toStdString(), "is a directory");
        expectError(dir.path().toStdString() + "/missing.json", "cannot open");
        if (geteuid() != 0) { // root reads anything
            const std::string locked = write(dir, "locked.json", "{}");
            ::chmod(locked.c_str(), 0);
            expectError(locked, "Permission denied");
        }
        // A gzip stream cut short, and corrupt compressed bytes.
        const std::string good = gzipped(std::string(kGoodPrefix) + "]}");
        expectError(write(dir, "cut.json.gz", good.substr(0, good.size() / 2)), "truncated gzip");
        std::string corrupt = good;
        for (size_t i = 12; i < corrupt.size() - 8; ++i)
            corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
        expectError(write(dir, "corrupt.json.gz", corrupt), "corrupt gzip");
    }

    void partialLoadKeepsCompleteEvents()
    {
        QTemporaryDir dir;
        const std::string truncated = std::string(kGoodPrefix)
            + ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"cut\", \"pid\": 1, \"ts\": 1";
        const std::string path = write(dir, "crashed.json", truncated);
        QVERIFY_THROWS_EXCEPTION(io::TraceFileError, trace::loadTrace(path));
        trace::LoadOptions options;
        options.partial = true;
        const auto t = trace::loadTrace(path, options);
        QVERIFY(t->stats.partial);
        QCOMPARE(t->events.size(), size_t(2)); // the cut third event is not kept
        QCOMPARE(t->stats.warnings.size(), size_t(1));
        QVERIFY(t->stats.warnings[0].find("partial load: stopped at " + path + ": byte ") == 0);
        QCOMPARE(t->opOf(1), 0u);
        // A compressed trace cut in the middle loads as far as it is whole.
        std::string body = "{\"traceEvents\": [";
        for (int i = 0; i < 20000; ++i)
            body += (i ? "," : "") + std::string("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op") + std::to_string(i % 97)
                + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i * 10) + ", \"dur\": 5}";
        body += "]}";
        const std::string gz = gzipped(body);
        const std::string cut = write(dir, "cut.json.gz", gz.substr(0, gz.size() / 2));
        const auto p = trace::loadTrace(cut, options);
        QVERIFY(p->stats.partial);
        QVERIFY(p->events.size() > 1000 && p->events.size() < 20000);
        for (size_t i = 0; i < p->events.size(); ++i)
            QCOMPARE(p->events[i].start, int64_t(i) * 10000);
    }
};

QTEST_APPLESS_MAIN(TestBadInput)
#include "tst_badinput.moc"
