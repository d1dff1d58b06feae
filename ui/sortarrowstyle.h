// SPDX-License-Identifier: MIT
#pragma once

#include <QProxyStyle>

// The application's style with the sort arrow of table headers pointing the way the values go: down for
// largest first, as Perfetto, Nsight Systems and the desktops' file managers draw it. Qt's headers ask the
// style for an up arrow when the order is descending (an old Windows convention), so a table sorted by time,
// largest first, read as sorted smallest first.
class SortArrowStyle : public QProxyStyle
{
public:
    using QProxyStyle::QProxyStyle;
    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget = nullptr) const override;
};
