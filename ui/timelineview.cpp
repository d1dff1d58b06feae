// SPDX-License-Identifier: MIT
#include "timelineview.h"

#include "stats/torchtable.h"
#include "tracedocument.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace tilescope;

namespace {

QColor colourFor(std::string_view name)
{
    const auto h = std::hash<std::string_view>()(name);
    return QColor::fromHsv(int(h % 360), 90 + int((h >> 9) % 60), 200 + int((h >> 17) % 40));
}

QString timeText(int64_t ns) { return QString::fromStdString(stats::formatTorchTime(double(ns) / 1000.0)); }

// A "nice" tick step (1, 2, 5 × 10^k ns) for about `targetPx` pixels.
int64_t tickStep(double nsPerPixel, double targetPx)
{
    const double raw = nsPerPixel * targetPx;
    double step = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
    for (const double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= raw)
            return std::max<int64_t>(1, int64_t(step * m));
    return std::max<int64_t>(1, int64_t(step * 10));
}

} // namespace

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void TimelineView::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_selected = UINT32_MAX;
    m_highlight.reset();
    m_range.reset();
    m_foldedProcesses.clear();
    rebuildLanes();
    fitAll();
}

int TimelineView::canvasWidth() const { return std::max(1, viewport()->width() - m_labelWidth); }

void TimelineView::rebuildLanes()
{
    m_lanes.clear();
    if (!m_doc)
        return;
    const trace::Trace& t = *m_doc->trace;
    int y = m_axisHeight;
    auto add = [&](Lane lane) {
        lane.y = y;
        y += lane.height;
        m_lanes.push_back(std::move(lane));
    };
    for (const auto& d : m_doc->overlap.devices)
        add({Lane::Kind::DeviceBusy, uint32_t(d.device), 0, m_rowHeight, QStringLiteral("GPU %1 busy").arg(d.device)});
    add({Lane::Kind::CpuBusy, 0, 0, m_rowHeight, QStringLiteral("CPU busy (all threads)")});
    for (size_t i = 0; i < m_doc->overlap.threads.size(); ++i) {
        const trace::Track& tr = t.tracks[m_doc->overlap.threads[i].track];
        const std::string_view name = tr.name ? t.strings.view(tr.name) : t.strings.view(tr.tidText);
        add({Lane::Kind::ThreadBusy, uint32_t(i), 0, m_rowHeight, QStringLiteral("  CPU ") + QString::fromUtf8(name.data(), qsizetype(name.size())).trimmed()});
    }
    add({Lane::Kind::Overlap, 0, 0, m_rowHeight, QStringLiteral("CPU / GPU")});
    uint32_t lastProcess = UINT32_MAX;
    for (const uint32_t track : m_doc->laneOrder) {
        const trace::Track& tr = t.tracks[track];
        if (tr.process != lastProcess) {
            lastProcess = tr.process;
            const trace::Process& p = t.processes[tr.process];
            QString label = tr.type == trace::Track::Type::GpuStream ? QStringLiteral("GPU %1").arg(tr.device)
                                                                     : QString::fromUtf8(t.strings.view(p.name).data(), qsizetype(t.strings.view(p.name).size()));
            if (tr.type == trace::Track::Type::Overhead)
                label = QStringLiteral("CUPTI overhead");
            else if (tr.type == trace::Track::Type::Spans || label.isEmpty())
                label = QStringLiteral("profiler markers");
            label += QStringLiteral(" (pid %1)").arg(QString::fromUtf8(t.strings.view(p.pidText).data(), qsizetype(t.strings.view(p.pidText).size())));
            add({Lane::Kind::Header, tr.process, 0, m_rowHeight + 2, (m_foldedProcesses.contains(tr.process) ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + label});
        }
        if (m_foldedProcesses.contains(tr.process))
            continue;
        QString label;
        if (tr.type == trace::Track::Type::GpuStream && tr.stream)
            label = QStringLiteral("stream %1").arg(*tr.stream);
        else if (tr.name)
            label = QString::fromUtf8(t.strings.view(tr.name).data(), qsizetype(t.strings.view(tr.name).size())).trimmed();
        else
            label = QStringLiteral("thread ") + QString::fromUtf8(t.strings.view(tr.tidText).data(), qsizetype(t.strings.view(tr.tidText).size()));
        add({Lane::Kind::Track, track, 0, m_rowHeight * int(m_doc->index->depthCount(track)) + 4, label});
    }
    verticalScrollBar()->setRange(0, std::max(0, y - viewport()->height() + 20));
    verticalScrollBar()->setPageStep(viewport()->height());
}

void TimelineView::fitAll()
{
    if (!m_doc)
        return;
    const int64_t first = m_doc->contentStart;
    const int64_t last = std::max(m_doc->contentEnd, first + 1000);
    const int64_t margin = (last - first) / 50;
    zoomToRange(first - margin, last + margin);
}

void TimelineView::zoomToRange(int64_t start, int64_t end)
{
    if (end <= start)
        return;
    m_viewStart = start;
    m_nsPerPixel = double(end - start) / canvasWidth();
    clampView();
    changed();
}

void TimelineView::zoomBy(double factor, int anchorX)
{
    const int64_t anchor = timeAt(anchorX);
    m_nsPerPixel = std::clamp(m_nsPerPixel * factor, 0.01, 1e12);
    m_viewStart = anchor - static_cast<int64_t>((anchorX - m_labelWidth) * m_nsPerPixel);
    clampView();
    changed();
}

void TimelineView::panByPixels(double dx)
{
    m_viewStart += static_cast<int64_t>(dx * m_nsPerPixel);
    clampView();
    changed();
}

void TimelineView::clampView()
{
    if (!m_doc)
        return;
    const int64_t span = m_doc->trace->lastTime() - m_doc->trace->firstTime();
    const int64_t visible = static_cast<int64_t>(m_nsPerPixel * canvasWidth());
    m_viewStart = std::clamp(m_viewStart, m_doc->trace->firstTime() - visible / 2 - span, m_doc->trace->lastTime() + span);
}

void TimelineView::changed()
{
    viewport()->update();
    emit viewChanged(viewStart(), viewEnd());
}

void TimelineView::selectEvent(uint32_t event, bool center)
{
    m_selected = event;
    if (m_doc && event < m_doc->trace->events.size()) {
        const auto& e = m_doc->trace->events[event];
        if (center) {
            const int64_t visible = viewEnd() - viewStart();
            if (e.duration > visible)
                zoomToRange(e.start - e.duration / 10, e.end() + e.duration / 10);
            else
                m_viewStart = e.start + e.duration / 2 - visible / 2;
            // Unfold its process and scroll its lane into view.
            const uint32_t process = m_doc->trace->tracks[e.track].process;
            if (m_foldedProcesses.remove(process))
                rebuildLanes();
            for (const Lane& lane : m_lanes)
                if (lane.kind == Lane::Kind::Track && lane.id == e.track)
                    verticalScrollBar()->setValue(std::max(0, lane.y + e.depth * m_rowHeight - viewport()->height() / 2));
        }
    }
    changed();
    emit eventSelected(event);
}

void TimelineView::highlightName(std::optional<std::pair<uint32_t, bool>> nameAndCpu)
{
    m_highlight = nameAndCpu;
    viewport()->update();
}

void TimelineView::toggleProcess(uint32_t process)
{
    if (!m_foldedProcesses.remove(process))
        m_foldedProcesses.insert(process);
    rebuildLanes();
    viewport()->update();
}

const TimelineView::Lane* TimelineView::laneAt(int y) const
{
    const int contentY = y + verticalScrollBar()->value();
    if (y < m_axisHeight)
        return nullptr;
    for (const Lane& lane : m_lanes)
        if (contentY >= lane.y && contentY < lane.y + lane.height)
            return &lane;
    return nullptr;
}

uint32_t TimelineView::eventAt(QPoint pos) const
{
    const Lane* lane = laneAt(pos.y());
    if (!lane || lane->kind != Lane::Kind::Track || pos.x() < m_labelWidth)
        return trace::kNoIndex;
    const int depth = (pos.y() + verticalScrollBar()->value() - lane->y - 2) / m_rowHeight;
    const int64_t t = timeAt(pos.x());
    const auto list = m_doc->index->query(lane->id, t - int64_t(m_nsPerPixel * 2), t + int64_t(m_nsPerPixel * 2) + 1, m_nsPerPixel);
    uint32_t best = trace::kNoIndex;
    for (const auto& item : list.items)
        if (item.depth == depth && item.count == 1)
            best = item.event;
    return best;
}

QPoint TimelineView::positionOfEvent(uint32_t event) const
{
    const auto& e = m_doc->trace->events[event];
    for (const Lane& lane : m_lanes)
        if (lane.kind == Lane::Kind::Track && lane.id == e.track)
            return QPoint(int(xOf(e.start + e.duration / 2)), lane.y - verticalScrollBar()->value() + 2 + e.depth * m_rowHeight + m_rowHeight / 2);
    return {};
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().base());
    if (!m_doc) {
        p.drawText(viewport()->rect(), Qt::AlignCenter, tr("Open a trace (File > Open, or drop a file here)"));
        return;
    }
    const int scroll = verticalScrollBar()->value();
    p.setClipRect(QRect(0, m_axisHeight, viewport()->width(), viewport()->height() - m_axisHeight));
    for (const Lane& lane : m_lanes) {
        const int top = lane.y - scroll;
        if (top + lane.height < m_axisHeight || top > viewport()->height())
            continue;
        if (lane.kind == Lane::Kind::Header) {
            p.fillRect(0, top, viewport()->width(), lane.height, palette().alternateBase());
            p.setPen(palette().text().color());
            QFont bold = font();
            bold.setBold(true);
            p.setFont(bold);
            p.drawText(QRect(4, top, viewport()->width(), lane.height), Qt::AlignVCenter, lane.label);
            p.setFont(font());
            continue;
        }
        p.setPen(palette().text().color());
        p.drawText(QRect(8, top, m_labelWidth - 12, m_rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   fontMetrics().elidedText(lane.label, Qt::ElideMiddle, m_labelWidth - 12));
        p.setClipRect(QRect(m_labelWidth, m_axisHeight, canvasWidth(), viewport()->height() - m_axisHeight));
        if (lane.kind == Lane::Kind::Track)
            drawTrack(p, lane, top);
        else
            drawBusy(p, lane, top);
        p.setClipRect(QRect(0, m_axisHeight, viewport()->width(), viewport()->height() - m_axisHeight));
        p.setPen(palette().mid().color());
        p.drawLine(0, top + lane.height - 1, viewport()->width(), top + lane.height - 1);
    }
    // Launch ↔ GPU activity arrows for the selection.
    if (m_selected < m_doc->trace->events.size()) {
        const trace::Trace& t = *m_doc->trace;
        std::vector<std::pair<uint32_t, uint32_t>> links;
        const auto& e = t.events[m_selected];
        if (trace::isGpuActivity(e.kind)) {
            if (const uint32_t launch = t.launchOf(m_selected); launch != trace::kNoIndex)
                links.emplace_back(launch, m_selected);
        } else if (trace::isLaunchApi(e.kind)) {
            for (const uint32_t a : t.activitiesOf(m_selected))
                links.emplace_back(m_selected, a);
        }
        if (const uint32_t op = t.opOf(m_selected); op != trace::kNoIndex)
            links.emplace_back(op, m_selected);
        for (const auto& [forward, backward] : t.forwardBackward())
            if (forward == m_selected || backward == m_selected)
                links.emplace_back(forward, backward);
        p.setPen(QPen(QColor(220, 40, 40), 1.5));
        p.setRenderHint(QPainter::Antialiasing, true);
        for (const auto& [from, to] : links) {
            const QPoint a = positionOfEvent(from), b = positionOfEvent(to);
            if (a.isNull() || b.isNull())
                continue;
            const QPointF start(xOf(t.events[from].start), a.y()), end(xOf(t.events[to].start), b.y());
            p.drawLine(start, end);
            p.drawEllipse(end, 3, 3);
        }
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    if (m_range || (m_dragging && (m_pressModifiers & (Qt::ShiftModifier | Qt::ControlModifier)))) {
        int64_t a, b;
        if (m_dragging) {
            a = timeAt(m_pressPos.x());
            b = timeAt(m_dragNow.x());
        } else {
            a = m_range->first;
            b = m_range->second;
        }
        const double x0 = xOf(std::min(a, b)), x1 = xOf(std::max(a, b));
        p.fillRect(QRectF(x0, m_axisHeight, std::max(1.0, x1 - x0), viewport()->height()), QColor(60, 120, 220, 50));
    }
    p.setClipping(false);
    drawAxis(p);
}

void TimelineView::drawAxis(QPainter& p)
{
    p.fillRect(0, 0, viewport()->width(), m_axisHeight, palette().window());
    p.setPen(palette().text().color());
    const int64_t step = tickStep(m_nsPerPixel, 110);
    const int64_t origin = m_doc->trace->originTime();
    const int64_t first = m_viewStart - ((m_viewStart - origin) % step + step) % step;
    for (int64_t t = first; xOf(t) < viewport()->width(); t += step) {
        const double x = xOf(t);
        if (x < m_labelWidth)
            continue;
        p.drawLine(QPointF(x, m_axisHeight - 6), QPointF(x, m_axisHeight));
        p.drawText(QPointF(x + 3, m_axisHeight - 8), timeText(t - origin));
    }
    p.drawText(QRect(4, 0, m_labelWidth, m_axisHeight), Qt::AlignVCenter, QStringLiteral("view %1").arg(timeText(viewEnd() - viewStart())));
}

void TimelineView::drawTrack(QPainter& p, const Lane& lane, int top)
{
    const trace::Trace& t = *m_doc->trace;
    const auto list = m_doc->index->query(lane.id, viewStart(), viewEnd() + 1, m_nsPerPixel);
    const QColor folded(150, 150, 160);
    for (const auto& item : list.items) {
        const double x0 = std::max(double(m_labelWidth), xOf(item.start));
        const double x1 = std::min(double(viewport()->width()), xOf(item.end));
        const QRectF box(x0, top + 2 + item.depth * m_rowHeight, std::max(1.0, x1 - x0), m_rowHeight - 1);
        if (item.count > 1) {
            p.fillRect(box, QBrush(folded, Qt::Dense4Pattern));
            continue;
        }
        const trace::Event& e = t.events[item.event];
        const std::string_view name = t.strings.view(e.name);
        QColor colour = colourFor(name);
        const bool cpuSide = !trace::isGpuSide(e.kind);
        if (m_highlight && (m_highlight->first != e.name || m_highlight->second != cpuSide))
            colour = colour.lighter(160);
        p.fillRect(box, colour);
        if (item.event == m_selected) {
            p.setPen(QPen(Qt::black, 2));
            p.drawRect(box);
        }
        if (box.width() > 24) {
            p.setPen(Qt::black);
            p.drawText(box.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fontMetrics().elidedText(QString::fromUtf8(name.data(), qsizetype(name.size())), Qt::ElideRight, int(box.width()) - 4));
        }
    }
}

void TimelineView::drawBusy(QPainter& p, const Lane& lane, int top)
{
    const auto& ov = m_doc->overlap;
    // Each pixel column is shaded by how busy it is, so a 3% busy GPU does not look solid when zoomed out.
    auto fill = [&](const analysis::IntervalSet& set, const QColor& colour) {
        const int width = canvasWidth();
        const auto fractions = timeline::TimelineIndex::coverage(set, viewStart(), m_nsPerPixel, width);
        int run = 0;
        for (int x = 0; x <= width; ++x) {
            const int level = x < width ? int(std::ceil(fractions[size_t(x)] * 4)) : -1; // 0..4
            const int previous = x > 0 ? int(std::ceil(fractions[size_t(x - 1)] * 4)) : -1;
            if (x > 0 && level != previous) {
                if (previous > 0) {
                    QColor c = colour;
                    c.setAlphaF(0.25 + 0.1875 * previous);
                    p.fillRect(QRectF(m_labelWidth + run, top + 2, x - run, m_rowHeight - 3), c);
                }
                run = x;
            }
        }
    };
    const double wx0 = std::max(double(m_labelWidth), xOf(ov.window.start)), wx1 = xOf(ov.window.end);
    switch (lane.kind) {
    case Lane::Kind::DeviceBusy:
        for (const auto& d : ov.devices)
            if (uint32_t(d.device) == lane.id)
                fill(d.busy, QColor(40, 110, 200));
        break;
    case Lane::Kind::CpuBusy:
        fill(ov.cpuBusy, QColor(200, 120, 40));
        break;
    case Lane::Kind::ThreadBusy:
        fill(ov.threads[lane.id].busy, QColor(220, 150, 70));
        break;
    case Lane::Kind::Overlap:
        // grey: both idle; blue: GPU only; red: CPU works while the GPU idles; green: both busy.
        p.fillRect(QRectF(wx0, top + 2, std::max(0.0, wx1 - wx0), m_rowHeight - 3), QColor(210, 210, 210));
        fill(ov.gpuBusy, QColor(40, 110, 200));
        fill(ov.cpuBusy, QColor(210, 60, 60));
        fill(m_doc->cpuAndGpu, QColor(60, 170, 80));
        break;
    default:
        break;
    }
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    rebuildLanes();
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

void TimelineView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ShiftModifier) {
        QAbstractScrollArea::wheelEvent(event);
        return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(0.8, steps), int(event->position().x()));
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = m_dragNow = event->pos();
    m_pressViewStart = m_viewStart;
    m_pressButton = event->button();
    m_pressModifiers = event->modifiers();
    m_dragging = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_pressButton == Qt::LeftButton) {
        m_dragNow = event->pos();
        if ((event->pos() - m_pressPos).manhattanLength() > 3)
            m_dragging = true;
        if (m_dragging && !(m_pressModifiers & (Qt::ShiftModifier | Qt::ControlModifier))) {
            m_viewStart = m_pressViewStart - static_cast<int64_t>((event->pos().x() - m_pressPos.x()) * m_nsPerPixel);
            verticalScrollBar()->setValue(verticalScrollBar()->value() - (event->pos().y() - m_dragNow.y()));
            clampView();
            changed();
        } else {
            viewport()->update();
        }
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    const bool wasDragging = m_dragging;
    m_dragging = false;
    if (m_pressButton != Qt::LeftButton)
        return;
    m_pressButton = Qt::NoButton;
    if (wasDragging) {
        const int64_t a = timeAt(std::min(m_pressPos.x(), event->pos().x()));
        const int64_t b = timeAt(std::max(m_pressPos.x(), event->pos().x()));
        if (m_pressModifiers & Qt::ControlModifier) { // box zoom
            zoomToRange(a, b);
        } else if (m_pressModifiers & Qt::ShiftModifier) { // aggregate a range
            m_range = std::make_pair(a, b);
            viewport()->update();
            emit rangeSelected(m_range);
        }
        return;
    }
    const Lane* lane = laneAt(event->pos().y());
    if (lane && lane->kind == Lane::Kind::Header) {
        toggleProcess(lane->id);
        return;
    }
    if (m_range && !(event->modifiers() & Qt::ShiftModifier)) {
        m_range.reset();
        emit rangeSelected(m_range);
    }
    selectEvent(eventAt(event->pos()), false);
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const int center = m_labelWidth + canvasWidth() / 2;
    switch (event->key()) {
    case Qt::Key_W: zoomBy(0.7, center); break;
    case Qt::Key_S: zoomBy(1 / 0.7, center); break;
    case Qt::Key_A: panByPixels(-canvasWidth() / 8.0); break;
    case Qt::Key_D: panByPixels(canvasWidth() / 8.0); break;
    case Qt::Key_F:
    case Qt::Key_Home: fitAll(); break;
    case Qt::Key_Z:
        if (m_range)
            zoomToRange(m_range->first, m_range->second);
        else if (m_doc && m_selected < m_doc->trace->events.size()) {
            const auto& e = m_doc->trace->events[m_selected];
            zoomToRange(e.start - e.duration / 10 - 1000, e.end() + e.duration / 10 + 1000);
        }
        break;
    case Qt::Key_Escape:
        m_range.reset();
        emit rangeSelected(m_range);
        selectEvent(trace::kNoIndex, false);
        break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
    }
}

bool TimelineView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_doc) {
        auto* help = static_cast<QHelpEvent*>(event);
        const trace::Trace& t = *m_doc->trace;
        const uint32_t hit = eventAt(help->pos());
        if (hit != trace::kNoIndex) {
            const auto& e = t.events[hit];
            const std::string_view name = t.strings.view(e.name);
            QToolTip::showText(help->globalPos(), QStringLiteral("<b>%1</b><br>%2, %3").arg(QString::fromUtf8(name.data(), qsizetype(name.size())).toHtmlEscaped(), timeText(e.duration), QString::fromUtf8(t.strings.view(e.category).data(), qsizetype(t.strings.view(e.category).size()))), this);
        } else if (const Lane* lane = laneAt(help->pos().y()); lane && lane->kind == Lane::Kind::Track && help->pos().x() > m_labelWidth) {
            const int depth = (help->pos().y() + verticalScrollBar()->value() - lane->y - 2) / m_rowHeight;
            const int64_t at = timeAt(help->pos().x());
            for (const auto& item : m_doc->index->query(lane->id, at, at + 1, m_nsPerPixel).items)
                if (item.depth == depth && item.count > 1)
                    QToolTip::showText(help->globalPos(), tr("%1 events folded (%2); zoom in to see them").arg(item.count).arg(timeText(item.end - item.start)), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}
