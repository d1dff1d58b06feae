// SPDX-License-Identifier: MIT
#include "namedelegate.h"

#include "trace/abbreviatename.h"

#include <QApplication>
#include <QFontMetrics>
#include <QStyle>

QString NameDelegate::fit(const QString& name, const QFontMetrics& metrics, int width)
{
    if (metrics.horizontalAdvance(name) <= width)
        return name;
    const std::vector<std::string> forms = tilescope::trace::nameAbbreviations(name.toStdString());
    if (forms.empty())
        return metrics.elidedText(name, Qt::ElideMiddle, width);
    // Every form but the last keeps the outer template arguments, which tell similar kernels apart.
    for (size_t i = 0; i + 1 < forms.size(); ++i) {
        const QString form = QString::fromStdString(forms[i]);
        if (metrics.horizontalAdvance(form) <= width)
            return form;
    }
    // Too narrow for those: cut the middle of the shortest one that still has them (its start is the
    // kernel's own name, its end the last arguments), unless only the bare name fits.
    const QString withArguments = QString::fromStdString(forms.size() >= 2 ? forms[forms.size() - 2] : forms.back());
    const QString bare = QString::fromStdString(forms.back());
    if (metrics.horizontalAdvance(bare) < width)
        return metrics.elidedText(withArguments, Qt::ElideMiddle, width);
    return metrics.elidedText(bare, Qt::ElideMiddle, width);
}

void NameDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (option->rect.width() <= 0)
        return; // sizeHint asks with no cell yet: the full name's width
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    const int margin = 2 * (style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1);
    option->text = fit(option->text, option->fontMetrics, option->rect.width() - margin);
    option->textElideMode = Qt::ElideNone;
}
