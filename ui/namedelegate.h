// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QPointer>
#include <QStyledItemDelegate>

// Draws a long kernel name as trace::fitNamesApart fits it to the column, in the font's pixels: the
// shortest form that fits, and where rows would read the same, the forms that tell them apart (in tables of
// up to kMostRowsToTellApart rows; past that each name is fitted alone, trace::fitName). The model's tooltip
// holds the full name.
class NameDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    // The text shown for `name` in `width` pixels with `metrics`, on its own.
    static QString fit(const QString& name, const QFontMetrics& metrics, int width);
    // The texts shown for `names`, rows of one column: fit(), except where two different names would read
    // the same.
    static QStringList fitApart(const QStringList& names, const QFontMetrics& metrics, int width);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

public:
    static constexpr int kMostRowsToTellApart = 1000;

private:
    // fitApart over the column's rows, made again when the width, the font or the rows change.
    struct Fitted
    {
        QPointer<const QAbstractItemModel> model;
        int column = -1, width = -1;
        QFont font;
        QHash<QString, QString> shown; // full name -> text
    };
    mutable Fitted m_fitted;
    const QString& shownFor(const QString& name, const QModelIndex& index, const QFontMetrics& metrics, const QFont& font, int width) const;
};
