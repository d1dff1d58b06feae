// SPDX-License-Identifier: MIT
// trace::sortRuns against std::stable_sort: the same order, ties included, for runs of every shape, and
// for ranges of many runs (where it is std::stable_sort itself).
#include "trace/sortruns.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <vector>

using tilescope::trace::sortRuns;

namespace {

struct Item
{
    int key;
    int order; // where it was before sorting: ties must keep it
    bool operator==(const Item&) const = default;
};

bool byKey(const Item& a, const Item& b) { return a.key < b.key; }

// `runs` ascending runs of random lengths summing to n, keys from a small range so that ties are common.
std::vector<Item> runsOf(std::mt19937& random, size_t n, size_t runs, int keyRange)
{
    std::vector<int> keys(n);
    for (int& k : keys)
        k = std::uniform_int_distribution<int>(0, keyRange)(random);
    std::vector<size_t> cuts{0, n};
    for (size_t i = 1; i < runs && n > 1; ++i)
        cuts.push_back(std::uniform_int_distribution<size_t>(1, n - 1)(random));
    std::sort(cuts.begin(), cuts.end());
    for (size_t i = 0; i + 1 < cuts.size(); ++i)
        std::sort(keys.begin() + static_cast<ptrdiff_t>(cuts[i]), keys.begin() + static_cast<ptrdiff_t>(cuts[i + 1]));
    std::vector<Item> items(n);
    for (size_t i = 0; i < n; ++i)
        items[i] = {keys[i], static_cast<int>(i)};
    return items;
}

void expectStableSorted(std::vector<Item> items, const char* what)
{
    std::vector<Item> expected = items;
    std::stable_sort(expected.begin(), expected.end(), byKey);
    sortRuns(items.begin(), items.end(), byKey);
    QVERIFY2(items == expected, what);
}

} // namespace

class TestSortRuns : public QObject
{
    Q_OBJECT
private slots:
    void shapes()
    {
        expectStableSorted({}, "empty");
        expectStableSorted({{1, 0}}, "one");
        expectStableSorted({{2, 0}, {1, 1}}, "two, reversed");
        expectStableSorted({{1, 0}, {1, 1}, {1, 2}}, "all equal");
        std::vector<Item> descending;
        for (int i = 0; i < 1000; ++i)
            descending.push_back({1000 - i, i}); // 1000 runs of one: past the limit, a plain stable sort
        expectStableSorted(descending, "descending");
        // Runs of 40 with ties inside and between them: 3 (odd: one is carried a round), 5 and 16 runs are
        // merged (16 is the most for these sizes), 17 are past the limit and sorted plainly.
        for (const int runs : {2, 3, 5, 16, 17}) {
            std::vector<Item> sawtooth;
            for (int r = 0; r < runs; ++r)
                for (int i = 0; i < 40; ++i)
                    sawtooth.push_back({i / 3, static_cast<int>(sawtooth.size())});
            expectStableSorted(sawtooth, qPrintable(QStringLiteral("%1 runs").arg(runs)));
        }
    }

    void randomRuns()
    {
        std::mt19937 random(20261205);
        for (int round = 0; round < 400; ++round) {
            const size_t n = std::uniform_int_distribution<size_t>(0, 20000)(random);
            const size_t runs = std::uniform_int_distribution<size_t>(1, round % 4 == 0 ? 400 : 20)(random);
            const int keyRange = round % 3 == 0 ? 5 : 1000000;
            expectStableSorted(runsOf(random, n, runs, keyRange),
                               qPrintable(QStringLiteral("round %1: %2 items, %3 runs").arg(round).arg(n).arg(runs)));
        }
    }
};

QTEST_APPLESS_MAIN(TestSortRuns)
#include "tst_sortruns.moc"
