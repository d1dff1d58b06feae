// SPDX-License-Identifier: MIT
// trace::StringPool: one id per distinct text, dense and in order of first sight; views that stay valid
// while the pool grows; texts longer than a block; clear() for reuse; against a std::map reference.
#include "trace/stringpool.h"

#include <QtTest>

#include <map>
#include <random>
#include <string>

using tilescope::trace::StringId;
using tilescope::trace::StringPool;

class TestStringPool : public QObject
{
    Q_OBJECT
private slots:
    void emptyIsZero()
    {
        StringPool pool;
        QCOMPARE(pool.size(), size_t(1));
        QCOMPARE(pool.intern(""), StringId(0));
        QCOMPARE(pool.find(""), StringId(0));
        QCOMPARE(pool.find("x"), tilescope::trace::kNoIndex);
    }

    void againstAReference()
    {
        std::mt19937 random(7);
        for (const bool reuse : {false, true}) {
            StringPool pool;
            for (int round = 0; round < 3; ++round) {
                std::map<std::string, StringId> expected{{"", 0}};
                std::vector<std::string_view> firstViews{""};
                for (int i = 0; i < 30000; ++i) {
                    // Short names that collide often, long ones, and now and then one longer than a block.
                    std::string text;
                    const int kind = static_cast<int>(random() % 100);
                    const size_t length = kind == 0 ? 70000 + random() % 1000 : kind < 20 ? 20 + random() % 300 : random() % 12;
                    for (size_t k = 0; k < length; ++k)
                        text += static_cast<char>('a' + random() % (kind < 50 ? 3 : 26));
                    const auto [it, inserted] = expected.try_emplace(text, static_cast<StringId>(expected.size()));
                    const StringId id = pool.intern(text);
                    QCOMPARE(id, it->second);
                    if (inserted)
                        firstViews.push_back(pool.view(id));
                }
                QCOMPARE(pool.size(), expected.size());
                for (const auto& [text, id] : expected) {
                    QCOMPARE(pool.find(text), id);
                    QCOMPARE(std::string(pool.view(id)), text);
                    // The view taken when the text was new still reads it, after every later insertion: the
                    // bytes never moved (a dangling view is garbage here, and an error under ASan).
                    QCOMPARE(std::string(firstViews[id]), text);
                }
                if (reuse) {
                    pool.clear();
                    QCOMPARE(pool.size(), size_t(1));
                    QCOMPARE(pool.find(expected.rbegin()->first), tilescope::trace::kNoIndex);
                } else {
                    StringPool taken = std::move(pool); // the views move with it
                    QCOMPARE(std::string(taken.view(1)), std::string(firstViews[1]));
                    pool = StringPool();
                }
            }
        }
    }

    // A pool moved from is empty and works as a new one (the parallel load's chunks reuse theirs).
    void movedFromIsUsable()
    {
        StringPool a;
        const StringId x = a.intern("x");
        StringPool b = std::move(a);
        QCOMPARE(b.find("x"), x);
        QCOMPARE(a.size(), size_t(1));
        QCOMPARE(a.find("x"), tilescope::trace::kNoIndex);
        QCOMPARE(a.intern("y"), StringId(1));
        a.clear();
        QCOMPARE(a.intern(""), StringId(0));
        StringPool c;
        c.intern("z");
        c = std::move(b);
        QCOMPARE(c.find("x"), x);
        QCOMPARE(c.find("z"), tilescope::trace::kNoIndex);
        QCOMPARE(b.size(), size_t(1));
        QCOMPARE(b.intern("w"), StringId(1));
    }
};

QTEST_APPLESS_MAIN(TestStringPool)
#include "tst_stringpool.moc"
