// SPDX-License-Identifier: MIT
// trace::gallopLowerBound and gallopUpperBound against std::lower_bound and std::upper_bound: the same
// answer from every hint, for every value around the range's, with ties, and at the edges.
#include "trace/gallopsearch.h"

#include <QtTest>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

using tilescope::trace::gallopLowerBound;
using tilescope::trace::gallopUpperBound;

class TestGallopSearch : public QObject
{
    Q_OBJECT

private slots:
    void everyHintEveryValue_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("keyRange");
        QTest::newRow("empty") << 0 << 3;
        QTest::newRow("one") << 1 << 3;
        QTest::newRow("two equal") << 2 << 0;
        QTest::newRow("small, many ties") << 17 << 4;
        QTest::newRow("larger, few ties") << 300 << 1000;
        QTest::newRow("larger, all ties") << 129 << 0;
    }

    void everyHintEveryValue()
    {
        QFETCH(int, size);
        QFETCH(int, keyRange);
        std::mt19937 random(static_cast<unsigned>(size * 31 + keyRange));
        std::vector<int> keys(static_cast<size_t>(size));
        for (int& k : keys)
            k = std::uniform_int_distribution<int>(0, keyRange)(random);
        std::sort(keys.begin(), keys.end());
        int checked = 0;
        for (int value = -1; value <= keyRange + 1; ++value) {
            const auto lower = std::lower_bound(keys.begin(), keys.end(), value);
            const auto upper = std::upper_bound(keys.begin(), keys.end(), value);
            for (auto hint = keys.begin();; ++hint) {
                const auto gotLower = gallopLowerBound(keys.begin(), keys.end(), hint, value, std::less<>());
                const auto gotUpper = gallopUpperBound(keys.begin(), keys.end(), hint, value, std::less<>());
                if (gotLower != lower || gotUpper != upper)
                    QFAIL(qPrintable(QString("value %1, hint %2: lower %3 (want %4), upper %5 (want %6)")
                                         .arg(value)
                                         .arg(hint - keys.begin())
                                         .arg(gotLower - keys.begin())
                                         .arg(lower - keys.begin())
                                         .arg(gotUpper - keys.begin())
                                         .arg(upper - keys.begin())));
                ++checked;
                if (hint == keys.end())
                    break;
            }
        }
        QVERIFY(checked > 0);
    }

    // Pairs compared by their first member only, as key averages' (id, event) list is searched.
    void customOrder()
    {
        std::vector<std::pair<int, int>> items;
        for (int i = 0; i < 200; ++i)
            items.emplace_back(i / 3, i);
        const auto byFirst = [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; };
        for (int id = -2; id < 70; ++id) {
            const std::pair<int, int> probe{id, 0};
            const auto want = std::lower_bound(items.begin(), items.end(), probe, byFirst);
            for (const size_t hint : {size_t(0), size_t(57), size_t(199), size_t(200)})
                QCOMPARE(gallopLowerBound(items.begin(), items.end(), items.begin() + static_cast<ptrdiff_t>(hint), probe, byFirst)
                             - items.begin(),
                         want - items.begin());
        }
    }
};

QTEST_APPLESS_MAIN(TestGallopSearch)
#include "tst_gallopsearch.moc"
