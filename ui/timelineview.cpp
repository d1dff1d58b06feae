// SPDX-License-Identifier: MIT
#include "timelineview.h"

#include "stats/timetext.h"
#include "tracedocument.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPainter>
#include <QScrollBar>
#include <QTextEdit>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tilescope;

namespace {

QColor colourFor(std::string_view name)
{
    const auto h = std::hash<std::string_view>()(name);
    return QColor::fromHsv(int(h % 360), 90 + int((h >> 9) % 60), 200 + int((h >> 17) % 40));
}

QString timeText(int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); }

QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// The header of a track's process: the device for GPU streams, the process name with its pid for host
// threads, "process PID" when the trace names no process (legacy traces' "CPU functions").
QString processHeader(const trace::Trace& t, const trace::Track& track)
{
    const trace::Process& p = t.processes[track.process];
    const QString pid = text(t.strings.view(p.pidText));
    const QString name = text(t.strings.view(p.name)).trimmed();
    const QString pidSuffix = pid.isEmpty() ? QString() : QStringLiteral(" (pid %1)").arg(pid);
    switch (track.type) {
    case trace::Track::Type::GpuStream: return QStringLiteral("GPU %1").arg(track.device) + pidSuffix;
    case trace::Track::Type::Overhead: return QStringLiteral("CUPTI overhead");
    case trace::Track::Type::Spans: return QStringLiteral("profiler markers (%1)").arg(pid);
    default: break;
    }
    if (!name.isEmpty())
        return name + pidSuffix;
    if (!pid.isEmpty())
        return QStringLiteral("process %1").arg(pid);
    return QStringLiteral("profiler markers"); // Kineto's unnamed instants (pid "")
}

bool textFieldHasFocus()
{
    const QWidget* focus = QApplication::focusWidget();
    return qobject_cast<const QLineEdit*>(focus) || qobject_cast<const QAbstractSpinBox*>(focus) || qobject_cast<const QTextEdit*>(focus)
        || qobject_cast<const QPlainTextEdit*>(focus);
}

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

TimelineView::TimelineView(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_axis.setCanvas(m_labelWidth, canvasWidth());
    installNavigationShortcuts();
}

QString TimelineView::legendHtml()
{
    return tr("<b>Overlap lanes</b> (top)<ul>"
              "<li><b>GPU N busy</b>: kernels, memcpy and memset on any stream of the GPU.</li>"
              "<li><b>CPU busy</b>: ops, CUDA runtime and driver calls on all threads (Python frames and "
              "annotations are labels, not work); one lane per thread below it.</li>"
              "<li>Busy lanes are shaded by per-pixel coverage: a pixel that is busy a quarter of its "
              "time is faint, a fully busy one solid.</li>"
              "<li><b>CPU / GPU</b>: <span style='color:#3caa50'>green</span> where both work, "
              "<span style='color:#d23c3c'>red</span> where the CPU works and the GPU idles, "
              "<span style='color:#286ec8'>blue</span> where only the GPU works, "
              "<span style='color:#909090'>grey</span> where both idle (not shown for a trace without GPU "
              "activity).</li></ul>"
              "<b>Event lanes</b><ul>"
              "<li>One lane per GPU stream, then per CPU thread, with nested events one row per depth.</li>"
              "<li><span style='color:#8a8a96'>Hatched blocks</span> are slices narrower than 3 px folded "
              "together; zoom in to see them.</li>"
              "<li>A CPU lane (▸) shows its Python stack folded to %1 frames and at most %2 rows; click its "
              "label to show all rows (▾).</li>"
              "<li>Click a process header to fold its lanes.</li>"
              "<li>Hover a GPU stream's label or empty space for its idle time split into host wait, kernel wait "
              "and other. View &gt; Show Queue Lanes adds each stream's launch queue (launched, not yet started) "
              "as a step chart; the lane's top is its largest length. A stream's context menu shows or hides its "
              "own.</li></ul>"
              "<b>Keys</b>: W/S zoom, A/D pan, F fit all, Z zoom to selection, Esc clear.")
        .arg(timeline::TimelineIndex::kPythonLevels)
        .arg(kCollapsedRows);
}

QString TimelineView::laneToolTip(const Lane& lane) const
{
    switch (lane.kind) {
    case Lane::Kind::DeviceBusy:
        return tr("<b>GPU %1 busy</b>: kernels, memcpy and memset on any of its streams; each pixel shaded by how "
                  "much of it is busy.")
            .arg(lane.id);
    case Lane::Kind::CpuBusy:
        return tr("<b>CPU busy</b>: ops, CUDA runtime and driver calls on any thread (Python frames and annotations "
                  "are not work); each pixel shaded by how much of it is busy.");
    case Lane::Kind::ThreadBusy:
        return tr("<b>%1</b> busy: its ops, CUDA runtime and driver calls; each pixel shaded by how much of it is busy.")
            .arg(lane.label.trimmed().toHtmlEscaped());
    case Lane::Kind::Overlap:
        return tr("<b>CPU / GPU</b>: <span style='color:#3caa50'>green</span> both work, "
                  "<span style='color:#d23c3c'>red</span> the CPU works while the GPU idles, "
                  "<span style='color:#286ec8'>blue</span> only the GPU works, "
                  "<span style='color:#909090'>grey</span> both idle.");
    case Lane::Kind::Group:
    case Lane::Kind::Header: return tr("<b>%1</b>: click to fold or unfold its lanes.").arg(lane.label.mid(2).toHtmlEscaped());
    case Lane::Kind::Track: {
        const TraceDocument& d = doc(lane.group);
        QString tip
            = tr("<b>%1</b>: nested slices one row under their parent; hatched blocks are slices narrower than 3 px folded together.")
                  .arg(lane.label.toHtmlEscaped());
        const auto full = int(d.index->depthCount(lane.id));
        if (m_expandedTracks.contains(key(lane.group, lane.id)))
            tip += tr("<br>All %1 rows shown; click the label to fold Python frames and deep rows.").arg(full);
        else if (rowsShown(lane.group, lane.id) < full)
            tip += tr("<br>Python stack folded to %1 frames, %2 of %3 rows shown; click the label to show all.")
                       .arg(timeline::TimelineIndex::kPythonLevels)
                       .arg(rowsShown(lane.group, lane.id))
                       .arg(full);
        if (const analysis::StreamIdle* idle = d.streamIdleOf(lane.id)) {
            const auto share = [&](int64_t ns) {
                return idle->idleNs > 0 ? QString::number(100.0 * double(ns) / double(idle->idleNs), 'f', 1) + QLatin1Char('%')
                                        : QStringLiteral("-");
            };
            const int64_t windowNs = idle->window.end - idle->window.start;
            tip += tr("<br><b>Idle</b> %1 of %2 (first to last activity):<br>&nbsp; host wait %3 (%4): the next launch came after "
                      "the stream ran dry<br>&nbsp; kernel wait %5 (%6): queued, gaps under %7<br>&nbsp; other %8 (%9): queued, "
                      "waiting on something else")
                       .arg(timeText(idle->idleNs), timeText(windowNs), timeText(idle->hostWaitNs), share(idle->hostWaitNs),
                            timeText(idle->kernelWaitNs), share(idle->kernelWaitNs), timeText(d.streamIdle.kernelWaitThresholdNs),
                            timeText(idle->otherNs), share(idle->otherNs));
        }
        return tip;
    }
    case Lane::Kind::Queue: {
        const analysis::StreamQueue* q = doc(lane.group).queueOf(lane.id);
        if (!q)
            return {};
        return tr("<b>Launch queue</b> of stream %1: operations launched and not yet started (%2 launches).<br>max %3, mean %4, "
                  "median %5, p95 %6 (time-weighted); full (%7 pending) for %8")
            .arg(q->stream)
            .arg(q->operations)
            .arg(q->maxLength)
            .arg(q->meanLength, 0, 'f', 2)
            .arg(q->medianLength)
            .arg(q->p95Length)
            .arg(doc(lane.group).queue.limit)
            .arg(timeText(q->fullNs));
    }
    }
    return {};
}

QString TimelineView::elideLabel(const QString& label, const QFontMetrics& metrics, int width)
{
    if (metrics.horizontalAdvance(label) <= width)
        return label;
    // "thread 3553 (pt_main_thread)": keep the head with its id, elide the name's start.
    const qsizetype open = label.indexOf(QStringLiteral(" ("));
    if (open > 0 && label.endsWith(QLatin1Char(')'))) {
        const QString head = label.left(open + 2);
        const QString inner = label.mid(open + 2, label.size() - open - 3);
        const int room = width - metrics.horizontalAdvance(head + QLatin1Char(')'));
        if (room > metrics.horizontalAdvance(QStringLiteral("…xx")))
            return head + metrics.elidedText(inner, Qt::ElideLeft, room) + QLatin1Char(')');
    }
    return metrics.elidedText(label, Qt::ElideRight, width);
}

void TimelineView::installNavigationShortcuts()
{
    // Window-wide, so they work while the table or the details have focus; a text field keeps its keys
    // (it accepts ShortcutOverride for text, and the check below covers the rest).
    auto add = [this](Qt::Key key, auto apply) {
        auto* action = new QAction(this);
        action->setShortcut(QKeySequence(key));
        action->setShortcutContext(Qt::WindowShortcut);
        connect(action, &QAction::triggered, this, [this, apply] {
            if (m_doc && !textFieldHasFocus())
                apply();
        });
        addAction(action);
    };
    add(Qt::Key_W, [this] { zoomBy(0.7, m_labelWidth + canvasWidth() / 2); });
    add(Qt::Key_S, [this] { zoomBy(1 / 0.7, m_labelWidth + canvasWidth() / 2); });
    add(Qt::Key_A, [this] { panByPixels(-canvasWidth() / 8.0); });
    add(Qt::Key_D, [this] { panByPixels(canvasWidth() / 8.0); });
    add(Qt::Key_F, [this] { fitAll(); });
    add(Qt::Key_Z, [this] {
        if (m_range)
            zoomToRange(m_range->first, m_range->second);
        else if (m_selected < doc(m_selectedGroup).trace->events.size()) {
            const auto& e = doc(m_selectedGroup).trace->events[m_selected];
            zoomToRange(e.start - e.duration / 10 - 1000, e.end() + e.duration / 10 + 1000);
        }
    });
    // Escape drops the range and the selection from wherever the focus is (a finding's range is set from the
    // Findings table, where the focus then stays).
    add(Qt::Key_Escape, [this] {
        m_range.reset();
        emit rangeSelected(m_range);
        selectEvent(trace::kNoIndex, false);
    });
}

void TimelineView::setShowQueueLanes(bool show)
{
    if (m_showQueueLanes == show && (show || m_queueTracks.isEmpty()))
        return;
    showAllQueueLanes(show);
    rebuildLanes();
    viewport()->update();
    emit queueLanesChanged(m_showQueueLanes);
}

void TimelineView::showAllQueueLanes(bool show)
{
    m_showQueueLanes = show;
    m_queueTracks.clear();
    for (int g = 0; show && g < groupCount(); ++g)
        for (const analysis::StreamQueue& q : doc(g).queue.streams)
            m_queueTracks.insert(key(g, q.track));
}

void TimelineView::setQueueLaneShown(uint32_t track, bool show, int group)
{
    if (group < 0 || group >= groupCount() || !doc(group).queueOf(track) || queueLaneShown(track, group) == show)
        return;
    if (show)
        m_queueTracks.insert(key(group, track));
    else
        m_queueTracks.remove(key(group, track));
    qsizetype streams = 0;
    for (int g = 0; g < groupCount(); ++g)
        streams += qsizetype(doc(g).queue.streams.size());
    const bool all = m_queueTracks.size() == streams;
    rebuildLanes();
    viewport()->update();
    if (all != m_showQueueLanes) {
        m_showQueueLanes = all;
        emit queueLanesChanged(all);
    }
}

void TimelineView::setShowIdleDevices(bool show)
{
    if (m_showIdleDevices == show)
        return;
    m_showIdleDevices = show;
    rebuildLanes();
    viewport()->update();
}

timeline::TimelineIndex::Layout TimelineView::layoutOf(int group, uint32_t track) const
{
    return m_expandedTracks.contains(key(group, track)) ? timeline::TimelineIndex::Layout::Full : timeline::TimelineIndex::Layout::Compact;
}

int TimelineView::rowsShown(int group, uint32_t track) const
{
    if (m_expandedTracks.contains(key(group, track)))
        return int(doc(group).index->depthCount(track));
    return std::min(kCollapsedRows, int(doc(group).index->depthCount(track, timeline::TimelineIndex::Layout::Compact)));
}

int TimelineView::rowOf(int group, uint32_t event) const
{
    const trace::Event& e = doc(group).trace->events[event];
    if (m_expandedTracks.contains(key(group, e.track)))
        return e.depth;
    const uint16_t row = doc(group).index->compactDepth(event);
    return row == timeline::TimelineIndex::kHidden || row >= kCollapsedRows ? -1 : row;
}

int TimelineView::rowAt(const Lane& lane, int y) const { return (y + verticalScrollBar()->value() - lane.y - 2) / m_rowHeight; }

std::pair<int64_t, int64_t> TimelineView::extent() const
{
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    for (const Group& g : m_groups) {
        first = std::min({first, g.document->trace->firstTime(), g.document->contentStart});
        last = std::max({last, g.document->trace->lastTime(), g.document->contentEnd});
    }
    return {first, std::max(last, first + 1000)};
}

std::pair<int64_t, int64_t> TimelineView::contentExtent() const
{
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    for (const Group& g : m_groups) {
        first = std::min(first, g.document->contentStart);
        last = std::max(last, g.document->contentEnd);
    }
    return {first, std::max(last, first + 1000)};
}

const TraceDocument* TimelineView::documentOf(int group) const
{
    return group >= 0 && group < groupCount() ? m_groups[size_t(group)].document.get() : nullptr;
}

void TimelineView::setDocument(std::shared_ptr<const TraceDocument> document)
{
    std::vector<Group> groups;
    if (document)
        groups.push_back({std::move(document), QString(), false});
    setDocuments(std::move(groups));
}

void TimelineView::setDocuments(std::vector<Group> groups)
{
    std::erase_if(groups, [](const Group& g) { return !g.document; });
    m_groups = std::move(groups);
    m_doc = m_groups.empty() ? nullptr : m_groups.front().document;
    m_selected = tilescope::trace::kNoIndex;
    m_selectedGroup = 0;
    m_highlight.reset();
    m_range.reset();
    m_foldedGroups.clear();
    m_foldedProcesses.clear();
    m_expandedTracks.clear();
    showAllQueueLanes(m_showQueueLanes); // the View menu's state carries over to a new trace
    // Under a document's header (several ranks), the profiler's own marker processes start folded so more
    // ranks fit: a process with no GPU stream and no host thread.
    for (int g = 0; g < groupCount(); ++g) {
        if (m_groups[size_t(g)].title.isEmpty())
            continue;
        const trace::Trace& t = *doc(g).trace;
        QSet<uint32_t> working;
        for (const uint32_t track : doc(g).laneOrder)
            if (t.tracks[track].type == trace::Track::Type::GpuStream || t.tracks[track].type == trace::Track::Type::HostThread)
                working.insert(t.tracks[track].process);
        for (const uint32_t track : doc(g).laneOrder)
            if (!working.contains(t.tracks[track].process))
                m_foldedProcesses.insert(key(g, t.tracks[track].process));
    }
    m_axisHeight = kTickBandHeight + (m_doc && !m_doc->steps.steps.empty() ? kStepRulerHeight : 0);
    rebuildLanes();
    verticalScrollBar()->setValue(0); // a new trace from its top lanes, not where the last one was scrolled to
    if (m_doc) {
        const auto [first, last] = extent();
        m_axis.setExtent(first, last);
    }
    fitAll();
}

void TimelineView::updateAnalyses(std::shared_ptr<const TraceDocument> document)
{
    if (!m_doc || !document || m_groups.size() != 1 || m_doc->trace != document->trace) {
        setDocument(std::move(document));
        return;
    }
    m_groups.front().document = document;
    m_doc = std::move(document);
    m_axisHeight = kTickBandHeight + (!m_doc->steps.steps.empty() ? kStepRulerHeight : 0);
    rebuildLanes();
    viewport()->update();
}

void TimelineView::setDrawCacheEnabled(bool enabled)
{
    m_drawCache.setEnabled(enabled);
    m_busyCache.setEnabled(enabled);
    viewport()->update();
}

int TimelineView::canvasWidth() const { return std::max(1, viewport()->width() - m_labelWidth); }

void TimelineView::rebuildLanes()
{
    m_lanes.clear();
    m_drawCache.clear();
    m_busyCache.clear();
    int y = m_axisHeight;
    for (int group = 0; group < groupCount(); ++group)
        rebuildGroupLanes(group, y);
    verticalScrollBar()->setRange(0, std::max(0, y - viewport()->height() + 20));
    verticalScrollBar()->setPageStep(viewport()->height());
}

// One document's lanes from `y` on, under its header when it has a title.
void TimelineView::rebuildGroupLanes(int group, int& y)
{
    const TraceDocument& document = doc(group);
    const trace::Trace& t = *document.trace;
    auto add = [&](Lane lane) {
        lane.y = y;
        lane.group = group;
        y += lane.height;
        m_lanes.push_back(std::move(lane));
    };
    if (const Group& g = m_groups[size_t(group)]; !g.title.isEmpty()) {
        add({Lane::Kind::Group, uint32_t(group), 0, m_rowHeight + 6,
             (groupFolded(group) ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + g.title});
        if (groupFolded(group))
            return;
    }
    const auto& overlap = document.overlap;
    for (const auto& d : overlap.devices)
        if (m_showIdleDevices || d.busyNs > 0)
            add({Lane::Kind::DeviceBusy, uint32_t(d.device), 0, m_rowHeight, QStringLiteral("GPU %1 busy").arg(d.device)});
    add({Lane::Kind::CpuBusy, 0, 0, m_rowHeight, QStringLiteral("CPU busy (all threads)")});
    for (size_t i = 0; i < overlap.threads.size(); ++i) {
        const trace::Track& tr = t.tracks[overlap.threads[i].track];
        const std::string_view name = tr.name ? t.strings.view(tr.name) : t.strings.view(tr.tidText);
        add({Lane::Kind::ThreadBusy, uint32_t(i), 0, m_rowHeight, QStringLiteral("  CPU ") + text(name).trimmed()});
    }
    // Without any GPU activity the lane would be solid red ("GPU idle while the CPU works"): not a finding.
    if (overlap.gpuBusy.length() > 0)
        add({Lane::Kind::Overlap, 0, 0, m_rowHeight, QStringLiteral("CPU / GPU")});
    uint32_t lastProcess = trace::kNoIndex;
    for (const uint32_t track : document.laneOrder) {
        const trace::Track& tr = t.tracks[track];
        const bool folded = m_foldedProcesses.contains(key(group, tr.process));
        if (tr.process != lastProcess) {
            lastProcess = tr.process;
            add({Lane::Kind::Header, tr.process, 0, m_rowHeight + 2,
                 (folded ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + processHeader(t, tr)});
        }
        if (folded)
            continue;
        QString label;
        if (tr.type == trace::Track::Type::GpuStream && tr.stream)
            label = QStringLiteral("stream %1").arg(*tr.stream);
        else if (tr.name)
            label = text(t.strings.view(tr.name)).trimmed();
        else if (!tr.tidIsString)
            label = QStringLiteral("thread ") + text(t.strings.view(tr.tidText));
        else if (tr.tidText && !t.strings.view(tr.tidText).empty())
            label = text(t.strings.view(tr.tidText)); // Kineto's span lanes: "PyTorch Profiler"
        else
            label = QStringLiteral("instants");
        const int rows = rowsShown(group, track);
        if (m_expandedTracks.contains(key(group, track)))
            label = QStringLiteral("▾ ") + label;
        else if (rows < int(document.index->depthCount(track)))
            label = QStringLiteral("▸ ") + label;
        add({Lane::Kind::Track, track, 0, m_rowHeight * rows + 4, label});
        if (m_queueTracks.contains(key(group, track)) && tr.type == trace::Track::Type::GpuStream && document.queueOf(track))
            add({Lane::Kind::Queue, track, 0, m_rowHeight * 2, QStringLiteral("  queue ") + label});
    }
}

void TimelineView::fitAll()
{
    if (!m_doc)
        return;
    const auto [start, end] = contentExtent();
    zoomToRange(start, end);
}

void TimelineView::zoomToRange(int64_t start, int64_t end)
{
    if (end <= start)
        return;
    m_axis.zoomToRange(start, end);
    changed();
}

void TimelineView::zoomBy(double factor, int anchorX)
{
    m_axis.zoomBy(factor, anchorX);
    changed();
}

void TimelineView::panByPixels(double dx)
{
    m_axis.panByPixels(dx);
    changed();
}

void TimelineView::changed()
{
    viewport()->update();
    emit viewChanged(viewStart(), viewEnd());
}

void TimelineView::selectEvent(uint32_t event, bool center, int group)
{
    m_selected = event;
    m_selectedGroup = group >= 0 && group < groupCount() ? group : 0;
    if (m_doc && event < doc(m_selectedGroup).trace->events.size()) {
        const TraceDocument& d = doc(m_selectedGroup);
        const auto& e = d.trace->events[event];
        if (center) {
            // Keep the zoom when the event is drawn as itself at it (3 px or more) and fits; else zoom so it
            // spans a twentieth of the view, or all of it with a margin when it is long.
            int64_t visible = viewEnd() - viewStart();
            if (double(e.duration) * 1.2 > double(visible))
                visible = e.duration + e.duration / 5;
            else if (m_axis.pixelsOf(e.duration) < 3)
                visible = std::max<int64_t>(e.duration * 20, 2000);
            const int64_t centre = e.start + e.duration / 2;
            m_axis.zoomToRange(centre - visible / 2, centre - visible / 2 + visible);
            // Unfold its document, its process and its lane's rows, and scroll its row into view.
            const uint32_t process = d.trace->tracks[e.track].process;
            bool relayout = m_foldedProcesses.remove(key(m_selectedGroup, process));
            relayout = m_foldedGroups.remove(m_selectedGroup) || relayout;
            if (rowOf(m_selectedGroup, event) < 0) {
                m_expandedTracks.insert(key(m_selectedGroup, e.track));
                relayout = true;
            }
            if (relayout)
                rebuildLanes();
            // The view scrolls only when the row is not in view already (it moved the lanes a few pixels under the
            // ruler for a row near the top), and then to the middle of the lanes' part of the view.
            for (const Lane& lane : m_lanes)
                if (lane.kind == Lane::Kind::Track && lane.group == m_selectedGroup && lane.id == e.track) {
                    const int rowTop = lane.y + rowOf(m_selectedGroup, event) * m_rowHeight;
                    const int onScreen = rowTop - verticalScrollBar()->value();
                    if (onScreen < m_axisHeight || onScreen + m_rowHeight > viewport()->height())
                        verticalScrollBar()->setValue(
                            std::max(0, rowTop - m_axisHeight - (viewport()->height() - m_axisHeight - m_rowHeight) / 2));
                }
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

void TimelineView::toggleLaneRows(uint32_t track, int group)
{
    if (!m_expandedTracks.remove(key(group, track)))
        m_expandedTracks.insert(key(group, track));
    rebuildLanes();
    viewport()->update();
}

void TimelineView::toggleProcess(uint32_t process, int group)
{
    if (!m_foldedProcesses.remove(key(group, process)))
        m_foldedProcesses.insert(key(group, process));
    rebuildLanes();
    viewport()->update();
}

void TimelineView::toggleGroup(int group)
{
    if (!m_foldedGroups.remove(group))
        m_foldedGroups.insert(group);
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

uint32_t TimelineView::eventAt(QPoint pos, int* group) const
{
    const Lane* lane = laneAt(pos.y());
    if (!lane || lane->kind != Lane::Kind::Track || pos.x() < m_labelWidth)
        return trace::kNoIndex;
    if (group)
        *group = lane->group;
    const int depth = rowAt(*lane, pos.y());
    const int64_t t = timeAt(pos.x());
    const TraceDocument& d = doc(lane->group);
    const auto list = d.index->query(lane->id, t - int64_t(m_axis.nsPerPixel() * 2), t + int64_t(m_axis.nsPerPixel() * 2) + 1,
                                     m_drawCache.resolution(m_axis.nsPerPixel()), 3.0, layoutOf(lane->group, lane->id),
                                     size_t(rowsShown(lane->group, lane->id)));
    uint32_t best = trace::kNoIndex;
    for (const auto& item : list.items)
        if (item.depth == depth && item.count == 1)
            best = item.event;
    return best;
}

QPoint TimelineView::positionOfEvent(uint32_t event, int group) const
{
    const auto& e = doc(group).trace->events[event];
    const int row = rowOf(group, event);
    if (row < 0)
        return {};
    for (const Lane& lane : m_lanes)
        if (lane.kind == Lane::Kind::Track && lane.group == group && lane.id == e.track)
            return QPoint(int(xOf(e.start + e.duration / 2)),
                          lane.y - verticalScrollBar()->value() + 2 + row * m_rowHeight + m_rowHeight / 2);
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
    if (const std::string none = trace::noEventsText(*m_doc->trace); !none.empty()) {
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   tr("%1: %2.\nA profiler stopped before its first step, or a schedule that never reached an active step, "
                      "writes such a file.")
                       .arg(QFileInfo(m_doc->path).fileName(), QString::fromStdString(none)));
        return;
    }
    const int scroll = verticalScrollBar()->value();
    p.setClipRect(QRect(0, m_axisHeight, viewport()->width(), viewport()->height() - m_axisHeight));
    for (const Lane& lane : m_lanes) {
        const int top = lane.y - scroll;
        if (top + lane.height < m_axisHeight || top > viewport()->height())
            continue;
        if (lane.kind == Lane::Kind::Header || lane.kind == Lane::Kind::Group) {
            // A document's header stands out from its process headers; a marked one (a straggler) in amber.
            const QColor band = lane.kind == Lane::Kind::Header ? palette().alternateBase().color()
                : m_groups[size_t(lane.group)].marked           ? QColor(255, 214, 102)
                                                                : QColor(205, 214, 230);
            p.fillRect(0, top, viewport()->width(), lane.height, band);
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
                   elideLabel(lane.label, fontMetrics(), m_labelWidth - 12));
        p.setClipRect(QRect(m_labelWidth, m_axisHeight, canvasWidth(), viewport()->height() - m_axisHeight));
        if (lane.kind == Lane::Kind::Track)
            drawTrack(p, lane, top);
        else if (lane.kind == Lane::Kind::Queue)
            drawQueue(p, lane, top);
        else
            drawBusy(p, lane, top);
        p.setClipRect(QRect(0, m_axisHeight, viewport()->width(), viewport()->height() - m_axisHeight));
        p.setPen(palette().mid().color());
        p.drawLine(0, top + lane.height - 1, viewport()->width(), top + lane.height - 1);
    }
    // What follows is on the canvas only: an arrow from an event left of the view ran across the lanes' names.
    p.setClipRect(QRect(m_labelWidth, m_axisHeight, canvasWidth(), viewport()->height() - m_axisHeight));
    // Launch ↔ GPU activity arrows for the selection.
    if (m_selected < doc(m_selectedGroup).trace->events.size()) {
        const trace::Trace& t = *doc(m_selectedGroup).trace;
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
            const QPoint a = positionOfEvent(from, m_selectedGroup), b = positionOfEvent(to, m_selectedGroup);
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
    if (m_cursorTime) {
        p.setPen(QColor(0, 0, 0, 120));
        p.drawLine(QPointF(xOf(*m_cursorTime), m_axisHeight), QPointF(xOf(*m_cursorTime), viewport()->height()));
    }
    p.setClipping(false);
    drawAxis(p);
}

void TimelineView::setRange(std::optional<std::pair<int64_t, int64_t>> range)
{
    if (range && range->second <= range->first)
        range.reset();
    m_range = range;
    viewport()->update();
    emit rangeSelected(m_range);
}

void TimelineView::setCursorTime(std::optional<int64_t> time)
{
    if (time == m_cursorTime)
        return;
    m_cursorTime = time;
    viewport()->update();
}

void TimelineView::drawAxis(QPainter& p)
{
    p.fillRect(0, 0, viewport()->width(), m_axisHeight, palette().window());
    drawStepRuler(p);
    p.setPen(palette().text().color());
    const int64_t step = tickStep(m_axis.nsPerPixel(), 110);
    const int64_t origin = m_doc->trace->originTime();
    const int64_t first = viewStart() - ((viewStart() - origin) % step + step) % step;
    for (int64_t t = first; xOf(t) < viewport()->width(); t += step) {
        const double x = xOf(t);
        if (x < m_labelWidth)
            continue;
        p.drawLine(QPointF(x, kTickBandHeight - 6), QPointF(x, kTickBandHeight));
        // A label that would run past the right edge is left out (cut, "40.000" read as a different time).
        const QString label = timeText(t - origin);
        if (x + 3 + p.fontMetrics().horizontalAdvance(label) <= viewport()->width())
            p.drawText(QPointF(x + 3, kTickBandHeight - 8), label);
    }
    p.drawText(QRect(4, 0, m_labelWidth, kTickBandHeight), Qt::AlignVCenter,
               QStringLiteral("view %1").arg(timeText(viewEnd() - viewStart())));
}

QRect TimelineView::stepRulerRect() const
{
    if (m_axisHeight == kTickBandHeight)
        return {};
    return QRect(m_labelWidth, kTickBandHeight, canvasWidth(), kStepRulerHeight);
}

int TimelineView::stepAt(QPoint position) const
{
    if (!stepRulerRect().contains(position))
        return -1;
    const auto& steps = m_doc->steps.steps;
    const int64_t t = timeAt(position.x());
    // Steps are sorted by start; the last one starting at or before t, if t is inside it.
    const auto after = std::upper_bound(steps.begin(), steps.end(), t, [](int64_t at, const auto& s) { return at < s.start; });
    if (after == steps.begin() || t >= std::prev(after)->end)
        return -1;
    return int(std::prev(after) - steps.begin());
}

std::pair<int64_t, int64_t> TimelineView::traceExtent() const { return m_doc ? extent() : std::pair<int64_t, int64_t>{0, 1000}; }

void TimelineView::setExtentIncluding(int64_t first, int64_t last)
{
    if (!m_doc)
        return;
    const auto [own, ownLast] = extent();
    m_axis.setExtent(std::min(own, first), std::max(ownLast, last));
    changed();
}

void TimelineView::zoomToStep(int step)
{
    if (m_doc && step >= 0 && size_t(step) < m_doc->steps.steps.size())
        zoomToRange(m_doc->steps.steps[size_t(step)].start, m_doc->steps.steps[size_t(step)].end);
}

// Alternating shades so neighbouring steps read apart; the label is the step's name where it fits.
void TimelineView::drawStepRuler(QPainter& p)
{
    const QRect band = stepRulerRect();
    if (band.isEmpty())
        return;
    p.save();
    p.setPen(palette().text().color());
    p.drawText(QRect(8, band.top(), m_labelWidth - 12, band.height()), Qt::AlignVCenter, tr("steps"));
    p.setClipRect(band);
    const auto& steps = m_doc->steps.steps;
    for (size_t i = 0; i < steps.size(); ++i) {
        const auto& s = steps[i];
        if (s.end < viewStart() || s.start > viewEnd())
            continue;
        const double x0 = std::max(double(band.left()), xOf(s.start)), x1 = std::min(double(band.right() + 1), xOf(s.end));
        const QRectF box(x0, band.top() + 1, std::max(1.0, x1 - x0), band.height() - 2);
        p.fillRect(box, i % 2 ? QColor(150, 120, 200) : QColor(185, 160, 225));
        if (box.width() > 30) {
            p.setPen(Qt::black);
            const std::string_view name = m_doc->trace->strings.view(s.name);
            p.drawText(
                box.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                fontMetrics().elidedText(QString::fromUtf8(name.data(), qsizetype(name.size())), Qt::ElideRight, int(box.width()) - 6));
        }
    }
    p.restore();
}

void TimelineView::drawTrack(QPainter& p, const Lane& lane, int top)
{
    const TraceDocument& d = doc(lane.group);
    const trace::Trace& t = *d.trace;
    const auto list = m_drawCache.items({d.index.get(), lane.id, layoutOf(lane.group, lane.id), size_t(rowsShown(lane.group, lane.id))},
                                        viewStart(), viewEnd() + 1, m_axis.nsPerPixel());
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
        if (m_highlight && lane.group == 0 && (m_highlight->first != e.name || m_highlight->second != cpuSide))
            colour = colour.lighter(160);
        p.fillRect(box, colour);
        if (item.event == m_selected && lane.group == m_selectedGroup) {
            p.setPen(QPen(Qt::black, 2));
            p.drawRect(box);
        }
        if (box.width() > 24) {
            p.setPen(Qt::black);
            p.drawText(
                box.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                fontMetrics().elidedText(QString::fromUtf8(name.data(), qsizetype(name.size())), Qt::ElideRight, int(box.width()) - 4));
        }
    }
}

void TimelineView::drawBusy(QPainter& p, const Lane& lane, int top)
{
    const auto& ov = doc(lane.group).overlap;
    // Each pixel column is shaded by how busy it is, so a 3% busy GPU does not look solid when zoomed out.
    auto fill = [&](const analysis::IntervalSet& set, const QColor& colour) {
        const int width = canvasWidth();
        const auto fractions = m_busyCache.coverage(set, viewStart(), m_axis.nsPerPixel(), width);
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
    case Lane::Kind::CpuBusy: fill(ov.cpuBusy, QColor(200, 120, 40)); break;
    case Lane::Kind::ThreadBusy: fill(ov.threads[lane.id].busy, QColor(220, 150, 70)); break;
    case Lane::Kind::Overlap:
        // grey: both idle; blue: GPU only; red: CPU works while the GPU idles; green: both busy.
        p.fillRect(QRectF(wx0, top + 2, std::max(0.0, wx1 - wx0), m_rowHeight - 3), QColor(210, 210, 210));
        fill(ov.gpuBusy, QColor(40, 110, 200));
        fill(ov.cpuBusy, QColor(210, 60, 60));
        fill(doc(lane.group).cpuAndGpu, QColor(60, 170, 80));
        break;
    default: break;
    }
}

void TimelineView::drawQueue(QPainter& p, const Lane& lane, int top)
{
    const analysis::StreamQueue* q = doc(lane.group).queueOf(lane.id);
    if (!q || q->series.empty())
        return;
    int32_t scale = 1;
    for (const analysis::QueueStep& s : q->series)
        scale = std::max(scale, s.length);
    // The largest length in each pixel column, so a one-pixel spike stays visible when zoomed out:
    // O(visible steps + width) per frame.
    const int width = canvasWidth();
    std::vector<int32_t> column(size_t(width), 0);
    const auto& series = q->series;
    auto it = std::upper_bound(series.begin(), series.end(), viewStart(),
                               [](int64_t t, const analysis::QueueStep& s) { return t < s.time; });
    if (it != series.begin())
        --it;
    for (; it != series.end() && it->time < viewEnd(); ++it) {
        const int64_t until = std::next(it) == series.end() ? it->time : std::next(it)->time;
        const int x0 = std::clamp(int(std::floor(xOf(std::max(it->time, viewStart())))) - m_labelWidth, 0, width - 1);
        const int x1 = std::clamp(int(std::floor(xOf(std::min(until, viewEnd())))) - m_labelWidth, 0, width - 1);
        for (int x = x0; x <= x1; ++x)
            column[size_t(x)] = std::max(column[size_t(x)], it->length);
    }
    const int height = lane.height - 4;
    const QColor colour(120, 80, 170);
    for (int x = 0; x < width;) {
        int end = x + 1;
        while (end < width && column[size_t(end)] == column[size_t(x)])
            ++end;
        if (column[size_t(x)] > 0) {
            const double h = std::max(1.0, double(height) * column[size_t(x)] / scale);
            p.fillRect(QRectF(m_labelWidth + x, top + 2 + height - h, end - x, h), colour);
        }
        x = end;
    }
    p.setPen(palette().mid().color());
    p.drawText(QRect(m_labelWidth + 2, top, 80, m_rowHeight), Qt::AlignVCenter | Qt::AlignLeft, QString::number(scale));
}

namespace {
// The queue's length at `time` (0 before its first change).
int32_t queueLengthAt(const analysis::StreamQueue& q, int64_t time)
{
    const auto it = std::upper_bound(q.series.begin(), q.series.end(), time,
                                     [](int64_t t, const analysis::QueueStep& s) { return t < s.time; });
    return it == q.series.begin() ? 0 : std::prev(it)->length;
}
} // namespace

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    // Keep the visible time range: a trace fitted before the window is laid out stays fitted.
    if (canvasWidth() != m_axis.width() || m_labelWidth != m_axis.left()) {
        m_axis.setCanvas(m_labelWidth, canvasWidth());
        emit viewChanged(viewStart(), viewEnd());
    }
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
    m_pressViewStart = m_axis.viewStart();
    m_pressButton = event->button();
    m_pressModifiers = event->modifiers();
    m_dragging = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_doc)
        emit cursorMoved(event->pos().x() >= m_labelWidth ? std::optional<int64_t>(timeAt(event->pos().x())) : std::nullopt);
    if (m_pressButton == Qt::LeftButton) {
        m_dragNow = event->pos();
        if ((event->pos() - m_pressPos).manhattanLength() > 3)
            m_dragging = true;
        if (m_dragging && !(m_pressModifiers & (Qt::ShiftModifier | Qt::ControlModifier))) {
            m_axis.panTo(m_pressViewStart - static_cast<int64_t>((event->pos().x() - m_pressPos.x()) * m_axis.nsPerPixel()));
            verticalScrollBar()->setValue(verticalScrollBar()->value() - (event->pos().y() - m_dragNow.y()));
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
    if (const int step = stepAt(event->pos()); step >= 0) {
        zoomToStep(step);
        return;
    }
    const Lane* lane = laneAt(event->pos().y());
    if (lane && lane->kind == Lane::Kind::Group) {
        toggleGroup(lane->group);
        return;
    }
    if (lane && lane->kind == Lane::Kind::Header) {
        toggleProcess(lane->id, lane->group);
        return;
    }
    if (lane && lane->kind == Lane::Kind::Track && event->pos().x() < m_labelWidth) {
        toggleLaneRows(lane->id, lane->group);
        return;
    }
    if (m_range && !(event->modifiers() & Qt::ShiftModifier)) {
        m_range.reset();
        emit rangeSelected(m_range);
    }
    int group = m_selectedGroup;
    const uint32_t hit = eventAt(event->pos(), &group);
    selectEvent(hit, false, group);
}

// A GPU stream's lane (or its queue lane) shows or hides its queue lane; a GPU's header all of its streams'.
void TimelineView::contextMenuEvent(QContextMenuEvent* event)
{
    const Lane* lane = m_doc ? laneAt(event->pos().y()) : nullptr;
    if (!lane)
        return;
    const TraceDocument& d = doc(lane->group);
    const int group = lane->group;
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if ((lane->kind == Lane::Kind::Track || lane->kind == Lane::Kind::Queue) && d.queueOf(lane->id)) {
        const uint32_t track = lane->id;
        if (queueLaneShown(track, group))
            menu->addAction(tr("Hide Queue Lane"), this, [this, track, group] { setQueueLaneShown(track, false, group); });
        else
            menu->addAction(tr("Show Queue Lane"), this, [this, track, group] { setQueueLaneShown(track, true, group); });
    } else if (lane->kind == Lane::Kind::Header) {
        std::vector<uint32_t> streams;
        for (const analysis::StreamQueue& q : d.queue.streams)
            if (d.trace->tracks[q.track].process == lane->id)
                streams.push_back(q.track);
        if (!streams.empty()) {
            const bool allShown = std::all_of(streams.begin(), streams.end(), [&](uint32_t t) { return queueLaneShown(t, group); });
            menu->addAction(allShown ? tr("Hide Queue Lanes") : tr("Show Queue Lanes"), this, [this, streams, group, allShown] {
                for (const uint32_t t : streams)
                    setQueueLaneShown(t, !allShown, group);
            });
        }
    }
    if (menu->isEmpty()) {
        delete menu;
        return;
    }
    menu->popup(event->globalPos());
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    // W/S/A/D/F, Z and Escape are window shortcuts (installNavigationShortcuts).
    switch (event->key()) {
    case Qt::Key_Home: fitAll(); break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
    }
}

bool TimelineView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::Leave && m_doc)
        emit cursorMoved(std::nullopt);
    if (event->type() == QEvent::ToolTip && m_doc) {
        auto* help = static_cast<QHelpEvent*>(event);
        int group = 0;
        const uint32_t hit = eventAt(help->pos(), &group);
        const trace::Trace& t = *doc(group).trace;
        if (const int step = stepAt(help->pos()); step >= 0) {
            const auto& s = m_doc->steps.steps[size_t(step)];
            const std::string_view name = m_doc->trace->strings.view(s.name);
            QToolTip::showText(help->globalPos(),
                               tr("<b>%1</b><br>%2, GPU busy %3 (%4%), %5 kernels<br>click to zoom to the step")
                                   .arg(QString::fromUtf8(name.data(), qsizetype(name.size())).toHtmlEscaped(), timeText(s.durationNs),
                                        timeText(s.gpuBusyNs))
                                   .arg(100 * s.gpuUtilization, 0, 'f', 1)
                                   .arg(s.kernels),
                               this);
        } else if (hit != trace::kNoIndex) {
            const auto& e = t.events[hit];
            const std::string_view name = t.strings.view(e.name);
            const QString& title = m_groups[size_t(group)].title; // which rank, when there are several
            QToolTip::showText(
                help->globalPos(),
                QStringLiteral("<b>%1</b><br>%2, %3")
                        .arg(QString::fromUtf8(name.data(), qsizetype(name.size())).toHtmlEscaped(), timeText(e.duration),
                             QString::fromUtf8(t.strings.view(e.category).data(), qsizetype(t.strings.view(e.category).size())))
                    + (title.isEmpty() ? QString() : QStringLiteral("<br>") + title.toHtmlEscaped()),
                this);
        } else if (const Lane* lane = laneAt(help->pos().y()); lane && lane->kind == Lane::Kind::Track && help->pos().x() > m_labelWidth) {
            const int depth = rowAt(*lane, help->pos().y());
            const int64_t at = timeAt(help->pos().x());
            bool shown = false;
            const auto folded = doc(lane->group)
                                    .index->query(lane->id, at, at + 1, m_drawCache.resolution(m_axis.nsPerPixel()), 3.0,
                                                  layoutOf(lane->group, lane->id), size_t(rowsShown(lane->group, lane->id)));
            for (const auto& item : folded.items)
                if (item.depth == depth && item.count > 1) {
                    QToolTip::showText(
                        help->globalPos(),
                        tr("%1 events folded (%2); zoom in to see them").arg(item.count).arg(timeText(item.end - item.start)), this);
                    shown = true;
                }
            if (!shown && doc(lane->group).streamIdleOf(lane->id))
                QToolTip::showText(help->globalPos(), laneToolTip(*lane), this);
            else if (!shown)
                QToolTip::hideText();
        } else if (lane && lane->kind == Lane::Kind::Queue && help->pos().x() > m_labelWidth) {
            const int64_t at = timeAt(help->pos().x());
            const analysis::StreamQueue* q = doc(lane->group).queueOf(lane->id);
            QToolTip::showText(
                help->globalPos(),
                tr("queue length %1 at %2<br>").arg(q ? queueLengthAt(*q, at) : 0).arg(timeText(at - m_doc->trace->originTime()))
                    + laneToolTip(*lane),
                this);
        } else if (lane) { // a label, a header or an overlap lane: what it draws
            QToolTip::showText(help->globalPos(), laneToolTip(*lane), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}
