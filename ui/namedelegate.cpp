// SPDX-License-Identifier: MIT
#include "namedelegate.h"

#include "trace/abbreviatename.h"

#include <QApplication>
#include <QFontMetrics>
#include <QSet>
#include <QStyle>

#include <optional>

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

QStringList NameDelegate::fitApart(const QStringList& names, const QFontMetrics& metrics, int width)
{
    QStringList shown;
    shown.reserve(names.size());
    for (const QString& name : names)
        shown.append(fit(name, metrics, width));
    // Groups that read the same are told apart; the texts one group gets may be another's, so the rows are
    // grouped again, a few times at most.
    for (int round = 0; round < 4; ++round) {
        QHash<QString, QSet<QString>> namesShownAs;
        for (qsizetype i = 0; i < names.size(); ++i)
            namesShownAs[shown[i]].insert(names[i]);
        bool any = false;
        for (auto group = namesShownAs.cbegin(); group != namesShownAs.cend(); ++group)
            if (group->size() >= 2) // one name on several rows (a CPU op and its CUDA annotation) is one name
                any = tellApart(names, shown, *group, metrics, width) || any;
        if (!any)
            break;
    }
    return shown;
}

// Gives the rows of `group`'s names texts that all differ, if one of their forms, cut at its end or from
// where they differ, gives them; true when it did.
bool NameDelegate::tellApart(const QStringList& names, QStringList& shown, const QSet<QString>& group, const QFontMetrics& metrics,
                             int width)
{
    // The differing arguments come early in the two examples that matter most (implicit_convolve_sgemm<float,
    // float, 1024, ...> against <float, float, 128, ...>; vectorized_elementwise_kernel<4, AddFunctor<float>,
    // ...> against <4, FillFunctor<float>, ...>): each name's forms are tried from the shortest up with their
    // ends cut, until the group's texts all differ.
    const QStringList members(group.cbegin(), group.cend());
    std::vector<std::vector<QString>> longestFirst;
    size_t levels = 0;
    for (const QString& name : members) {
        std::vector<QString> forms{name};
        for (const std::string& form : tilescope::trace::nameAbbreviations(name.toStdString()))
            forms.push_back(QString::fromStdString(form));
        levels = std::max(levels, forms.size());
        longestFirst.push_back(std::move(forms));
    }
    // At each level the forms' ends are cut; where the group's texts still read the same (the arguments
    // differ past the width), the start of the arguments the forms share is skipped: "implicit_convolve_
    // sgemm<…, 1024, 6, 7, ..." against "<…, 128, 6, 7, ...".
    const auto fromDifference = [](const QString& form, qsizetype common) -> QString {
        const qsizetype open = form.indexOf(QLatin1Char('<'));
        qsizetype cut = common;
        while (cut > 0 && form[cut - 1] != QLatin1Char('<')
               && !(form[cut - 1] == QLatin1Char(' ') && cut >= 2 && form[cut - 2] == QLatin1Char(',')))
            --cut;
        if (open < 0 || cut <= open + 1)
            return form;
        return form.left(open + 1) + QStringLiteral("\u2026, ") + form.mid(cut);
    };
    const auto apartAt = [&](size_t level, bool skipShared) -> std::optional<QHash<QString, QString>> {
        std::vector<QString> forms;
        for (const std::vector<QString>& all : longestFirst)
            forms.push_back(all[all.size() - std::min(level, all.size())]);
        qsizetype common = 0;
        if (skipShared) {
            common = forms.front().size();
            for (const QString& form : forms) {
                qsizetype k = 0;
                while (k < common && k < form.size() && form[k] == forms.front()[k])
                    ++k;
                common = k;
            }
        }
        QHash<QString, QString> apart; // member -> text
        QSet<QString> texts;
        for (qsizetype m = 0; m < members.size(); ++m) {
            const QString& form = forms[static_cast<size_t>(m)];
            const QString text = metrics.elidedText(skipShared ? fromDifference(form, common) : form, Qt::ElideRight, width);
            apart.insert(members[m], text);
            texts.insert(text);
        }
        if (texts.size() != members.size())
            return std::nullopt;
        return apart;
    };
    for (size_t level = 1; level <= levels; ++level) {
        std::optional<QHash<QString, QString>> apart = apartAt(level, false);
        if (!apart)
            apart = apartAt(level, true);
        if (apart) {
            bool changed = false;
            for (qsizetype i = 0; i < names.size(); ++i)
                if (auto it = apart->constFind(names[i]); it != apart->cend() && shown[i] != *it) {
                    shown[i] = *it;
                    changed = true;
                }
            return changed;
        }
    }
    return false;
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
