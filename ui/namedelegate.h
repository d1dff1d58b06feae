// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QStyledItemDelegate>

// Draws a long kernel name in the shortest form that still tells it apart (trace::nameAbbreviations),
// the first that fits the column; past the last form the middle is elided. Names that would still read the
// same as another row's (kernels that differ in a template argument the short forms drop) keep the start of
// a longer form instead, where their arguments differ (in tables of up to kMostRowsToTellApart rows). The
// model's tooltip holds the full name.
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
    static bool tellApart(const QStringList& names, QStringList& shown, const QSet<QString>& group, const QFontMetrics& metrics, int width);
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
