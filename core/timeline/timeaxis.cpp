// SPDX-License-Identifier: MIT
#include "timeline/timeaxis.h"

#include <algorithm>

namespace tilescope::timeline {

void TimeAxis::setCanvas(int left, int width)
{
    width = std::max(1, width);
    m_nsPerPixel *= double(m_width) / width; // the same time range across the new width
    m_left = left;
    m_width = width;
    clamp();
}

void TimeAxis::setExtent(int64_t first, int64_t last)
{
    m_first = first;
    m_last = std::max(last, first + 1);
    clamp();
}

void TimeAxis::zoomToRange(int64_t start, int64_t end)
{
    if (end <= start)
        return;
    m_viewStart = start;
    m_nsPerPixel = double(end - start) / m_width;
    clamp();
}

void TimeAxis::zoomBy(double factor, double anchorX)
{
    const int64_t anchor = timeAt(anchorX);
    m_nsPerPixel = std::max(m_nsPerPixel * factor, kMinNsPerPixel);
    m_viewStart = anchor - static_cast<int64_t>((anchorX - m_left) * m_nsPerPixel);
    clamp();
}

void TimeAxis::panTo(int64_t viewStart)
{
    m_viewStart = viewStart;
    clamp();
}

void TimeAxis::panByPixels(double dx) { panTo(m_viewStart + static_cast<int64_t>(dx * m_nsPerPixel)); }

void TimeAxis::clamp()
{
    m_nsPerPixel = std::clamp(m_nsPerPixel, kMinNsPerPixel, std::max(kMinNsPerPixel, double(m_last - m_first) / m_width));
    const auto visible = static_cast<int64_t>(m_nsPerPixel * m_width);
    m_viewStart = std::clamp(m_viewStart, m_first, std::max(m_first, m_last - visible));
}

} // namespace tilescope::timeline
