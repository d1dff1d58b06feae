// SPDX-License-Identifier: MIT
// trace::PrefaultAhead makes the pages past a growing array's end resident (mincore says which are), keeps
// its distance ahead as the array fills, follows the array where it moves and changes none of its bytes.
#include "trace/prefaultahead.h"

#include <QtTest>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

using tilescope::trace::PrefaultAhead;

namespace {

constexpr size_t kMiB = size_t(1) << 20;

// An anonymous mapping, none of its pages resident until written.
struct Region
{
    explicit Region(size_t bytes)
        : size(bytes)
        , data(static_cast<char*>(::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)))
    { }
    ~Region() { ::munmap(data, size); }
    size_t size;
    char* data;
};

// How many of the pages in [offset, offset + bytes) of the region are resident.
size_t residentPages(const Region& r, size_t offset, size_t bytes)
{
    const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> flags((bytes + page - 1) / page);
    if (::mincore(r.data + offset, bytes, flags.data()) != 0)
        return SIZE_MAX;
    size_t resident = 0;
    for (const unsigned char f : flags)
        resident += f & 1;
    return resident;
}

bool kernelPopulates()
{
    Region probe(kMiB);
    return ::madvise(probe.data, kMiB, 23 /* MADV_POPULATE_WRITE */) == 0;
}

} // namespace

class TestPrefaultAhead : public QObject
{
    Q_OBJECT
private slots:
    void keepsItsDistanceAhead()
    {
        if (!kernelPopulates())
            QSKIP("this kernel has no MADV_POPULATE_WRITE (before 5.14): PrefaultAhead does nothing there");
        const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        Region array(32 * kMiB);
        QCOMPARE(array.data == MAP_FAILED, false);
        std::memcpy(array.data, "written before", 15);
        QCOMPARE(residentPages(array, 0, 32 * kMiB), size_t(1));
        PrefaultAhead ahead(4 * kMiB, 0);

        ahead.filledTo(array.data, 15, array.size);
        QTRY_VERIFY(residentPages(array, 0, 4 * kMiB) == 4 * kMiB / page);
        QCOMPARE(residentPages(array, 8 * kMiB, 24 * kMiB), size_t(0)); // no further than asked
        QCOMPARE(std::string(array.data, 15), std::string("written before", 15));
        QCOMPARE(array.data[4 * kMiB - 1], '\0');

        // Filled past half the distance: the next pages; under half: nothing more.
        ahead.filledTo(array.data, 3 * kMiB, array.size);
        QTRY_VERIFY(residentPages(array, 0, 7 * kMiB) == 7 * kMiB / page);
        ahead.filledTo(array.data, 4 * kMiB, array.size);
        QTest::qWait(50);
        QCOMPARE(residentPages(array, 7 * kMiB, 25 * kMiB), size_t(0));

        // Never past the capacity.
        ahead.filledTo(array.data, 6 * kMiB, 8 * kMiB);
        QTRY_VERIFY(residentPages(array, 0, 8 * kMiB) == 8 * kMiB / page);
        QTest::qWait(50);
        QCOMPARE(residentPages(array, 8 * kMiB, 24 * kMiB), size_t(0));

        // The array moved (a vector grew): its new place, from its filled end.
        Region moved(16 * kMiB);
        ahead.filledTo(moved.data, 2 * kMiB, moved.size);
        QTRY_VERIFY(residentPages(moved, 2 * kMiB, 4 * kMiB) == 4 * kMiB / page);
        QCOMPARE(residentPages(moved, 0, 2 * kMiB), size_t(0)); // the filled part is the filler's own
        QVERIFY(ahead.populatedBytes() >= 11 * kMiB);           // 4 + 3 + 1 + 4 MiB, less the bytes filled first
    }

    // Its thread starts only once the array is filled past `startFrom` (by default 2 MiB): the filler's own
    // faults until then.
    void startsPastStartFrom()
    {
        if (!kernelPopulates())
            QSKIP("this kernel has no MADV_POPULATE_WRITE (before 5.14): PrefaultAhead does nothing there");
        const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        Region array(8 * kMiB);
        PrefaultAhead ahead(kMiB);
        ahead.filledTo(array.data, PrefaultAhead::kWorthAThreadFrom - 1, array.size);
        QTest::qWait(50);
        QCOMPARE(ahead.populatedBytes(), size_t(0));
        QCOMPARE(residentPages(array, 0, 8 * kMiB), size_t(0));
        ahead.filledTo(array.data, PrefaultAhead::kWorthAThreadFrom, array.size);
        QTRY_VERIFY(residentPages(array, PrefaultAhead::kWorthAThreadFrom, kMiB) == kMiB / page);
        ahead.finish(array.data, PrefaultAhead::kWorthAThreadFrom);
        QCOMPARE(residentPages(array, 0, 8 * kMiB), size_t(0));
    }

    // Finished, it gives back the whole pages it made resident past the filled end; the filled bytes stay.
    // Finished with an array it was not told of last (the array moved), or only destroyed (an error unwinds
    // the filling), it gives back nothing: those pages may be another's now.
    void givesBackWhatWasNotFilled()
    {
        if (!kernelPopulates())
            QSKIP("this kernel has no MADV_POPULATE_WRITE (before 5.14): PrefaultAhead does nothing there");
        const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        Region array(8 * kMiB);
        std::memcpy(array.data, "filled", 7);
        {
            PrefaultAhead ahead(4 * kMiB, 0);
            ahead.filledTo(array.data, 7, array.size);
            QTRY_VERIFY(residentPages(array, 0, 4 * kMiB) == 4 * kMiB / page);
        }
        QCOMPARE(residentPages(array, 0, 4 * kMiB), 4 * kMiB / page); // destroyed only
        {
            PrefaultAhead ahead(4 * kMiB, 0);
            ahead.filledTo(array.data, 7, array.size);
            Region other(kMiB);
            ahead.finish(other.data, 0); // not the array it was told of
        }
        QCOMPARE(residentPages(array, 0, 4 * kMiB), 4 * kMiB / page);
        {
            PrefaultAhead ahead(4 * kMiB, 0);
            ahead.filledTo(array.data, 7, array.size);
            QTRY_VERIFY(ahead.populatedBytes() > 0);
            ahead.finish(array.data, 7);
        }
        QCOMPARE(residentPages(array, 0, page), size_t(1));
        QCOMPARE(std::string(array.data, 7), std::string("filled", 7));
        QCOMPARE(residentPages(array, page, 4 * kMiB - page), size_t(0));
        QVERIFY(residentPages(array, 4 * kMiB, 4 * kMiB) <= 1); // the page the distance ended in (a whole page only)
    }

    // An array that ends inside a page: the page it shares with what follows keeps its bytes.
    void givesBackWholePagesOnly()
    {
        if (!kernelPopulates())
            QSKIP("this kernel has no MADV_POPULATE_WRITE (before 5.14): PrefaultAhead does nothing there");
        const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        Region memory(8 * page);
        char* const neighbour = memory.data + 5 * page + 100; // right after an array of 5 pages and 100 bytes
        std::memcpy(neighbour, "neighbour", 10);
        {
            PrefaultAhead ahead(8 * page, 0);
            ahead.filledTo(memory.data, 10, 5 * page + 100);
            QTRY_VERIFY(residentPages(memory, 0, 5 * page) == 5);
            ahead.finish(memory.data, 10);
        }
        QCOMPARE(std::string(neighbour, 10), std::string("neighbour", 10));
        QCOMPARE(residentPages(memory, 5 * page, page), size_t(1));
        QCOMPARE(residentPages(memory, page, 4 * page), size_t(0));
    }

    // Stopped while the filler is still telling it where to go, and never told anything: no hang.
    void stopsAtOnce()
    {
        Region array(8 * kMiB);
        {
            PrefaultAhead ahead(kMiB, 0);
            for (size_t filled = 0; filled < array.size; filled += 4096)
                ahead.filledTo(array.data, filled, array.size);
        }
        {
            PrefaultAhead idle(kMiB, 0);
        }
        QVERIFY(true);
    }
};

QTEST_GUILESS_MAIN(TestPrefaultAhead)
#include "tst_prefaultahead.moc"
