// SPDX-License-Identifier: MIT
// Raw args kept out of memory (trace::ArgsStore): what is read back is what the file says.
#include "testutil.h"

#include "trace/argsstore.h"
#include "trace/traceloader.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <thread>

using namespace tilescope;

class TestArgsStore : public QObject
{
    Q_OBJECT

private slots:
    void entriesReadBackFromTheTemporaryFile()
    {
        trace::ArgsStore store;
        std::vector<std::string> written;
        // Over a few MiB, so most entries are read from the file and the last ones were flushed by finish().
        for (int i = 0; i < 40000; ++i) {
            std::string text = "{\"i\": " + std::to_string(i) + ", \"pad\": \"" + std::string(size_t(i % 160), char('a' + i % 26)) + "\"}";
            if (i % 1000 == 7)
                text.clear(); // an empty entry is still an entry
            QCOMPARE(store.append(text), uint32_t(i));
            written.push_back(std::move(text));
        }
        store.finish();
        QVERIFY(store.onDisk());
        QCOMPARE(store.size(), written.size());
        trace::ArgsStore moved = std::move(store);
        // pread has no shared file position: two threads read at once.
        auto check = [&](size_t from, size_t step, bool& ok) {
            ok = true;
            for (size_t i = from; i < written.size(); i += step)
                ok = ok && moved.read(uint32_t(i)) == written[i];
        };
        bool even = false, odd = false;
        std::thread other([&] { check(1, 2, odd); });
        check(0, 2, even);
        other.join();
        QVERIFY(even);
        QVERIFY(odd);
        QVERIFY(moved.read(uint32_t(written.size())).empty()); // out of range: nothing, not a crash
    }

    void rawArgsEqualTheFileForEveryEvent()
    {
        const std::string path = testutil::workloadTrace("gemm_compare");
        const std::string text = testutil::readFile(path);
        const auto file = nlohmann::json::parse(text);
        const auto t = trace::loadTrace(path);
        QVERIFY(t->args.onDisk());
        // The trace's events are its X and i records, in file order.
        std::vector<const nlohmann::json*> records;
        for (const auto& e : file.at("traceEvents"))
            if (e.value("ph", "") == "X" || e.value("ph", "") == "i")
                records.push_back(&e);
        QCOMPARE(t->events.size(), records.size());
        size_t withArgs = 0;
        for (size_t i = 0; i < records.size(); ++i) {
            const std::string raw = t->rawArgs(t->events[i]);
            const auto found = records[i]->find("args");
            if (found == records[i]->end()) {
                QVERIFY(raw.empty());
                continue;
            }
            ++withArgs;
            QVERIFY2(text.find(raw) != std::string::npos, raw.c_str()); // the file's own text, byte for byte
            QVERIFY2(nlohmann::json::parse(raw) == *found, raw.c_str());
        }
        QVERIFY(withArgs > 200);
    }
};

QTEST_MAIN(TestArgsStore)
#include "tst_argsstore.moc"
