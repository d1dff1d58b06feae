// SPDX-License-Identifier: MIT
#pragma once

// Include first in a source file (before any Qt header): QCustomPlot's header needs the Qt defines the ui
// library turns off (see memorypanel.cpp).
#undef QT_NO_FOREACH
#undef QT_NO_CAST_TO_ASCII
#include <qcustomplot.h>

#include <vector>

// One device's memory over the view as QCustomPlot draws it: per pixel column the range of a step function
// (min to max, as memory::PixelSummary gives it) as a band, the area under its minimum lighter, and its
// maximum as the outline. Painted column by column with rectangles and short lines, in time proportional to
// the width: a polyline through every column's min and max is as long as the plot is high times its width,
// and QPainter stroking and filling that took 70-200 ms a frame on the 1 GB trace.
class MemoryBand : public QCPAbstractPlottable
{
public:
    struct Column
    {
        double key, nextKey; // the column's time span, in plot coordinates
        double min, max;     // in value-axis units
    };
    explicit MemoryBand(QCPAxis* keyAxis, QCPAxis* valueAxis);
    void setColumns(std::vector<Column> columns);
    const std::vector<Column>& columns() const { return m_columns; }
    double highest() const; // the largest max drawn

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    std::vector<Column> m_columns;
};
