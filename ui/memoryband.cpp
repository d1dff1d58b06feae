// SPDX-License-Identifier: MIT
#include "memoryband.h"

#include <algorithm>
#include <cmath>

MemoryBand::MemoryBand(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setAntialiased(false);
    setAntialiasedFill(false);
}

void MemoryBand::setColumns(std::vector<Column> columns) { m_columns = std::move(columns); }

double MemoryBand::highest() const
{
    double top = 0;
    for (const Column& c : m_columns)
        top = std::max(top, c.max);
    return top;
}

double MemoryBand::selectTest(const QPointF&, bool, QVariant*) const { return -1; } // clicks are the panel's

QCPRange MemoryBand::getKeyRange(bool& foundRange, QCP::SignDomain) const
{
    foundRange = !m_columns.empty();
    return foundRange ? QCPRange(m_columns.front().key, m_columns.back().nextKey) : QCPRange();
}

QCPRange MemoryBand::getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const
{
    foundRange = !m_columns.empty();
    return foundRange ? QCPRange(0, highest()) : QCPRange();
}

void MemoryBand::draw(QCPPainter* painter)
{
    QCPAxis* keys = keyAxis();
    QCPAxis* values = valueAxis();
    if (!keys || !values || m_columns.empty())
        return;
    const double zero = values->coordToPixel(0);
    const QColor band = brush().color();
    QColor under = band;
    under.setAlphaF(band.alphaF() * 0.45);
    const QColor line = pen().color();
    const bool filled = brush().style() != Qt::NoBrush; // reserved: the outline only
    painter->setPen(Qt::NoPen);
    double previousTop = NAN;
    std::vector<QLineF> outline;
    outline.reserve(m_columns.size() * 2);
    for (const Column& c : m_columns) {
        const double x0 = std::floor(keys->coordToPixel(c.key));
        const double x1 = std::max(x0 + 1, std::floor(keys->coordToPixel(c.nextKey)));
        const double top = std::round(values->coordToPixel(c.max));
        const double bottom = std::round(values->coordToPixel(c.min));
        if (filled)
            painter->fillRect(QRectF(x0, bottom, x1 - x0, zero - bottom), under);
        if (filled && bottom > top)
            painter->fillRect(QRectF(x0, top, x1 - x0, bottom - top), band);
        // The outline: the maximum across the column, joined to the previous column's by a vertical step.
        if (!std::isnan(previousTop) && previousTop != top)
            outline.emplace_back(x0, previousTop, x0, top);
        outline.emplace_back(x0, top, x1, top);
        previousTop = top;
    }
    painter->setPen(QPen(line, 1));
    painter->drawLines(outline.data(), int(outline.size()));
}

void MemoryBand::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const
{
    if (brush().style() != Qt::NoBrush)
        painter->fillRect(rect.adjusted(0, rect.height() / 2, 0, 0), brush().color());
    painter->setPen(QPen(pen().color(), 1.5));
    painter->drawLine(QLineF(rect.left(), rect.center().y(), rect.right(), rect.center().y()));
}
