// SPDX-License-Identifier: MIT
#include "keyaveragesdiffmodel.h"

#include "report/diffreport.h"
#include "stats/torchtable.h"

#include <QColor>

using namespace tilescope;

KeyAveragesDiffModel::KeyAveragesDiffModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void KeyAveragesDiffModel::setDiff(std::shared_ptr<const stats::KeyAveragesDiff> diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    endResetModel();
}

const stats::KeyAverageDiffRow* KeyAveragesDiffModel::row(int r) const
{
    if (!m_diff || r < 0 || r >= int(m_diff->rows.size()))
        return nullptr;
    return &m_diff->rows[size_t(r)];
}

QColor KeyAveragesDiffModel::fasterColour() { return QColor(20, 140, 40); }
QColor KeyAveragesDiffModel::slowerColour() { return QColor(200, 30, 30); }

int KeyAveragesDiffModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !m_diff ? 0 : int(m_diff->rows.size()); }

int KeyAveragesDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant KeyAveragesDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[NUM_COLUMNS] = {"Name",
                                             "Device",
                                             "Change",
                                             "Calls before",
                                             "Calls after",
                                             "Calls delta",
                                             "Self CUDA before",
                                             "Self CUDA after",
                                             "Self CUDA delta",
                                             "CUDA total before",
                                             "CUDA total after",
                                             "CUDA total delta",
                                             "Self CPU before",
                                             "Self CPU after",
                                             "Self CPU delta",
                                             "Input Shapes"};
    return section >= 0 && section < NUM_COLUMNS ? QString::fromLatin1(names[section]) : QVariant();
}

QVariant KeyAveragesDiffModel::data(const QModelIndex& index, int role) const
{
    const stats::KeyAverageDiffRow* r = index.isValid() ? row(index.row()) : nullptr;
    if (!r)
        return {};
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == NameColumn || column == ShapesColumn || column == ChangeColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const bool timeDelta = column == SelfDeviceDeltaColumn || column == DeviceTotalDeltaColumn || column == SelfCpuDeltaColumn;
    if (role == Qt::ForegroundRole) {
        if (!timeDelta)
            return {};
        const double delta = data(index, SortRole).toDouble();
        return delta < 0 ? QVariant(fasterColour()) : delta > 0 ? QVariant(slowerColour()) : QVariant();
    }
    const bool sort = role == SortRole;
    if (!sort && role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    // A side that lacks the row (added or removed) shows "-" and sorts as no value.
    auto side = [&](const std::optional<stats::KeyAverage>& s, auto value, bool isTime) -> QVariant {
        if (!s)
            return sort ? QVariant() : QVariant(QStringLiteral("-"));
        const double v = double(value(*s));
        if (sort)
            return v;
        return QString::fromStdString(isTime ? stats::formatTorchTime(v) : stats::formatCount(uint64_t(v)));
    };
    auto delta = [&](double us) -> QVariant { return sort ? QVariant(us) : QVariant(QString::fromStdString(report::signedTime(us))); };
    auto count = [](const stats::KeyAverage& a) { return a.count; };
    auto selfDevice = [](const stats::KeyAverage& a) { return a.selfDeviceTimeTotal; };
    auto deviceTotal = [](const stats::KeyAverage& a) { return a.deviceTimeTotal; };
    auto selfCpu = [](const stats::KeyAverage& a) { return a.selfCpuTimeTotal; };
    switch (column) {
    case NameColumn: return QString::fromStdString(r->key);
    case DeviceColumn:
        return QString(QString::fromLatin1(r->deviceType == stats::DeviceType::CPU ? "CPU" : "CUDA")
                       + (r->isUserAnnotation ? QStringLiteral(" (annotation)") : QString()));
    case ChangeColumn: return QString::fromStdString(stats::diffChangeName(r->change()));
    case CountBeforeColumn: return side(r->before, count, false);
    case CountAfterColumn: return side(r->after, count, false);
    case CountDeltaColumn:
        return sort ? QVariant(qint64(r->deltaCount))
                    : QVariant((r->deltaCount > 0 ? QStringLiteral("+") : QString()) + QString::number(r->deltaCount));
    case SelfDeviceBeforeColumn: return side(r->before, selfDevice, true);
    case SelfDeviceAfterColumn: return side(r->after, selfDevice, true);
    case SelfDeviceDeltaColumn: return delta(r->deltaSelfDeviceTimeTotal);
    case DeviceTotalBeforeColumn: return side(r->before, deviceTotal, true);
    case DeviceTotalAfterColumn: return side(r->after, deviceTotal, true);
    case DeviceTotalDeltaColumn: return delta(r->deltaDeviceTimeTotal);
    case SelfCpuBeforeColumn: return side(r->before, selfCpu, true);
    case SelfCpuAfterColumn: return side(r->after, selfCpu, true);
    case SelfCpuDeltaColumn: return delta(r->deltaSelfCpuTimeTotal);
    case ShapesColumn: return QString::fromStdString(r->inputShapes);
    default: return {};
    }
}

QString KeyAveragesDiffModel::toCsv(const QList<int>& rows) const
{
    std::vector<size_t> indexes;
    if (m_diff)
        for (const int r : rows)
            if (r >= 0 && r < int(m_diff->rows.size()))
                indexes.push_back(size_t(r));
    return QString::fromStdString(tilescope::report::diffCsv(m_diff ? *m_diff : tilescope::stats::KeyAveragesDiff{}, indexes));
}
