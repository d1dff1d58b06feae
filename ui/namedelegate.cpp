// SPDX-License-Identifier: MIT
#include "namedelegate.h"

#include "trace/namefit.h"

#include <QApplication>
#include <QFontMetrics>
#include <QStyle>

namespace {

// The GUI's columns measure and cut in a font's pixels.
class PixelRuler final : public tilescope::trace::TextRuler
{
public:
    explicit PixelRuler(const QFontMetrics& metrics)
        : m_metrics(metrics)
    { }
    double width(std::string_view text) const override { return m_metrics.horizontalAdvance(qText(text)); }
    std::string cutEnd(std::string_view text, double width) const override { return cut(text, Qt::ElideRight, width); }
    std::string cutMiddle(std::string_view text, double width) const override { return cut(text, Qt::ElideMiddle, width); }

private:
    static QString qText(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }
    std::string cut(std::string_view text, Qt::TextElideMode mode, double width) const
    {
        return m_metrics.elidedText(qText(text), mode, static_cast<int>(width)).toStdString();
    }
    const QFontMetrics& m_metrics;
};

} // namespace

QString NameDelegate::fit(const QString& name, const QFontMetrics& metrics, int width)
{
    if (metrics.horizontalAdvance(name) <= width) // most names: no conversion
        return name;
    return QString::fromStdString(tilescope::trace::fitName(name.toStdString(), width, PixelRuler(metrics)));
}

QStringList NameDelegate::fitApart(const QStringList& names, const QFontMetrics& metrics, int width)
{
    std::vector<std::string> utf8;
    utf8.reserve(static_cast<size_t>(names.size()));
    for (const QString& name : names)
        utf8.push_back(name.toStdString());
    QStringList shown;
    shown.reserve(names.size());
    for (const std::string& text : tilescope::trace::fitNamesApart(utf8, width, PixelRuler(metrics)))
        shown.append(QString::fromStdString(text));
    return shown;
}

const QString& NameDelegate::shownFor(const QString& name, const QModelIndex& index, const QFontMetrics& metrics, const QFont& font,
                                      int width) const
{
    const QAbstractItemModel* model = index.model();
    if (m_fitted.model != model) {
        if (m_fitted.model)
            disconnect(m_fitted.model, nullptr, this, nullptr);
        const auto forget = [this] { m_fitted.width = -1; };
        connect(model, &QAbstractItemModel::modelReset, this, forget);
        connect(model, &QAbstractItemModel::layoutChanged, this, forget);
        connect(model, &QAbstractItemModel::rowsInserted, this, forget);
        connect(model, &QAbstractItemModel::rowsRemoved, this, forget);
        connect(model, &QAbstractItemModel::dataChanged, this, forget);
        m_fitted.model = model;
        m_fitted.width = -1;
    }
    if (m_fitted.width != width || m_fitted.column != index.column() || m_fitted.font != font || !m_fitted.shown.contains(name)) {
        // Fitting every row costs ~35 us a name, again at each width while a column is dragged: past
        // kMostRowsToTellApart (a table grouped by input shape can have thousands) each row is fitted alone.
        if (model->rowCount(index.parent()) > kMostRowsToTellApart) {
            m_fitted.width = -1;
            m_fitted.shown.clear();
            return *m_fitted.shown.insert(name, fit(name, metrics, width));
        }
        QStringList names;
        for (int r = 0; r < model->rowCount(index.parent()); ++r)
            names.append(model->index(r, index.column(), index.parent()).data().toString());
        const QStringList shown = fitApart(names, metrics, width);
        m_fitted.shown.clear();
        for (qsizetype i = 0; i < names.size(); ++i)
            m_fitted.shown.insert(names[i], shown[i]);
        if (!m_fitted.shown.contains(name)) // not a row's text (a caller's own): fitted alone
            m_fitted.shown.insert(name, fit(name, metrics, width));
        m_fitted.width = width;
        m_fitted.column = index.column();
        m_fitted.font = font;
    }
    return *m_fitted.shown.constFind(name);
}

void NameDelegate::initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (option->rect.width() <= 0)
        return; // sizeHint asks with no cell yet: the full name's width
    const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
    const int margin = 2 * (style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option->widget) + 1);
    option->text = shownFor(option->text, index, option->fontMetrics, option->font, option->rect.width() - margin);
    option->textElideMode = Qt::ElideNone;
}
