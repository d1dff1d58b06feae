// SPDX-License-Identifier: MIT
// QCustomPlot's header predates the strict Qt defines the ui library sets: include it first without them.
#undef QT_NO_FOREACH
#undef QT_NO_CAST_TO_ASCII
#include <qcustomplot.h>

#include "snapshotview.h"

#include "memory/allocatorsnapshot.h"
#include "segmentmap.h"
#include "snapshothistorymodel.h"
#include "stats/bytestext.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

using namespace tilescope;

namespace {

constexpr int kLargestBlocks = 200;

QString bytesText(int64_t bytes) { return QString::fromStdString(stats::formatBytes(bytes)); }

QString frameText(const memory::StackFrame& f)
{
    return QStringLiteral("%1 (%2:%3)").arg(QString::fromStdString(f.name), QString::fromStdString(f.filename)).arg(f.line);
}

} // namespace

SnapshotView::SnapshotView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_map(new SegmentMap(this))
    , m_tabs(new QTabWidget(this))
    , m_largest(new QTableWidget(this))
    , m_historyModel(new SnapshotHistoryModel(this))
    , m_historyProxy(new QSortFilterProxyModel(this))
    , m_history(new QTableView(this))
    , m_plot(new QCustomPlot(this))
    , m_frames(new QTextBrowser(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_map);
    scroll->setWidgetResizable(true);
    scroll->setMinimumHeight(30);

    m_largest->setColumnCount(5);
    m_largest->setHorizontalHeaderLabels({tr("Size"), tr("Requested"), tr("State"), tr("Segment"), tr("User frame")});
    m_largest->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_largest->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_largest->verticalHeader()->setVisible(false);
    m_largest->horizontalHeader()->setStretchLastSection(true);

    m_historyProxy->setSourceModel(m_historyModel);
    m_historyProxy->setSortRole(SnapshotHistoryModel::SortRole);
    m_history->setModel(m_historyProxy);
    m_history->setSortingEnabled(true);
    m_history->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_history->verticalHeader()->setVisible(false);
    m_history->horizontalHeader()->setStretchLastSection(true);

    auto* historyPage = new QSplitter(Qt::Vertical, this);
    historyPage->addWidget(m_plot);
    historyPage->addWidget(m_history);
    // Small least heights: the window must fit a 1080p screen (tst_mainwindow), and on a 768 px one this tab's
    // least height is the bottom docks' (one tab group, as tall as its tallest tab's least height).
    m_plot->setMinimumHeight(20);
    m_history->setMinimumHeight(20);
    m_largest->setMinimumHeight(40);
    m_frames->setMinimumHeight(30);
    m_plot->legend->setVisible(true);
    m_plot->xAxis->setLabel(tr("history entry"));

    m_tabs->addTab(m_largest, tr("Largest live blocks"));
    m_tabs->addTab(historyPage, tr("History"));

    // The blocks' tables and the selected block's stack side by side: a bottom dock is wide and short (on a
    // 768 px screen, under 200 px), where one above the other left each a row.
    m_frames->setPlaceholderText(tr("Select a block (in the map or a table) or a history entry to see its stack, your code first."));
    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->addWidget(m_tabs);
    lower->addWidget(m_frames);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(scroll);
    split->addWidget(lower);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 4);
    layout->addWidget(split, 1);

    connect(m_map, &SegmentMap::blockClicked, this, &SnapshotView::showBlock);
    connect(m_largest, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (row < 0 || !m_largest->item(row, 0))
            return;
        const qulonglong key = m_largest->item(row, 0)->data(Qt::UserRole).toULongLong();
        showBlock(size_t(key >> 32), size_t(key & 0xffffffffu));
    });
    connect(m_history->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (!current.isValid())
            return;
        const qint64 key = m_historyProxy->data(current, SnapshotHistoryModel::EntryRole).toLongLong();
        showEntry(int(key >> 32), size_t(key & 0xffffffff));
    });
    setSnapshot(nullptr);
}

void SnapshotView::setSnapshot(std::shared_ptr<const memory::AllocatorSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_map->setSnapshot(m_snapshot);
    m_historyModel->setSnapshot(m_snapshot);
    m_frames->clear();
    fillLargest();
    fillReplay();
    m_summary->setText(summaryText());
    if (!m_snapshot)
        return;
    // An OOM is what a user opens a snapshot for: show it first.
    for (size_t d = 0; d < m_snapshot->deviceTraces.size(); ++d)
        for (size_t e = 0; e < m_snapshot->deviceTraces[d].size(); ++e)
            if (m_snapshot->deviceTraces[d][e].action == memory::TraceAction::Oom) {
                m_tabs->setCurrentIndex(1);
                const int row = m_historyModel->rowOf(int(d), e);
                m_history->selectRow(m_historyProxy->mapFromSource(m_historyModel->index(row, 0)).row());
                showEntry(int(d), e);
                return;
            }
}

QString SnapshotView::summaryText() const
{
    if (!m_snapshot)
        return tr("Open a CUDA allocator snapshot (File > Open Memory Snapshot): the pickle "
                  "torch.cuda.memory._dump_snapshot() writes after _record_memory_history().");
    std::map<std::string, uint64_t> actions;
    uint64_t entries = 0, ooms = 0;
    for (size_t d = 0; d < m_snapshot->deviceTraces.size(); ++d)
        for (const memory::TraceEntry& e : m_snapshot->deviceTraces[d]) {
            ++actions[std::string(m_snapshot->actionName(e))];
            ++entries;
            ooms += e.action == memory::TraceAction::Oom;
        }
    QString counts;
    for (const auto& [action, count] : actions)
        counts += (counts.isEmpty() ? QString() : QStringLiteral(", "))
            + QStringLiteral("%1 %2").arg(count).arg(QString::fromStdString(action));
    const auto counted = [](uint64_t n, const char* one, const char* many) {
        return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    QString text = tr("<b>%1</b>: %2, reserved %3, allocated %4 in %5; %6")
                       .arg(QString::fromStdString(m_snapshot->path).toHtmlEscaped(),
                            counted(m_snapshot->segments.size(), "segment", "segments"), bytesText(m_snapshot->reservedBytes()),
                            bytesText(m_snapshot->allocatedBytes()), counted(m_snapshot->blockCount(), "block", "blocks"),
                            counted(entries, "history entry", "history entries"));
    if (!counts.isEmpty())
        text += QStringLiteral(" (") + counts + QStringLiteral(")");
    text += ooms ? tr(". <b style='color:red'>%1 out-of-memory</b> entr%2: see History.").arg(ooms).arg(ooms == 1 ? tr("y") : tr("ies"))
                 : QStringLiteral(".");
    return text;
}

void SnapshotView::fillLargest()
{
    m_largest->setSortingEnabled(false);
    m_largest->setRowCount(0);
    if (!m_snapshot)
        return;
    struct Live
    {
        size_t segment, block;
        int64_t size;
    };
    std::vector<Live> live;
    for (size_t s = 0; s < m_snapshot->segments.size(); ++s)
        for (size_t b = 0; b < m_snapshot->segments[s].blocks.size(); ++b)
            if (m_snapshot->segments[s].blocks[b].state != memory::BlockState::Inactive)
                live.push_back({s, b, m_snapshot->segments[s].blocks[b].size});
    std::stable_sort(live.begin(), live.end(), [](const Live& a, const Live& b) { return a.size > b.size; });
    live.resize(std::min<size_t>(live.size(), kLargestBlocks));
    m_largest->setRowCount(int(live.size()));
    for (int row = 0; row < int(live.size()); ++row) {
        const memory::SnapshotSegment& segment = m_snapshot->segments[live[size_t(row)].segment];
        const memory::SnapshotBlock& block = segment.blocks[live[size_t(row)].block];
        auto* size = new QTableWidgetItem(bytesText(block.size));
        size->setData(Qt::UserRole, qulonglong((quint64(live[size_t(row)].segment) << 32) | live[size_t(row)].block));
        m_largest->setItem(row, 0, size);
        m_largest->setItem(row, 1, new QTableWidgetItem(bytesText(block.requestedSize)));
        m_largest->setItem(row, 2, new QTableWidgetItem(QString::fromUtf8(memory::blockStateName(block.state))));
        m_largest->setItem(row, 3, new QTableWidgetItem(QStringLiteral("0x") + QString::number(segment.address, 16)));
        const auto user = memory::userFrame(*m_snapshot, block.stack);
        m_largest->setItem(row, 4, new QTableWidgetItem(user ? frameText(m_snapshot->frame(*user)) : QString()));
    }
    m_largest->resizeColumnsToContents();
}

void SnapshotView::fillReplay()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    if (!m_snapshot) {
        m_plot->replot();
        return;
    }
    double top = 1;
    for (int d = 0; d < int(m_snapshot->deviceTraces.size()); ++d) {
        if (m_snapshot->deviceTraces[size_t(d)].empty())
            continue;
        const memory::DeviceMemoryReplay replay = memory::replayDeviceMemory(*m_snapshot, d);
        QVector<double> x, allocated, reserved;
        x << -1;
        allocated << double(replay.initialAllocatedBytes) / (1 << 20);
        reserved << double(replay.initialReservedBytes) / (1 << 20);
        for (const memory::MemoryReplayPoint& point : replay.points) {
            x << double(point.entry);
            allocated << double(point.allocatedBytes) / (1 << 20);
            reserved << double(point.reservedBytes) / (1 << 20);
        }
        QCPGraph* a = m_plot->addGraph();
        a->setName(tr("cuda:%1 allocated (peak %2)").arg(d).arg(bytesText(replay.peakAllocatedBytes)));
        a->setLineStyle(QCPGraph::lsStepLeft);
        a->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1.5));
        a->setData(x, allocated, true);
        QCPGraph* r = m_plot->addGraph();
        r->setName(tr("cuda:%1 reserved (peak %2)").arg(d).arg(bytesText(replay.peakReservedBytes)));
        r->setLineStyle(QCPGraph::lsStepLeft);
        r->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 1, Qt::DashLine));
        r->setData(x, reserved, true);
        top = std::max(top, double(replay.peakReservedBytes) / (1 << 20));
        const auto& entries = m_snapshot->deviceTraces[size_t(d)];
        for (size_t e = 0; e < entries.size(); ++e)
            if (entries[e].action == memory::TraceAction::Oom) {
                auto* line = new QCPItemStraightLine(m_plot);
                line->point1->setCoords(double(e), 0);
                line->point2->setCoords(double(e), 1);
                line->setPen(QPen(Qt::red, 1.5));
            }
        m_plot->xAxis->setRange(-1, double(entries.size()));
    }
    m_plot->yAxis->setLabel(tr("MiB"));
    m_plot->yAxis->setRange(0, top * 1.1);
    m_plot->replot();
}

void SnapshotView::showStack(uint32_t stack, const QString& title)
{
    QString html = QStringLiteral("<b>%1</b><br>").arg(title.toHtmlEscaped());
    const auto user = memory::userFrame(*m_snapshot, stack);
    const std::vector<memory::FrameId> frames = memory::framesUserFirst(*m_snapshot, stack);
    if (frames.empty())
        html += tr("<i>No stack recorded (the allocator records stacks for allocations made after "
                   "_record_memory_history started).</i>");
    for (const memory::FrameId id : frames) {
        const QString line = frameText(m_snapshot->frame(id)).toHtmlEscaped();
        html += user && id == *user ? tr("<b>%1</b> &nbsp;← your code<br>").arg(line) : line + QStringLiteral("<br>");
    }
    m_frames->setHtml(html);
}

void SnapshotView::showBlock(size_t segment, size_t block)
{
    if (!m_snapshot || segment >= m_snapshot->segments.size() || block >= m_snapshot->segments[segment].blocks.size())
        return;
    const memory::SnapshotBlock& b = m_snapshot->segments[segment].blocks[block];
    showStack(b.stack,
              tr("%1 block of %2 (requested %3) at 0x%4")
                  .arg(QString::fromUtf8(memory::blockStateName(b.state)), bytesText(b.size), bytesText(b.requestedSize),
                       QString::number(b.address, 16)));
}

void SnapshotView::showEntry(int device, size_t entry)
{
    if (!m_snapshot || device < 0 || size_t(device) >= m_snapshot->deviceTraces.size()
        || entry >= m_snapshot->deviceTraces[size_t(device)].size())
        return;
    const memory::TraceEntry& e = m_snapshot->deviceTraces[size_t(device)][entry];
    const QString action = QString::fromUtf8(m_snapshot->actionName(e).data(), qsizetype(m_snapshot->actionName(e).size()));
    const QString title = e.action == memory::TraceAction::Oom
        ? tr("Out of memory on cuda:%1: %2 requested, %3 free on the device").arg(device).arg(bytesText(e.size), bytesText(e.deviceFree))
        : tr("%1 of %2 at 0x%3 (cuda:%4, entry %5)").arg(action, bytesText(e.size), QString::number(e.address, 16)).arg(device).arg(entry);
    showStack(e.stack, title);
}

QString SnapshotView::framesText() const { return m_frames->toPlainText(); }
