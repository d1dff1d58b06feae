// SPDX-License-Identifier: MIT
// QCustomPlot's header predates the strict Qt defines the ui library sets: include it first without them.
#undef QT_NO_FOREACH
#undef QT_NO_CAST_TO_ASCII
#include <qcustomplot.h>

#include "memorypanel.h"

#include "memoryband.h"

#include "memory/epochtime.h"
#include "memory/memoryanalysis.h"
#include "memory/memorytimeline.h"
#include "report/memoryreport.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "trace/eventsearch.h"
#include "tracedocument.h"

#include <QLabel>
#include <QMouseEvent>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace tilescope;

namespace {

// Device colours: the allocated curve solid, reserved dashed in the same hue.
const QColor kDeviceColours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                 QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0x17, 0xbe, 0xcf)};
constexpr int kMaxStepLines = 200;    // more boundaries than this only grey the plot out
constexpr size_t kMaxStepLabels = 12; // beyond this the names overlap at the fitted zoom
constexpr int kClickSlopPixels = 3;
// A peak label's parts, kept on the item: its size ("peak 2.00 GiB") and the op's whole name.
constexpr const char* kPeakSize = "peakSize";
constexpr const char* kPeakOp = "peakOp";
constexpr int64_t kSpeckRatio = 1000; // a device below 1/1000 of the largest peak is not drawn

QString bytesText(int64_t bytes) { return QString::fromStdString(stats::formatBytes(bytes)); }

// The y unit that keeps the axis labels short for a peak of `bytes`.
std::pair<double, QString> unitFor(int64_t bytes)
{
    if (bytes >= (int64_t(1) << 30))
        return {double(int64_t(1) << 30), QStringLiteral("GiB")};
    if (bytes >= (int64_t(1) << 20))
        return {double(int64_t(1) << 20), QStringLiteral("MiB")};
    if (bytes >= 1024)
        return {1024.0, QStringLiteral("KiB")};
    return {1.0, QStringLiteral("B")};
}

} // namespace

MemoryPanel::MemoryPanel(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_stack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
    , m_legend(new QLabel(this))
{
    // The peaks' labels over every other item (step lines and names, OOM lines), their markers over the labels.
    m_plot->addLayer(QStringLiteral("peakLabels"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    m_plot->addLayer(QStringLiteral("peakMarkers"), m_plot->layer(QStringLiteral("peakLabels")), QCustomPlot::limAbove);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_plot);
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setFont(QFont(font().family(), 8));
    m_legend->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(m_legend);
    layout->addWidget(m_stack, 1);

    m_plot->setNoAntialiasingOnDrag(true);

    m_plot->xAxis->setTickLabels(false); // the timeline above carries the time axis
    m_plot->xAxis->setTicks(false);
    m_plot->yAxis->setRangeLower(0);
    m_plot->axisRect()->setAutoMargins(QCP::msNone);
    // The legend is a line of text above the plot: inside the axes, ten categories and curves hid the curves
    // and the peak's label, and a row of the plot's own layout would pull its axes off the timeline's.
    m_plot->legend->setVisible(false);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    connect(m_plot, &QCustomPlot::afterLayout, this, &MemoryPanel::placePeakLabels);
    setDocument(nullptr);
}

QString MemoryPanel::legendText() const { return m_legend->text(); }

bool MemoryPanel::hasData() const { return !m_shown.empty() || (m_timeline && m_timeline->size() > 0); }

QString MemoryPanel::emptyMessage() const { return m_stack->currentWidget() == m_empty ? m_empty->text() : QString(); }

void MemoryPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_timeline = m_doc ? m_doc->memoryTimeline : nullptr;
    rebuild();
}

void MemoryPanel::setMemoryTimeline(std::shared_ptr<const memory::MemoryTimeline> timeline)
{
    m_timeline = std::move(timeline);
    rebuild();
}

void MemoryPanel::rebuild()
{
    m_summaries.clear();
    m_shown.clear();
    m_range.reset();
    // Without a graph the panel is a line of text (two where it wraps), not a band of empty axes: the room is
    // the timeline's and the table's.
    setMaximumHeight(2 * fontMetrics().lineSpacing() + 6);
    setMinimumHeight(fontMetrics().lineSpacing() + 6);
    m_legend->clear();
    if (!m_doc) {
        m_empty->setText(tr("Device memory over time appears here for a trace recorded with profile_memory=True."));
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    const memory::MemoryAnalysis& analysis = m_doc->memory;
    m_summaries.reserve(analysis.devices.size());
    for (uint32_t d = 0; d < analysis.devices.size(); ++d)
        m_summaries.emplace_back(analysis.devices[d].samples);
    // A device whose totals are a speck beside the largest (the CPU totals of a CUDA run: 8 B against GiBs)
    // would draw a flat line on the axis and a peak label over it; the Memory events dock still lists it.
    int64_t largest = 0;
    for (const memory::DeviceMemory& d : analysis.devices)
        largest = std::max({largest, d.peakAllocated, d.peakReserved});
    for (uint32_t d = 0; d < analysis.devices.size(); ++d)
        if (largest > 0 && std::max(analysis.devices[d].peakAllocated, analysis.devices[d].peakReserved) * kSpeckRatio >= largest)
            m_shown.push_back(d);
    if (!hasData()) {
        m_empty->setText(m_doc->trace->memory.empty() ? tr("No memory graph: %1.")
                                                            .arg(QString::fromUtf8(memory::kNoMemoryRecordsText.data(),
                                                                                   qsizetype(memory::kNoMemoryRecordsText.size())))
                                                      : tr("The trace's [memory] records hold no allocated bytes on any device."));
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    m_stack->setCurrentWidget(m_plot);
    setMaximumHeight(QWIDGETSIZE_MAX);
    setMinimumHeight(120);
    buildStatic();
    redraw();
}

// Keys are nanoseconds from the trace's first time, so a double holds them exactly (file clocks near the
// Unix epoch in ns are past 2^53).
static double keyOf(const TraceDocument& doc, int64_t time) { return double(time - doc.trace->firstTime()); }

void MemoryPanel::buildStatic()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_allocated.clear();
    m_reserved.clear();
    m_peakLabels.clear();
    m_peakMarks.clear();
    const memory::MemoryAnalysis& analysis = m_doc->memory;
    int64_t top = 0;
    for (const uint32_t d : m_shown)
        top = std::max({top, analysis.devices[d].peakAllocated, analysis.devices[d].peakReserved});
    if (m_timeline)
        top = std::max(top, memory::peakTotal(*m_timeline).bytes);
    const auto [unit, unitName] = unitFor(top);
    m_unit = unit;
    m_plot->yAxis->setLabel(unitName);
    m_plot->yAxis->setRange(0, double(top) / unit * 1.12);

    if (m_timeline)
        addCategories(unit);
    for (size_t i = 0; i < m_shown.size(); ++i) {
        const memory::DeviceMemory& device = analysis.devices[m_shown[i]];
        const QColor colour = kDeviceColours[i % std::size(kDeviceColours)];
        const QString name = QString::fromStdString(device.name);
        // Allocated as a band per pixel column (min to max), painted column by column (memoryband.h says why).
        auto* allocated = new MemoryBand(m_plot->xAxis, m_plot->yAxis);
        allocated->setName(tr("%1 allocated (peak %2)").arg(name, bytesText(device.peakAllocated)));
        allocated->setPen(QPen(colour, 1));
        allocated->setBrush(QColor(colour.red(), colour.green(), colour.blue(), 90));
        m_allocated.push_back(allocated);
        MemoryBand* reserved = nullptr;
        if (device.hasReserved) {
            reserved = new MemoryBand(m_plot->xAxis, m_plot->yAxis);
            reserved->setName(tr("%1 reserved (peak %2)").arg(name, bytesText(device.peakReserved)));
            reserved->setPen(QPen(colour.lighter(150), 1));
            reserved->setBrush(Qt::NoBrush);
        }
        m_reserved.push_back(reserved);

        // The peak: a marker and what was running.
        if (const memory::MemorySample* peak = device.peakSample()) {
            const double x = keyOf(*m_doc, peak->time), y = double(peak->allocated) / unit;
            // The label on a see-through white box, so it reads over the curves and the step names under it, on a
            // layer of its own above theirs; the markers on one above it stay whole on top of any label's box.
            auto* label = new QCPItemText(m_plot);
            label->setLayer(QStringLiteral("peakLabels"));
            label->position->setCoords(x, y);
            label->setFont(QFont(font().family(), 8));
            label->setBrush(QColor(255, 255, 255, 210));
            auto* marker = new QCPItemTracer(m_plot);
            marker->setLayer(QStringLiteral("peakMarkers"));
            marker->position->setCoords(x, y);
            marker->setStyle(QCPItemTracer::tsCircle);
            marker->setSize(7);
            marker->setPen(QPen(colour.darker(), 1.5));
            marker->setBrush(Qt::white);
            const QString op = device.peakOp != trace::kNoIndex ? QString::fromUtf8(m_doc->trace->name(m_doc->trace->events[device.peakOp]))
                                                                : tr("no op");
            label->setText(tr("peak %1 in %2").arg(bytesText(device.peakAllocated), op));
            // placePeakLabels shortens the op's name to the room the label has; the size is kept whole.
            label->setProperty(kPeakSize, tr("peak %1").arg(bytesText(device.peakAllocated)));
            label->setProperty(kPeakOp, op);
            m_peakLabels.push_back(label);
            if (device.peakOp != trace::kNoIndex)
                m_peakMarks.push_back({marker, label, device.peakOp});
        }
    }

    // Out-of-memory requests: a red line and the size that failed.
    for (const memory::OutOfMemoryEvent& oom : analysis.ooms) {
        const double x = keyOf(*m_doc, oom.time);
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(Qt::red, 1.5));
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(x, 0.02);
        label->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
        label->setColor(Qt::red);
        label->setFont(QFont(font().family(), 8, QFont::Bold));
        label->setText(
            tr(" OOM: %1 requested on %2").arg(bytesText(oom.requestedBytes), QString::fromStdString(analysis.devices[oom.device].name)));
    }

    // Step boundaries.
    if (int(analysis.steps.size()) <= kMaxStepLines)
        for (const memory::StepMemory& step : analysis.steps) {
            auto* line = new QCPItemStraightLine(m_plot);
            const double x = keyOf(*m_doc, step.start);
            line->point1->setCoords(x, 0);
            line->point2->setCoords(x, 1);
            line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DotLine));
            if (analysis.steps.size() <= kMaxStepLabels) {
                auto* label = new QCPItemText(m_plot);
                label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
                label->position->setCoords(x, 0.98);
                label->setPositionAlignment(Qt::AlignBottom | Qt::AlignLeft);
                label->setColor(QColor(90, 90, 90));
                label->setFont(QFont(font().family(), 7));
                label->setText(QStringLiteral(" ") + QString::fromUtf8(m_doc->trace->strings.view(step.name)));
            }
        }

    m_cursor = new QCPItemLine(m_plot);
    m_cursor->start->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_cursor->end->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_cursor->setPen(QPen(QColor(0, 0, 0, 120), 1));
    m_cursor->setVisible(false);

    // The legend: each named plottable's swatch (its fill, else its line) and name.
    QStringList entries;
    for (int i = 0; i < m_plot->plottableCount(); ++i) {
        const QCPAbstractPlottable* p = m_plot->plottable(i);
        if (p->name().isEmpty())
            continue;
        QColor colour = p->brush().style() != Qt::NoBrush ? p->brush().color() : p->pen().color();
        colour.setAlpha(255);
        entries << QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2").arg(colour.name(), p->name().toHtmlEscaped());
    }
    m_legend->setText(entries.join(QStringLiteral(" &nbsp; ")));
}

// The memory timeline's categories (torch's export_memory_timeline), stacked in torch's order and colours
// beneath the allocator's curves. Its times are epoch µs, placed on the trace's clock.
void MemoryPanel::addCategories(double unit)
{
    const memory::MemoryTimeline& timeline = *m_timeline;
    const std::optional<int64_t> base = m_doc->trace->meta.baseTimeNs;
    QVector<double> keys;
    keys.reserve(qsizetype(timeline.size()));
    for (const int64_t us : timeline.timesUs)
        keys << keyOf(*m_doc, memory::epochMicrosecondsToTraceNs(us, base));
    std::vector<int64_t> stacked(timeline.size(), 0);
    QCPGraph* below = nullptr;
    for (size_t c = 0; c < memory::kMemoryCategoryCount; ++c) {
        bool any = false;
        for (size_t r = 0; r < timeline.size(); ++r) {
            stacked[r] += timeline.rows[r][c];
            any = any || timeline.rows[r][c] != 0;
        }
        if (!any)
            continue;
        const memory::MemoryCategoryInfo& info = memory::memoryCategoryInfo(c);
        QColor colour(QString::fromUtf8(info.colour.data(), qsizetype(info.colour.size())));
        QVector<double> values;
        values.reserve(keys.size());
        for (const int64_t v : stacked)
            values << double(v) / unit;
        QCPGraph* g = m_plot->addGraph();
        g->setName(QString::fromUtf8(info.name.data(), qsizetype(info.name.size())).toLower());
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(colour, 0.5));
        colour.setAlpha(110);
        g->setBrush(colour);
        if (below)
            g->setChannelFillGraph(below);
        g->setData(keys, values, true);
        below = g;
    }
}

QString MemoryPanel::leakText(const memory::SuspectedLeak& leak) const
{
    return tr("suspected leak: %1").arg(QString::fromStdString(report::leakSentence(*m_doc->trace, m_doc->memory, leak)));
}

void MemoryPanel::setView(int64_t start, int64_t end)
{
    if (end <= start)
        return;
    m_viewStart = start;
    m_viewEnd = end;
    if (hasData())
        redraw();
}

void MemoryPanel::setCanvas(int left, int width)
{
    if (left == m_canvasLeft && width == m_canvasWidth)
        return;
    m_canvasLeft = left;
    m_canvasWidth = width;
    if (hasData())
        redraw();
}

void MemoryPanel::redraw()
{
    // Also reached from a queued resize (the legend above the plot changes height with the document), which can
    // arrive after the document went or when it has no graph.
    if (!m_doc || !hasData())
        return;
    // The plot's data area starts where the timeline's canvas starts; the y labels sit in the margin,
    // under the lane labels.
    const int left = std::max(m_canvasLeft, 40);
    // The same width as the timeline's canvas (which a vertical scroll bar narrows), else the view's time
    // would spread over a different number of pixels here and drift apart towards the right edge.
    const int right = m_canvasWidth > 0 ? std::max(0, m_plot->width() - left - m_canvasWidth) : 2;
    m_plot->axisRect()->setMargins(QMargins(left, 4, right, 4));
    m_plot->xAxis->setRange(keyOf(*m_doc, m_viewStart), keyOf(*m_doc, m_viewEnd));
    const int pixels = std::max(1, m_plot->width() - left - right);
    const double unit = m_unit;
    m_drawnPoints = 0;
    for (size_t i = 0; i < m_shown.size(); ++i) {
        m_summaries[m_shown[i]].summarize(m_viewStart, m_viewEnd, pixels, m_columns);
        std::vector<MemoryBand::Column> allocated, reserved;
        allocated.reserve(m_columns.size());
        reserved.reserve(m_columns.size());
        for (int p = 0; p < int(m_columns.size()); ++p) {
            const memory::PixelSummary& c = m_columns[size_t(p)];
            if (!c.hasValue)
                continue;
            const double k0 = keyOf(*m_doc, m_viewStart + (m_viewEnd - m_viewStart) * p / pixels);
            const double k1 = keyOf(*m_doc, m_viewStart + (m_viewEnd - m_viewStart) * (p + 1) / pixels);
            allocated.push_back({k0, k1, double(c.minAllocated) / unit, double(c.maxAllocated) / unit});
            reserved.push_back({k0, k1, double(c.minReserved) / unit, double(c.maxReserved) / unit});
        }
        m_drawnPoints += int(allocated.size());
        m_allocated[i]->setColumns(std::move(allocated));
        if (m_reserved[i])
            m_reserved[i]->setColumns(std::move(reserved));
    }
    // The Shift+drag range, shaded as in the timeline.
    for (int i = m_plot->itemCount() - 1; i >= 0; --i)
        if (m_plot->item(i)->objectName() == QLatin1String("range"))
            m_plot->removeItem(i);
    if (m_range) {
        auto* rect = new QCPItemRect(m_plot);
        rect->setObjectName(QStringLiteral("range"));
        rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->topLeft->setCoords(keyOf(*m_doc, m_range->first), 0);
        rect->bottomRight->setCoords(keyOf(*m_doc, m_range->second), 1);
        rect->setPen(QPen(QColor(40, 90, 200, 160)));
        rect->setBrush(QColor(40, 90, 200, 40));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot); // the peak labels are placed after its layout (placePeakLabels)
}

void MemoryPanel::placePeakLabels()
{
    // A peak label reads away from the nearer edge, so it is not cut off at either end, above its marker; beside
    // it where the plot is too short for the label above a peak near its top (cut off under the legend there).
    const QRect area = m_plot->axisRect()->rect();
    for (QCPItemText* label : m_peakLabels) {
        const QPointF at = label->position->pixelPosition();
        const bool rightHalf = at.x() > area.center().x();
        const Qt::Alignment side = rightHalf ? Qt::AlignRight : Qt::AlignLeft;
        const QFontMetrics metrics(label->font());
        const int textHeight = metrics.height();
        constexpr int kAbove = 6, kBeside = 8; // clear of the marker (7 px across)
        int gap = 4;
        if (at.y() - kAbove - textHeight >= area.top()) {
            label->setPositionAlignment(Qt::AlignBottom | side);
            label->setPadding(rightHalf ? QMargins(0, 0, gap, kAbove) : QMargins(gap, 0, 0, kAbove));
        } else {
            // Centred on the marker, or from its height down where half the text would stick out above the plot.
            gap = kBeside;
            label->setPositionAlignment((at.y() - textHeight / 2 >= area.top() ? Qt::AlignVCenter : Qt::AlignTop) | side);
            label->setPadding(rightHalf ? QMargins(0, 0, gap, 0) : QMargins(gap, 0, 0, 0));
        }
        // A long op's name is cut at its end to the room on that side; where not even a letter of it fits, the
        // label is the size alone.
        // In pixels of the plot: a peak far off the view (before the timeline sets it) is at ~1e18 px, which an int
        // cannot hold.
        const double roomPx = (rightHalf ? at.x() - area.left() : area.right() - at.x()) - gap;
        const int room = std::isfinite(roomPx) ? int(std::clamp(roomPx, 0.0, double(area.width()))) : 0;
        const QString size = label->property(kPeakSize).toString();
        const QString sizeIn = tr("%1 in ").arg(size);
        const QString op = metrics.elidedText(label->property(kPeakOp).toString(), Qt::ElideRight,
                                              std::max(0, room - metrics.horizontalAdvance(sizeIn)));
        label->setText(op.size() > 1 ? sizeIn + op : size);
    }
}

void MemoryPanel::setCursorTime(std::optional<int64_t> time)
{
    if (!m_cursor || !hasData())
        return;
    m_cursor->setVisible(time.has_value());
    if (time) {
        m_cursor->start->setCoords(keyOf(*m_doc, *time), 0);
        m_cursor->end->setCoords(keyOf(*m_doc, *time), 1);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryPanel::setRange(std::optional<std::pair<int64_t, int64_t>> range)
{
    m_range = range;
    if (hasData())
        redraw();
}

int64_t MemoryPanel::timeAtPixel(double x) const
{
    if (!m_doc)
        return 0;
    return m_doc->trace->firstTime() + static_cast<int64_t>(std::llround(m_plot->xAxis->pixelToCoord(x)));
}

double MemoryPanel::pixelOfTime(int64_t time) const { return m_doc ? m_plot->xAxis->coordToPixel(keyOf(*m_doc, time)) : 0; }

uint32_t MemoryPanel::peakOpAt(QPointF pixel) const
{
    // Within the plot's selection tolerance (8 px) of a marker, the nearest; else inside a label's box (not
    // near it: a long label beside the curve would take the clicks meant for the curve).
    uint32_t op = trace::kNoIndex;
    double nearest = m_plot->selectionTolerance();
    for (const PeakMark& mark : m_peakMarks)
        if (const double distance = mark.marker->selectTest(pixel, false); distance >= 0 && distance <= nearest) {
            nearest = distance;
            op = mark.op;
        }
    if (op != trace::kNoIndex)
        return op;
    for (const PeakMark& mark : m_peakMarks)
        if (QRectF(mark.label->topLeft->pixelPosition(), mark.label->bottomRight->pixelPosition()).normalized().contains(pixel))
            return mark.op;
    return trace::kNoIndex;
}

uint32_t MemoryPanel::opAt(int64_t time, std::optional<double> bytes) const
{
    if (!hasData())
        return trace::kNoIndex;
    const memory::MemoryAnalysis& analysis = m_doc->memory;
    const trace::Trace& t = *m_doc->trace;
    // The device whose allocated curve is nearest the click, else the one with the largest peak.
    uint32_t device = m_shown.front();
    double nearest = INFINITY;
    for (const uint32_t d : m_shown) {
        const uint32_t s = m_summaries[d].sampleAt(time);
        if (s == trace::kNoIndex)
            continue;
        const double distance = bytes ? std::abs(double(analysis.devices[d].samples[s].allocated) - *bytes)
                                      : -double(analysis.devices[d].peakAllocated);
        if (distance < nearest) {
            nearest = distance;
            device = d;
        }
    }
    return memory::memoryOpAt(t, analysis, device, time);
}

QString MemoryPanel::textAt(int64_t time) const
{
    if (!hasData())
        return {};
    QString text = QString::fromStdString(stats::formatMicroseconds(time - m_doc->trace->originTime())) + QStringLiteral(" µs");
    for (const uint32_t d : m_shown) {
        const memory::DeviceMemory& device = m_doc->memory.devices[d];
        const uint32_t s = m_summaries[d].sampleAt(time);
        if (s == trace::kNoIndex)
            continue;
        text += QStringLiteral("\n%1: %2 allocated").arg(QString::fromStdString(device.name), bytesText(device.samples[s].allocated));
        if (device.hasReserved)
            text += QStringLiteral(", %1 reserved").arg(bytesText(device.samples[s].reserved));
    }
    return text;
}

bool MemoryPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_plot || !hasData())
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::Wheel: {
        auto* wheel = static_cast<QWheelEvent*>(event);
        const double steps = wheel->angleDelta().y() / 120.0;
        if (steps != 0)
            emit zoomRequested(std::pow(0.8, steps), timeAtPixel(wheel->position().x()));
        return true;
    }
    case QEvent::MouseButtonPress: {
        auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() != Qt::LeftButton)
            return false;
        m_pressX = mouse->position().x();
        m_lastDragX = *m_pressX;
        m_shiftDrag = mouse->modifiers() & Qt::ShiftModifier;
        m_dragged = false;
        return true;
    }
    case QEvent::MouseMove: {
        auto* mouse = static_cast<QMouseEvent*>(event);
        const double x = mouse->position().x();
        if (m_pressX) {
            m_dragged = m_dragged || std::abs(x - *m_pressX) > kClickSlopPixels;
            if (m_dragged && !m_shiftDrag) {
                emit panRequested(x - m_lastDragX);
                m_lastDragX = x;
            } else if (m_dragged) {
                const int64_t a = timeAtPixel(std::min(*m_pressX, x)), b = timeAtPixel(std::max(*m_pressX, x));
                m_range = std::make_pair(a, b);
                redraw();
            }
        }
        const int64_t time = timeAtPixel(x);
        setCursorTime(time);
        emit cursorMoved(time);
        QToolTip::showText(mouse->globalPosition().toPoint(), textAt(time), m_plot);
        return true;
    }
    case QEvent::MouseButtonRelease: {
        auto* mouse = static_cast<QMouseEvent*>(event);
        if (mouse->button() != Qt::LeftButton || !m_pressX)
            return false;
        const double x = mouse->position().x();
        if (m_dragged && m_shiftDrag) {
            const int64_t a = timeAtPixel(std::min(*m_pressX, x)), b = timeAtPixel(std::max(*m_pressX, x));
            m_range = std::make_pair(a, b);
            emit rangeSelected(m_range);
        } else if (!m_dragged) {
            uint32_t op = peakOpAt(mouse->position());
            if (op == trace::kNoIndex)
                op = opAt(timeAtPixel(x), m_plot->yAxis->pixelToCoord(mouse->position().y()) * m_unit);
            if (op != trace::kNoIndex)
                emit opClicked(op);
        }
        m_pressX.reset();
        return true;
    }
    case QEvent::Leave:
        setCursorTime(std::nullopt);
        emit cursorMoved(std::nullopt);
        return false;
    case QEvent::Resize:
        QMetaObject::invokeMethod(
            this, [this] { redraw(); }, Qt::QueuedConnection);
        return false;
    default: return QWidget::eventFilter(watched, event);
    }
}
