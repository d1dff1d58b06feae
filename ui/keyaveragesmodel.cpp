// SPDX-License-Identifier: MIT
#include "keyaveragesmodel.h"

#include "report/summaryreport.h"
#include "stats/torchtable.h"

using namespace tilescope;

KeyAveragesModel::KeyAveragesModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void KeyAveragesModel::setAverages(std::shared_ptr<const stats::KeyAverages> averages)
{
    beginResetModel();
    m_averages = std::move(averages);
    m_flopsUnit = m_averages ? stats::flopsUnitOf(*m_averages) : stats::FlopsUnit{};
    m_selfCpuTotal = m_selfDeviceTotal = 0;
    if (m_averages) {
        const std::vector<size_t> order = stats::sortedRowOrder(*m_averages, stats::defaultSortKey(*m_averages));
        m_selfCpuTotal = m_averages->selfCpuTimeTotal(order);
        m_selfDeviceTotal = m_averages->selfDeviceTimeTotal(order);
    }
    endResetModel();
}

const stats::KeyAverage* KeyAveragesModel::row(int r) const
{
    if (!m_averages || r < 0 || r >= int(m_averages->rows.size()))
        return nullptr;
    return &m_averages->rows[size_t(r)];
}

int KeyAveragesModel::findRow(std::string_view key, stats::DeviceType device) const
{
    if (!m_averages)
        return -1;
    for (size_t i = 0; i < m_averages->rows.size(); ++i)
        if (m_averages->rows[i].key == key && m_averages->rows[i].deviceType == device)
            return int(i);
    return -1;
}

int KeyAveragesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_averages ? 0 : int(m_averages->rows.size());
}

int KeyAveragesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant KeyAveragesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[NUM_COLUMNS] = {"Name",         "Device",    "Self CPU %",    "Self CPU",   "CPU total %",   "CPU total",
                                             "CPU time avg", "Self CUDA", "Self CUDA %",   "CUDA total", "CUDA time avg", "CPU Mem",
                                             "Self CPU Mem", "CUDA Mem",  "Self CUDA Mem", "# of Calls", "FLOPs",         "Input Shapes"};
    if (section == FlopsColumn && !m_flopsUnit.header.empty())
        return QString::fromStdString(m_flopsUnit.header); // torch's unit: "Total TFLOPs"
    return section >= 0 && section < NUM_COLUMNS ? QString::fromLatin1(names[section]) : QVariant();
}

QVariant KeyAveragesModel::data(const QModelIndex& index, int role) const
{
    const stats::KeyAverage* r = index.isValid() ? row(index.row()) : nullptr;
    if (!r)
        return {};
    if (role == RowIndexRole)
        return index.row();
    if (role == Qt::TextAlignmentRole)
        return index.column() == NameColumn || index.column() == ShapesColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const bool sort = role == SortRole;
    if (!sort && role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    auto time = [&](double us) -> QVariant { return sort ? QVariant(us) : QVariant(QString::fromStdString(stats::formatTorchTime(us))); };
    auto memory = [&](int64_t b) -> QVariant {
        return sort ? QVariant(qint64(b)) : QVariant(QString::fromStdString(stats::formatTorchMemory(b)));
    };
    // torch's percentages: of the table's self CPU total (CPU total % too) and of its self CUDA total.
    auto percent = [&](double us, double total) -> QVariant {
        return sort ? QVariant(total > 0 ? us / total : 0.0) : QVariant(QString::fromStdString(stats::formatTorchPercent(us, total)));
    };
    switch (index.column()) {
    case NameColumn: return QString::fromStdString(r->key);
    case SelfCpuPercentColumn: return percent(r->selfCpuTimeTotal, m_selfCpuTotal);
    case CpuTotalPercentColumn: return percent(r->cpuTimeTotal, m_selfCpuTotal);
    case SelfDevicePercentColumn: return percent(r->selfDeviceTimeTotal, m_selfDeviceTotal);
    case DeviceColumn:
        return QString(QString::fromLatin1(r->deviceType == stats::DeviceType::CPU ? "CPU" : "CUDA")
                       + (r->isUserAnnotation ? QStringLiteral(" (annotation)") : QString()));
    case SelfCpuColumn: return time(r->selfCpuTimeTotal);
    case CpuTotalColumn: return time(r->cpuTimeTotal);
    case CpuAvgColumn: return time(r->cpuTimeAverage());
    case SelfDeviceColumn: return time(r->selfDeviceTimeTotal);
    case DeviceTotalColumn: return time(r->deviceTimeTotal);
    case DeviceAvgColumn: return time(r->deviceTimeAverage());
    case CpuMemColumn: return memory(r->cpuMemoryUsage);
    case SelfCpuMemColumn: return memory(r->selfCpuMemoryUsage);
    case DeviceMemColumn: return memory(r->deviceMemoryUsage);
    case SelfDeviceMemColumn: return memory(r->selfDeviceMemoryUsage);
    case CountColumn: return qint64(r->count);
    case FlopsColumn:
        return sort ? QVariant(double(r->flops)) : QVariant(QString::fromStdString(stats::formatTorchFlops(r->flops, m_flopsUnit)));
    case ShapesColumn: return QString::fromStdString(r->inputShapes);
    }
    return {};
}

QString KeyAveragesModel::toCsv(const QList<int>& rows) const
{
    if (!m_averages)
        return QString::fromStdString(report::keyAveragesCsv(stats::KeyAverages{}, {}));
    std::vector<size_t> indexes;
    indexes.reserve(size_t(rows.size()));
    for (const int r : rows)
        if (r >= 0 && r < int(m_averages->rows.size()))
            indexes.push_back(size_t(r));
    return QString::fromStdString(report::keyAveragesCsv(*m_averages, indexes));
}
