// SPDX-License-Identifier: MIT
#pragma once

#include "timeline/busywindowcache.h"
#include "timeline/drawwindowcache.h"
#include "timeline/timeaxis.h"
#include "timeline/timelineindex.h"

#include <QAbstractScrollArea>
#include <QSet>

#include <memory>
#include <optional>

struct TraceDocument;

class QContextMenuEvent;
class QFontMetrics;

// The kernel timeline: CPU/GPU overlap lanes on top, then one lane per GPU stream and CPU thread (GPU
// streams first, so kernels show without scrolling), grouped under foldable process headers. It can hold
// several documents on one time axis (setDocuments: one per rank of a run), each one's lanes under a
// foldable header of its own; with one document (setDocument) there is no such header. A CPU lane
// starts collapsed: Python stacks folded to a few frames (TimelineIndex's compact layout) and at most
// kCollapsedRows rows; clicking its label shows every row. Draw lists come from core's TimelineIndex
// (folded below 3 px), so a frame costs what the pixels cost, not what the events cost, through a
// DrawWindowCache: a pan or a small zoom redraws the lane's cached, padded window instead of querying again.
// The busy lanes' per-pixel coverage comes the same way from a BusyWindowCache.
//
// W/S zoom, A/D pan and F fit all are window-wide shortcuts (they work while the table has focus) that
// do nothing while a text field has focus.
class TimelineView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    struct Lane
    {
        // Group: a document's header, id is the group; Queue: id is its stream's track.
        enum class Kind { Group, Header, DeviceBusy, CpuBusy, ThreadBusy, Overlap, Track, Queue } kind;
        uint32_t id = 0; // track, process or device
        int y = 0;       // in content coordinates (add the axis, subtract the scroll)
        int height = 0;
        QString label;
        int group = 0; // the document the lane shows (index into the groups)
    };
    // One document of several: its lanes follow a header titled `title` (amber when `marked`: a straggler).
    struct Group
    {
        std::shared_ptr<const TraceDocument> document;
        QString title;
        bool marked = false;
    };
    static constexpr int kCollapsedRows = 8;

    explicit TimelineView(QWidget* parent = nullptr);

    // What the lanes draw, as HTML: the one text for tooltips and the View > Legend dialog.
    static QString legendHtml();
    // Elides a lane label to `width` px keeping its head: "thread 3553 (…main_thread)".
    static QString elideLabel(const QString& label, const QFontMetrics& metrics, int width);

    void setDocument(std::shared_ptr<const TraceDocument> document); // one document, no group header
    void setDocuments(std::vector<Group> groups);                    // several on one time axis, each under its header
    int groupCount() const { return int(m_groups.size()); }
    const TraceDocument* documentOf(int group) const;
    void toggleGroup(int group); // folds or unfolds a document's lanes under its header
    bool groupFolded(int group) const { return m_foldedGroups.contains(group); }
    // The same trace with more analyses in (busy lanes, steps): keeps the view, selection and folds.
    void updateAnalyses(std::shared_ptr<const TraceDocument> document);
    // GPUs with no activity in the trace get no busy lane unless this is on (off by default).
    void setShowIdleDevices(bool show);
    bool showIdleDevices() const { return m_showIdleDevices; }
    // A launch queue lane under each GPU stream (a step chart of TraceDocument::queue); off by default.
    // setShowQueueLanes shows or hides every stream's; showQueueLanes is true while all are shown.
    void setShowQueueLanes(bool show);
    bool showQueueLanes() const { return m_showQueueLanes; }
    // One stream's queue lane (its lane's context menu); queueLanesChanged follows when the "all shown" state changes.
    void setQueueLaneShown(uint32_t track, bool show, int group = 0);
    bool queueLaneShown(uint32_t track, int group = 0) const { return m_queueTracks.contains(key(group, track)); }
    void fitAll(); // the whole content of the trace (TraceDocument::contentStart..contentEnd)
    void zoomBy(double factor, int anchorX);
    void panByPixels(double dx);
    void zoomToRange(int64_t start, int64_t end);
    void selectEvent(uint32_t event, bool center, int group = 0);
    void highlightName(std::optional<std::pair<uint32_t, bool>> nameAndCpu); // key-averages row → occurrences
    void toggleProcess(uint32_t process, int group = 0);
    void toggleLaneRows(uint32_t track, int group = 0); // a CPU lane's folded rows ↔ all rows
    // Selects a range as a Shift+drag does (rangeSelected follows); none clears it.
    void setRange(std::optional<std::pair<int64_t, int64_t>> range);
    // A vertical line at a time (the memory graph's hover), none when unset.
    void setCursorTime(std::optional<int64_t> time);
    std::optional<int64_t> cursorTime() const { return m_cursorTime; }
    int canvasLeft() const { return m_axis.left(); } // viewport x where time starts
    int canvasWidth() const;                         // pixels the view's time range spans
    bool laneExpanded(uint32_t track, int group = 0) const { return m_expandedTracks.contains(key(group, track)); }

    int64_t viewStart() const { return m_axis.viewStart(); }
    int64_t viewEnd() const { return m_axis.viewEnd(); }
    double nsPerPixel() const { return m_axis.nsPerPixel(); }
    uint32_t selectedEvent() const { return m_selected; }
    int selectedGroup() const { return m_selectedGroup; } // the document of selectedEvent
    bool hasHighlight() const { return m_highlight.has_value(); }
    std::optional<std::pair<int64_t, int64_t>> selectedRange() const { return m_range; }
    // Event at a widget position, kNoIndex if none (used by hover, click and tests); `group` gets its document.
    uint32_t eventAt(QPoint position, int* group = nullptr) const;
    QPoint positionOfEvent(uint32_t event, int group = 0) const; // centre of the event's box, for tests
    int laneCount() const { return int(m_lanes.size()); }
    const std::vector<Lane>& lanes() const { return m_lanes; }
    int axisHeight() const { return m_axisHeight; } // the time axis and, when the trace has steps, the step ruler
    // The step ruler: a band under the time axis with one labelled span per step (TraceDocument::steps);
    // clicking a span zooms to its step. Empty when the trace has no steps.
    QRect stepRulerRect() const;
    int stepAt(QPoint position) const; // index into the document's steps, -1 when none is there
    void zoomToStep(int step);
    // What the view may show: the trace's first to last time ({0, 1000} without a trace); widened by
    // setExtentIncluding (a stacked comparison shows the other trace's extent, shifted), and back to the
    // trace's own by setExtentIncluding(traceExtent()) or a new document.
    std::pair<int64_t, int64_t> traceExtent() const;
    void setExtentIncluding(int64_t first, int64_t last);
    int labelWidth() const { return m_labelWidth; }
    int rowHeight() const { return m_rowHeight; } // of one nesting depth in a lane
    QString laneToolTip(const Lane& lane) const;
    // The draw-window and busy-window caches (on by default): off, every frame queries the index and
    // computes the busy coverage as before (benchmarks).
    void setDrawCacheEnabled(bool enabled);
    const tilescope::timeline::DrawWindowCache::Stats& drawCacheStats() const { return m_drawCache.stats(); }
    const tilescope::timeline::BusyWindowCache::Stats& busyCacheStats() const { return m_busyCache.stats(); }

signals:
    void eventSelected(uint32_t event); // in the document of selectedGroup()
    void viewChanged(int64_t start, int64_t end);
    void rangeSelected(std::optional<std::pair<int64_t, int64_t>> range);
    void cursorMoved(std::optional<int64_t> time); // the time under the mouse on the canvas, none when off it
    void queueLanesChanged(bool allShown);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    // Per-document state (folded processes, expanded lanes, queue lanes) is keyed by group and id.
    static quint64 key(int group, uint32_t id) { return (quint64(uint32_t(group)) << 32) | id; }
    const TraceDocument& doc(int group) const { return *m_groups[size_t(group)].document; }
    void rebuildLanes();
    void rebuildGroupLanes(int group, int& y);
    void installNavigationShortcuts();
    tilescope::timeline::TimelineIndex::Layout layoutOf(int group, uint32_t track) const;
    int rowsShown(int group, uint32_t track) const;
    int rowOf(int group, uint32_t event) const; // the event's row in its lane as shown, -1 when folded away
    int rowAt(const Lane& lane, int y) const;
    std::pair<int64_t, int64_t> extent() const;        // what the view may show: every document's first to last time
    std::pair<int64_t, int64_t> contentExtent() const; // every document's content (TraceDocument::contentStart..End)
    void showAllQueueLanes(bool show);
    double xOf(int64_t t) const { return m_axis.xOf(t); }
    int64_t timeAt(double x) const { return m_axis.timeAt(x); }
    void changed();
    const Lane* laneAt(int y) const;
    void drawAxis(QPainter& p);
    void drawStepRuler(QPainter& p);
    void drawTrack(QPainter& p, const Lane& lane, int top);
    void drawBusy(QPainter& p, const Lane& lane, int top);
    void drawQueue(QPainter& p, const Lane& lane, int top);

    std::vector<Group> m_groups;
    std::shared_ptr<const TraceDocument> m_doc; // the first group's: the time axis's origin and the step ruler
    std::vector<Lane> m_lanes;
    QSet<int> m_foldedGroups;
    QSet<quint64> m_foldedProcesses; // key(group, process)
    QSet<quint64> m_expandedTracks;  // key(group, track)
    QSet<quint64> m_queueTracks;     // key(group, track): streams showing their queue lane
    bool m_showIdleDevices = false;
    bool m_showQueueLanes = false;                    // every stream's queue lane is shown
    tilescope::timeline::TimeAxis m_axis;             // time <-> pixels of the canvas right of the labels
    tilescope::timeline::DrawWindowCache m_drawCache; // track lanes' draw lists; cleared with the lanes
    tilescope::timeline::BusyWindowCache m_busyCache; // busy lanes' coverage; cleared with the lanes
    int m_labelWidth = 180;
    int m_rowHeight = 16;
    static constexpr int kTickBandHeight = 22, kStepRulerHeight = 16;
    int m_axisHeight = kTickBandHeight;
    uint32_t m_selected = tilescope::trace::kNoIndex;
    int m_selectedGroup = 0;
    std::optional<std::pair<uint32_t, bool>> m_highlight; // names of the first group's string table
    std::optional<std::pair<int64_t, int64_t>> m_range;
    std::optional<int64_t> m_cursorTime;
    // mouse
    QPoint m_pressPos;
    int64_t m_pressViewStart = 0;
    Qt::MouseButton m_pressButton = Qt::NoButton;
    Qt::KeyboardModifiers m_pressModifiers;
    bool m_dragging = false;
    QPoint m_dragNow;
};
