// SPDX-License-Identifier: MIT
#include "snapshothistorymodel.h"

#include "memory/allocatorsnapshot.h"
#include "stats/bytestext.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>

using namespace tilescope;

SnapshotHistoryModel::SnapshotHistoryModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SnapshotHistoryModel::setSnapshot(std::shared_ptr<const memory::AllocatorSnapshot> snapshot)
{
    beginResetModel();
    m_snapshot = std::move(snapshot);
    m_rows.clear();
    if (m_snapshot)
        for (uint32_t d = 0; d < m_snapshot->deviceTraces.size(); ++d)
            for (uint32_t e = 0; e < m_snapshot->deviceTraces[d].size(); ++e)
                m_rows.emplace_back(d, e);
    endResetModel();
}

int SnapshotHistoryModel::rowOf(int device, size_t entry) const
{
    const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), std::make_pair(uint32_t(device), uint32_t(entry)));
    return it != m_rows.end() && it->first == uint32_t(device) && it->second == entry ? int(it - m_rows.begin()) : -1;
}

int SnapshotHistoryModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int SnapshotHistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant SnapshotHistoryModel::data(const QModelIndex& index, int role) const
{
    if (!m_snapshot || !index.isValid() || index.row() >= rowCount())
        return {};
    const auto [device, entryIndex] = m_rows[size_t(index.row())];
    const memory::TraceEntry& e = m_snapshot->deviceTraces[device][entryIndex];
    if (role == EntryRole)
        return qint64((quint64(device) << 32) | entryIndex);
    if (role == Qt::ForegroundRole && e.action == memory::TraceAction::Oom)
        return QBrush(Qt::red);
    const bool sort = role == SortRole;
    if (!sort && role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case IndexColumn: return sort ? QVariant(index.row()) : QVariant(QStringLiteral("cuda:%1 #%2").arg(device).arg(entryIndex));
    case ActionColumn: return QString::fromUtf8(m_snapshot->actionName(e).data(), qsizetype(m_snapshot->actionName(e).size()));
    case SizeColumn: return sort ? QVariant(qint64(e.size)) : QVariant(QString::fromStdString(stats::formatBytes(e.size)));
    case AddressColumn:
        if (e.action == memory::TraceAction::Oom)
            return sort ? QVariant(qint64(e.deviceFree))
                        : QVariant(tr("%1 free on the device").arg(QString::fromStdString(stats::formatBytes(e.deviceFree))));
        return sort ? QVariant(quint64(e.address)) : QVariant(QString(QStringLiteral("0x") + QString::number(e.address, 16)));
    case StreamColumn: return sort ? QVariant(qint64(e.stream)) : QVariant(QString::number(e.stream));
    case TimeColumn:
        if (e.timeUs == memory::kNoTimeUs)
            return {};
        return sort ? QVariant(qint64(e.timeUs))
                    : QVariant(QDateTime::fromMSecsSinceEpoch(e.timeUs / 1000).toString(QStringLiteral("HH:mm:ss.zzz"))
                               + QStringLiteral("%1").arg(e.timeUs % 1000, 3, 10, QLatin1Char('0')));
    case FrameColumn:
        if (const auto user = memory::userFrame(*m_snapshot, e.stack)) {
            const memory::StackFrame& f = m_snapshot->frame(*user);
            return QStringLiteral("%1 (%2:%3)").arg(QString::fromStdString(f.name), QString::fromStdString(f.filename)).arg(f.line);
        }
        return QString();
    default: return {};
    }
}

QVariant SnapshotHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = {"Entry", "Action", "Size", "Address", "Stream", "Time", "User frame"};
    return section >= 0 && section < NUM_COLUMNS ? tr(names[section]) : QVariant();
}
