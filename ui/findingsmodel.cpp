// SPDX-License-Identifier: MIT
#include "findingsmodel.h"

using namespace tilescope;

FindingsModel::FindingsModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void FindingsModel::setFindings(std::shared_ptr<const std::vector<findings::Finding>> findings)
{
    beginResetModel();
    m_findings = std::move(findings);
    endResetModel();
}

const std::vector<findings::Finding>& FindingsModel::findings() const
{
    static const std::vector<findings::Finding> none;
    return m_findings ? *m_findings : none;
}

const findings::Finding* FindingsModel::finding(int row) const
{
    const auto& list = findings();
    return row >= 0 && size_t(row) < list.size() ? &list[size_t(row)] : nullptr;
}

QColor FindingsModel::strengthColor(findings::Strength strength)
{
    switch (strength) {
    case findings::Strength::Strong: return QColor(0xd9, 0x48, 0x0f);
    case findings::Strength::Weak: return QColor(0xe8, 0x9c, 0x00);
    case findings::Strength::Provisional: break;
    }
    return QColor(0x86, 0x8e, 0x96);
}

QString FindingsModel::strengthToolTip(findings::Strength strength)
{
    switch (strength) {
    case findings::Strength::Strong: return tr("strong: the numbers leave no other reading");
    case findings::Strength::Weak: return tr("weak: likely, one alternative remains");
    case findings::Strength::Provisional: break;
    }
    return tr("provisional: a hint; the evidence names the measurement that would settle it");
}

int FindingsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(findings().size()); }

int FindingsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    const findings::Finding* f = index.isValid() ? finding(index.row()) : nullptr;
    if (!f)
        return {};
    if (role == FindingRole)
        return index.row();
    switch (index.column()) {
    case StrengthColumn:
        if (role == Qt::DisplayRole)
            return QString::fromUtf8(findings::strengthName(f->strength));
        if (role == Qt::DecorationRole)
            return strengthColor(f->strength);
        if (role == Qt::ToolTipRole)
            return strengthToolTip(f->strength);
        break;
    case IdColumn:
        if (role == Qt::DisplayRole)
            return QString::fromStdString(f->id);
        break;
    case TitleColumn:
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
            return QString::fromStdString(f->title);
        break;
    default: break;
    }
    return {};
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StrengthColumn: return tr("Strength");
    case IdColumn: return tr("Id");
    case TitleColumn: return tr("Finding");
    default: return {};
    }
}
