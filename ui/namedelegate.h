// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>

// Draws a long kernel name in the shortest form that still tells it apart (trace::nameAbbreviations),
// the first that fits the column; past the last form the middle is elided. The model's tooltip holds the
// full name.
class NameDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    // The text shown for `name` in `width` pixels with `metrics`.
    static QString fit(const QString& name, const QFontMetrics& metrics, int width);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};
