// SPDX-License-Identifier: MIT
// One timeline holding every rank's lanes (issue #13, "the timeline groups lanes per rank"), on the gloo
// fixtures (4 ranks, rank 2 slow): the lanes of each rank follow its header in rank order and its GPU
// streams are the ones its raw JSON's kernels ran on; folding a header hides exactly its lanes; a click on a
// rank's kernel (found here in the raw JSON) selects that rank's event, the details show it and its tooltip
// names the rank.
#include "testutil.h"

#include "detailspanel.h"
#include "io/smalljson.h"
#include "rankstimelines.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QHelpEvent>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include <cmath>
#include <set>

using namespace tilescope;

namespace {

using Lane = TimelineView::Lane;

std::string rankFile(const char* run, int rank)
{
    return testutil::dataPath(std::string("ranks/gloo/") + run + "/rank-" + std::to_string(rank) + ".json.gz");
}

int64_t ns(const io::Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

struct RawKernel
{
    std::string name;
    int64_t start = 0, duration = 0;
    int64_t stream = 0;
    int row = 0; // the GPU annotations (ProfilerStep#N, ...) on its stream around it sit above it
};

// The rank's streams with kernels and its longest kernel, from the raw JSON.
struct RawRank
{
    std::set<int64_t> streams;
    RawKernel longest;
};

RawRank rawRank(const std::string& path)
{
    RawRank raw;
    const io::Json doc = io::readSmallJsonFile(path);
    for (const io::Json& e : doc["traceEvents"]) {
        if (e.value("ph", "") != "X" || e.value("cat", "") != "kernel")
            continue;
        raw.streams.insert(e["tid"].get<int64_t>());
        if (ns(e["dur"]) > raw.longest.duration)
            raw.longest = {e["name"].get<std::string>(), ns(e["ts"]), ns(e["dur"]), e["tid"].get<int64_t>()};
    }
    RawKernel& k = raw.longest;
    for (const io::Json& e : doc["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("cat", "") == "gpu_user_annotation" && e["tid"].get<int64_t>() == k.stream
            && ns(e["ts"]) <= k.start && ns(e["ts"]) + ns(e["dur"]) >= k.start + k.duration)
            ++k.row;
    return raw;
}

// (group, kind, id) of every lane: what a fold may change.
std::vector<std::tuple<int, Lane::Kind, uint32_t>> laneKeys(const TimelineView* view)
{
    std::vector<std::tuple<int, Lane::Kind, uint32_t>> keys;
    for (const Lane& lane : view->lanes())
        keys.emplace_back(lane.group, lane.kind, lane.id);
    return keys;
}

const Lane* groupHeader(const TimelineView* view, int group)
{
    for (const Lane& lane : view->lanes())
        if (lane.kind == Lane::Kind::Group && lane.group == group)
            return &lane;
    return nullptr;
}

// Scrolls `lane` to the top of the view and returns its top in viewport coordinates.
int scrollTo(TimelineView* view, const Lane& lane)
{
    view->verticalScrollBar()->setValue(std::max(0, lane.y - view->axisHeight()));
    return lane.y - view->verticalScrollBar()->value();
}

} // namespace

class TestRanksTimeline : public QObject
{
    Q_OBJECT

    RanksTimelines* m_window = nullptr;

private slots:
    void initTestCase()
    {
        m_window = new RanksTimelines;
        std::vector<RanksTimelines::Rank> ranks;
        for (int r = 0; r < 4; ++r)
            ranks.push_back({r, QString::fromStdString(rankFile("slow", r)), r == 2, QString()});
        QSignalSpy loaded(m_window, &RanksTimelines::loaded);
        m_window->setRanks(ranks);
        QVERIFY(loaded.wait(30000));
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
    }
    void cleanupTestCase() { delete m_window; }

    void lanesFollowTheirRanksHeader()
    {
        TimelineView* view = m_window->timeline();
        QCOMPARE(view->groupCount(), 4);
        int group = -1;
        std::vector<std::set<int64_t>> streams(4);
        for (const Lane& lane : view->lanes()) {
            if (lane.kind == Lane::Kind::Group) {
                QCOMPARE(lane.group, group + 1); // rank order
                group = lane.group;
                QVERIFY2(lane.label.contains(QStringLiteral("rank %1").arg(group)), qPrintable(lane.label));
                QCOMPARE(lane.label.contains(QStringLiteral("straggler")), group == 2);
                continue;
            }
            QCOMPARE(lane.group, group); // every lane under its own rank's header
            const TraceDocument* doc = view->documentOf(group);
            QVERIFY(doc->path.endsWith(QStringLiteral("rank-%1.json.gz").arg(group)));
            if (lane.kind == Lane::Kind::Track && doc->trace->tracks[lane.id].type == trace::Track::Type::GpuStream) {
                QVERIFY(doc->trace->tracks[lane.id].stream.has_value());
                streams[size_t(group)].insert(int64_t(*doc->trace->tracks[lane.id].stream));
            }
        }
        QCOMPARE(group, 3);
        for (int r = 0; r < 4; ++r) {
            const RawRank raw = rawRank(rankFile("slow", r));
            QVERIFY(!raw.streams.empty());
            QVERIFY(streams[size_t(r)] == raw.streams);
        }
        // One document alone has no header, and the same lanes as its group here once the profiler's marker
        // processes, folded under a rank's header to leave room for the ranks, are unfolded.
        TimelineView single;
        single.resize(1400, 800);
        single.setDocument(TraceDocument::build(QString::fromStdString(rankFile("slow", 0)), {}, {}));
        std::vector<uint32_t> markers;
        for (const Lane& lane : view->lanes())
            if (lane.group == 0 && lane.kind == Lane::Kind::Header && lane.label.startsWith(QStringLiteral("▸ "))) {
                QVERIFY2(lane.label.contains(QStringLiteral("profiler markers")), qPrintable(lane.label));
                markers.push_back(lane.id);
            }
        QVERIFY(!markers.empty());
        for (const uint32_t process : markers)
            view->toggleProcess(process, 0);
        std::vector<std::pair<Lane::Kind, uint32_t>> alone, grouped;
        for (const Lane& lane : single.lanes())
            alone.emplace_back(lane.kind, lane.id);
        for (const Lane& lane : view->lanes())
            if (lane.group == 0 && lane.kind != Lane::Kind::Group)
                grouped.emplace_back(lane.kind, lane.id);
        QVERIFY(!alone.empty());
        QVERIFY(alone == grouped);
        for (const uint32_t process : markers)
            view->toggleProcess(process, 0);
    }

    void foldingAHeaderHidesExactlyItsLanes()
    {
        TimelineView* view = m_window->timeline();
        for (int group : {1, 2}) {
            const auto before = laneKeys(view);
            const auto ofOthers = [&](const auto& keys) {
                std::vector<std::tuple<int, Lane::Kind, uint32_t>> out;
                for (const auto& k : keys)
                    if (std::get<0>(k) != group)
                        out.push_back(k);
                return out;
            };
            const long own = std::count_if(before.begin(), before.end(), [&](const auto& k) { return std::get<0>(k) == group; });
            QVERIFY(own > 3); // the header, busy lanes, a stream, threads
            const Lane* header = groupHeader(view, group);
            QVERIFY(header);
            const int top = scrollTo(view, *header);
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(40, top + 4));
            QVERIFY(view->groupFolded(group));
            const auto folded = laneKeys(view);
            QCOMPARE(long(folded.size()), long(before.size()) - own + 1); // only its header stays
            QVERIFY(ofOthers(folded) == ofOthers(before));
            QVERIFY(groupHeader(view, group)->label.startsWith(QStringLiteral("▸ ")));
            const int again = scrollTo(view, *groupHeader(view, group));
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(40, again + 4));
            QVERIFY(!view->groupFolded(group));
            QVERIFY(laneKeys(view) == before);
        }
    }

    void aClickSelectsThatRanksEvent()
    {
        TimelineView* view = m_window->timeline();
        for (int r : {2, 0, 3}) {
            const RawKernel k = rawRank(rankFile("slow", r)).longest;
            QVERIFY(k.duration > 0);
            view->zoomToRange(k.start - k.duration, k.start + 2 * k.duration);
            const Lane* stream = nullptr;
            for (const Lane& lane : view->lanes())
                if (lane.group == r && lane.kind == Lane::Kind::Track && lane.label.endsWith(QStringLiteral("stream %1").arg(k.stream)))
                    stream = &lane;
            QVERIFY(stream);
            const int top = scrollTo(view, *stream);
            const int x = view->canvasLeft() + int((double(k.start + k.duration / 2) - double(view->viewStart())) / view->nsPerPixel());
            const int y = top + 2 + k.row * view->rowHeight() + view->rowHeight() / 2;
            // Its tooltip names it and its rank.
            QToolTip::hideText();
            QHelpEvent help(QEvent::ToolTip, QPoint(x, y), view->viewport()->mapToGlobal(QPoint(x, y)));
            QCoreApplication::sendEvent(view->viewport(), &help);
            const QString tip = QToolTip::isVisible() ? QToolTip::text() : QString();
            QVERIFY2(tip.contains(QString::fromStdString(k.name).left(40).toHtmlEscaped())
                         && tip.contains(QStringLiteral("rank %1 — ").arg(r)),
                     qPrintable(tip));
            QSignalSpy selected(view, &TimelineView::eventSelected);
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(x, y));
            QCOMPARE(selected.count(), 1);
            QCOMPARE(view->selectedGroup(), r);
            const trace::Trace& t = *view->documentOf(r)->trace;
            QVERIFY(view->selectedEvent() < t.events.size());
            const trace::Event& e = t.events[view->selectedEvent()];
            QCOMPARE(std::string(t.strings.view(e.name)), k.name);
            QCOMPARE(e.start, k.start);
            QCOMPARE(e.duration, k.duration);
            // The details read the same rank's trace.
            QVERIFY(m_window->details()->toPlainText().contains(QString::fromStdString(k.name).left(40)));
            QVERIFY(m_window->findChild<QLabel*>()->text().contains(QStringLiteral("rank %1 (rank-%1.json.gz)").arg(r)));
        }
    }
};

QTEST_MAIN(TestRanksTimeline)
#include "tst_rankstimeline.moc"
