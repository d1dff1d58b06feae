// SPDX-License-Identifier: MIT
#include "memoryeventsmodel.h"

#include "memory/memoryanalysis.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "tracedocument.h"

#include <QBrush>
#include <QColor>

using namespace tilescope;

namespace {

QString bytesText(int64_t bytes) { return QString::fromStdString(stats::formatBytes(bytes)); }

QString opName(const TraceDocument& doc, uint32_t event)
{
    if (event == trace::kNoIndex)
        return QObject::tr("(no op)");
    const std::string_view name = doc.trace->name(doc.trace->events[event]);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

} // namespace

MemoryBlocksModel::MemoryBlocksModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void MemoryBlocksModel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    beginResetModel();
    m_doc = std::move(document);
    endResetModel();
}

int MemoryBlocksModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_doc ? 0 : int(m_doc->memory.blocks.size());
}

int MemoryBlocksModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant MemoryBlocksModel::data(const QModelIndex& index, int role) const
{
    if (!m_doc || !index.isValid() || index.row() >= rowCount())
        return {};
    const memory::MemoryBlock& b = m_doc->memory.blocks[size_t(index.row())];
    const int64_t origin = m_doc->trace->originTime();
    auto timeText = [&](int64_t t) {
        return t == trace::kNoId ? QString() : QString::fromStdString(stats::formatMicroseconds(t - origin)) + QStringLiteral(" µs");
    };
    if (role == EventRole)
        return b.allocOp != trace::kNoIndex ? qint64(b.allocOp) : b.freeOp != trace::kNoIndex ? qint64(b.freeOp) : qint64(-1);
    if (role == Qt::ForegroundRole && b.liveAtEnd && index.column() == FreedColumn)
        return QBrush(QColor(0xc0, 0x39, 0x2b));
    if (role == Qt::TextAlignmentRole && index.column() != OpColumn && index.column() != FreedByColumn && index.column() != DeviceColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == SortRole) {
        switch (index.column()) {
        case DeviceColumn: return b.device;
        case SizeColumn: return qint64(b.bytes);
        case AllocatedColumn: return qint64(b.allocTime == trace::kNoId ? std::numeric_limits<int64_t>::min() : b.allocTime);
        case FreedColumn: return qint64(b.freeTime == trace::kNoId ? std::numeric_limits<int64_t>::max() : b.freeTime);
        case LifetimeColumn: return qint64(b.lifetime() == trace::kNoId ? std::numeric_limits<int64_t>::max() : b.lifetime());
        case OpColumn: return opName(*m_doc, b.allocOp);
        case FreedByColumn: return opName(*m_doc, b.freeOp);
        case AddressColumn: return qint64(b.address);
        default: return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case DeviceColumn: return QString::fromStdString(m_doc->memory.devices[b.device].name);
    case SizeColumn: return role == Qt::ToolTipRole ? QStringLiteral("%1 bytes").arg(b.bytes) : bytesText(b.bytes);
    case AllocatedColumn: return b.allocTime == trace::kNoId ? tr("before the trace") : timeText(b.allocTime);
    case FreedColumn: return b.freeTime != trace::kNoId ? timeText(b.freeTime) : b.liveAtEnd ? tr("live at end") : tr("unknown");
    case LifetimeColumn: return b.lifetime() == trace::kNoId ? QString() : QString::fromStdString(stats::formatDuration(b.lifetime()));
    case OpColumn: return b.allocRecord == trace::kNoIndex ? QString() : opName(*m_doc, b.allocOp);
    case FreedByColumn: return b.freeRecord == trace::kNoIndex ? QString() : opName(*m_doc, b.freeOp);
    case AddressColumn: return QString(QStringLiteral("0x") + QString::number(quint64(b.address), 16));
    default: return {};
    }
}

QVariant MemoryBlocksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = {"Device", "Size", "Allocated at", "Freed at", "Lifetime", "Allocated by", "Freed by", "Address"};
    return section >= 0 && section < NUM_COLUMNS ? tr(names[section]) : QVariant();
}

MemoryOpsModel::MemoryOpsModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void MemoryOpsModel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    beginResetModel();
    m_doc = std::move(document);
    endResetModel();
}

int MemoryOpsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !m_doc ? 0 : int(m_doc->memory.ops.size()); }

int MemoryOpsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant MemoryOpsModel::data(const QModelIndex& index, int role) const
{
    if (!m_doc || !index.isValid() || index.row() >= rowCount())
        return {};
    const memory::OpMemory& o = m_doc->memory.ops[size_t(index.row())];
    const QString name = o.name == trace::kNoIndex ? tr("(outside any op)") : QString::fromUtf8(m_doc->trace->strings.view(o.name));
    if (role == NameRole)
        return o.name == trace::kNoIndex ? QString() : name;
    if (role == Qt::TextAlignmentRole && index.column() != OpColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    const bool sort = role == SortRole;
    if (!sort && role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case OpColumn: return name;
    case CallsColumn: return sort ? QVariant(quint64(o.calls)) : QVariant(QString::number(o.calls));
    case AllocsColumn: return sort ? QVariant(quint64(o.allocs)) : QVariant(QString::number(o.allocs));
    case AllocBytesColumn: return sort ? QVariant(qint64(o.allocBytes)) : QVariant(bytesText(o.allocBytes));
    case FreesColumn: return sort ? QVariant(quint64(o.frees)) : QVariant(QString::number(o.frees));
    case FreeBytesColumn: return sort ? QVariant(qint64(o.freeBytes)) : QVariant(bytesText(o.freeBytes));
    case IncreaseColumn: return sort ? QVariant(qint64(o.sizeIncrease())) : QVariant(bytesText(o.sizeIncrease()));
    case LiveAtPeakColumn: return sort ? QVariant(qint64(o.liveAtPeakBytes)) : QVariant(bytesText(o.liveAtPeakBytes));
    default: return {};
    }
}

QVariant MemoryOpsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char* const names[] = {"Op", "Calls", "Allocations", "Allocated", "Frees", "Freed", "Size increase", "Live at peak"};
    return section >= 0 && section < NUM_COLUMNS ? tr(names[section]) : QVariant();
}
