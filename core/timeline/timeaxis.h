// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

namespace tilescope::timeline {

// The timeline's mapping between trace time (ns) and pixels: the canvas starts at x = left (after the lane
// labels) and is `width` pixels wide; the view shows [viewStart, viewEnd). Zoom and pan keep the view
// inside the extent (never zoomed out past all of it, never panned before its start), and a new canvas
// width keeps the visible time range, so a trace fitted before the window is laid out stays fitted.
class TimeAxis
{
public:
    void setCanvas(int left, int width);
    void setExtent(int64_t first, int64_t last);
    void zoomToRange(int64_t start, int64_t end); // ignored when end <= start
    void zoomBy(double factor, double anchorX);   // the time under anchorX stays there
    void panTo(int64_t viewStart);
    void panByPixels(double dx);

    int64_t viewStart() const { return m_viewStart; }
    int64_t viewEnd() const { return m_viewStart + static_cast<int64_t>(m_nsPerPixel * m_width); }
    double nsPerPixel() const { return m_nsPerPixel; }
    int left() const { return m_left; }
    int width() const { return m_width; }
    double xOf(int64_t t) const { return double(t - m_viewStart) / m_nsPerPixel + m_left; }
    int64_t timeAt(double x) const { return m_viewStart + static_cast<int64_t>((x - m_left) * m_nsPerPixel); }
    double pixelsOf(int64_t duration) const { return double(duration) / m_nsPerPixel; }

    static constexpr double kMinNsPerPixel = 0.01; // deepest zoom: 100 pixels per ns

private:
    void clamp();
    int m_left = 0;
    int m_width = 1;
    int64_t m_first = 0, m_last = 1000;
    int64_t m_viewStart = 0;
    double m_nsPerPixel = 1;
};

} // namespace tilescope::timeline
