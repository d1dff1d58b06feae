// SPDX-License-Identifier: MIT
#include "stepsmodel.h"

#include "report/stepsreport.h"

#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "tracedocument.h"

using namespace tilescope;

StepsModel::StepsModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void StepsModel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    beginResetModel();
    m_doc = std::move(document);
    endResetModel();
}

std::pair<int64_t, int64_t> StepsModel::stepWindow(int row) const
{
    if (row < 0 || row >= rowCount())
        return {0, 0};
    const analysis::StepRow& s = m_doc->steps.steps[size_t(row)];
    return {s.start, s.end};
}

int StepsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !m_doc ? 0 : int(m_doc->steps.steps.size()); }

int StepsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant StepsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const analysis::StepRow& s = m_doc->steps.steps[size_t(index.row())];
    auto nameOf = [this](const analysis::StepRow& step) {
        const std::string_view name = m_doc->trace->strings.view(step.name);
        return QString::fromUtf8(name.data(), qsizetype(name.size()));
    };
    auto duration = [](int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); };
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case StepColumn: return QVariant::fromValue(qlonglong(s.number));
        case NameColumn: return nameOf(s);
        case DurationColumn: return duration(s.durationNs);
        case GpuBusyColumn: return duration(s.gpuBusyNs);
        case UtilizationColumn: return QString::fromStdString(stats::formatFixed(s.gpuUtilization * 100.0, 1) + "%");
        case KernelsColumn: return QString::fromStdString(stats::formatCount(s.kernels));
        case CpuBusyColumn: return duration(s.cpuBusyNs);
        default: return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case StepColumn: return QVariant::fromValue(qlonglong(s.number));
        case NameColumn: return nameOf(s);
        case DurationColumn: return QVariant::fromValue(qlonglong(s.durationNs));
        case GpuBusyColumn: return QVariant::fromValue(qlonglong(s.gpuBusyNs));
        case UtilizationColumn: return s.gpuUtilization;
        case KernelsColumn: return QVariant::fromValue(qulonglong(s.kernels));
        case CpuBusyColumn: return QVariant::fromValue(qlonglong(s.cpuBusyNs));
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != NameColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant StepsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && (section == GpuBusyColumn || section == KernelsColumn))
        return QString(QString::fromUtf8(report::kStepGpuBusyText) + u'.');
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StepColumn: return tr("Step");
    case NameColumn: return tr("Name");
    case DurationColumn: return tr("Duration");
    case GpuBusyColumn: return tr("GPU busy");
    case UtilizationColumn: return tr("GPU utilization");
    case KernelsColumn: return tr("Kernels");
    case CpuBusyColumn: return tr("CPU busy");
    default: return {};
    }
}
