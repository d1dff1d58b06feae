// SPDX-License-Identifier: MIT
#pragma once

#include "memory/memoryseriessummary.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace tilescope::memory {
struct MemoryTimeline;
struct SuspectedLeak;
} // namespace tilescope::memory
class MemoryBand;
class QCPItemTracer;
class QCPGraph;
class QCPItemLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QStackedWidget;
struct TraceDocument;

// Device memory under the timeline, on its time axis: allocated (solid) and reserved (dashed) per device
// from the trace's [memory] records, the peak marked with its op, out-of-memory requests, step boundaries,
// and the categories of a memory timeline stacked when one came with the trace. Each frame draws per-pixel
// min/max summaries (memory::MemorySeriesSummary), never a point per record.
//
// The panel follows the timeline (setView, setCanvas, setCursorTime) and asks it to move: a wheel zooms,
// a drag pans, Shift+drag selects a range, a click selects the op that was running at that moment.
class MemoryPanel : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryPanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);
    // Categories stacked under the curves (File > Open Memory Timeline; the document's own when beside it).
    void setMemoryTimeline(std::shared_ptr<const tilescope::memory::MemoryTimeline> timeline);
    void setView(int64_t start, int64_t end);
    // x (in this panel) and width of the timeline's canvas, so both share one time-to-pixel mapping; a
    // width of 0 uses the panel's own.
    void setCanvas(int left, int width);
    void setCursorTime(std::optional<int64_t> time);
    void setRange(std::optional<std::pair<int64_t, int64_t>> range);

    QCustomPlot* plot() const { return m_plot; }
    double bytesPerUnit() const { return m_unit; } // of the plot's y axis (MiB or GiB)
    QString legendText() const;                    // the legend's rich text, above the plot
    bool hasData() const;
    QString emptyMessage() const; // why there is no graph; empty when there is one
    // What a click at trace time `time` selects (away from a peak's marker and label): the innermost host op on
    // the thread of the last record at or before it, on the device whose curve is nearest `bytes` (any device when bytes is unset).
    uint32_t opAt(int64_t time, std::optional<double> bytes = {}) const;
    // The op a peak's marker or label names, where `pixel` is on or next to one (kNoIndex elsewhere).
    uint32_t peakOpAt(QPointF pixel) const;
    int64_t timeAtPixel(double x) const;
    double pixelOfTime(int64_t time) const;
    int drawnPoints() const { return m_drawnPoints; } // pixel columns handed to the plot in the last redraw
    MemoryBand* allocatedBand(size_t shown) const { return shown < m_allocated.size() ? m_allocated[shown] : nullptr; }
    // The headline of a suspected leak (memory::MemoryAnalysis::worstLeak), shown in the window's figures line.
    QString leakText(const tilescope::memory::SuspectedLeak& leak) const;
    // What hovering at a time shows: each device's allocated and reserved there.
    QString textAt(int64_t time) const;

signals:
    void opClicked(uint32_t event);
    void zoomRequested(double factor, int64_t anchorTime);
    void panRequested(double dxPixels);
    void rangeSelected(std::optional<std::pair<int64_t, int64_t>> range);
    void cursorMoved(std::optional<int64_t> time);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild(); // everything from the document and the timeline
    void redraw();
    void addCategories(double unit);
    void placePeakLabels(); // after each layout of the plot: above the marker, or beside it near the top
    void buildStatic();     // the items that do not change with the view: peak, OOMs, steps, categories
    std::shared_ptr<const TraceDocument> m_doc;
    std::shared_ptr<const tilescope::memory::MemoryTimeline> m_timeline;
    std::vector<tilescope::memory::MemorySeriesSummary> m_summaries; // per device, built with the document
    std::vector<uint32_t> m_shown;                                   // devices drawn (with allocations)
    std::vector<MemoryBand*> m_allocated, m_reserved;                // per shown device (reserved nullptr without totals)
    std::vector<tilescope::memory::PixelSummary> m_columns;          // reused from frame to frame
    std::vector<QCPItemText*> m_peakLabels;
    // Each peak's marker and label, and the op it names: a click on either selects that op (the time under a
    // pixel can fall past the op's end, in the op around it).
    struct PeakMark
    {
        QCPItemTracer* marker;
        QCPItemText* label;
        uint32_t op;
    };
    std::vector<PeakMark> m_peakMarks;
    QCustomPlot* m_plot;
    QStackedWidget* m_stack;
    QLabel* m_empty;
    QLabel* m_legend; // the plottables' names and colours, above the plot
    QCPItemLine* m_cursor = nullptr;
    int64_t m_viewStart = 0, m_viewEnd = 1;
    int m_canvasLeft = 0;
    int m_canvasWidth = 0;
    int m_drawnPoints = 0;
    double m_unit = 1; // bytes per y-axis unit
    std::optional<std::pair<int64_t, int64_t>> m_range;
    std::optional<double> m_pressX;
    double m_lastDragX = 0;
    bool m_shiftDrag = false, m_dragged = false;
};
