// SPDX-License-Identifier: MIT
#include "sequencesmodel.h"

#include "stats/timetext.h"
#include "trace/trace.h"

#include <array>

using namespace tilescope;

SequencesModel::SequencesModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SequencesModel::setReport(std::shared_ptr<const trace::Trace> trace, std::shared_ptr<const analysis::KernelSequenceReport> report)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_report = m_trace ? std::move(report) : nullptr;
    endResetModel();
}

int SequencesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_report ? 0 : int(m_report->sequences.size());
}

int SequencesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant SequencesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_report || index.row() >= rowCount() || index.column() >= NUM_COLUMNS)
        return {};
    const analysis::KernelSequence& q = m_report->sequences[size_t(index.row())];
    const trace::Trace& t = *m_trace;
    if (role == EventRole)
        return QVariant::fromValue(q.occurrences.front());
    if (role == Qt::TextAlignmentRole)
        return index.column() <= ShareColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    const double share = m_report->kernelNs > 0 ? double(q.gpuNs) / double(m_report->kernelNs) : 0.0;
    QString steps;
    for (const analysis::SequenceStep& s : q.steps)
        steps += (steps.isEmpty() ? QString() : QStringLiteral("  →  "))
            + QString::fromUtf8(t.strings.view(s.op).data(), qsizetype(t.strings.view(s.op).size()));
    if (role == Qt::ToolTipRole) {
        if (index.column() == FusionColumn && q.elementwise)
            return QString::fromUtf8(analysis::fusionAdviceText());
        QString lines;
        for (const analysis::SequenceStep& s : q.steps)
            lines += QString::fromStdString(std::string(t.strings.view(s.op)) + " → " + std::string(t.strings.view(s.kernel)))
                + QLatin1Char('\n');
        return QString(lines + tr("Double-click: select the first occurrence's first kernel"));
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (index.column()) {
    case RankColumn: return index.row() + 1;
    case LengthColumn: return int(q.steps.size());
    case OccurrencesColumn: return qulonglong(q.occurrences.size());
    case GpuTimeColumn:
        return role == SortRole ? QVariant(qlonglong(q.gpuNs)) : QVariant(QString::fromStdString(stats::formatDuration(q.gpuNs)));
    case ShareColumn: return role == SortRole ? QVariant(share) : QVariant(QString::number(share * 100.0, 'f', 1) + QLatin1Char('%'));
    case FusionColumn: return q.elementwise ? tr("yes: all elementwise") : QString();
    case StepsColumn: return steps;
    default: return {};
    }
}

QVariant SequencesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= NUM_COLUMNS)
        return {};
    static const std::array<const char*, NUM_COLUMNS> names{QT_TR_NOOP("#"),
                                                            QT_TR_NOOP("Length"),
                                                            QT_TR_NOOP("Occurrences"),
                                                            QT_TR_NOOP("GPU time"),
                                                            QT_TR_NOOP("Share of kernels"),
                                                            QT_TR_NOOP("Fusion candidate"),
                                                            QT_TR_NOOP("Ops (→ their kernels in the tooltip)")};
    return tr(names[size_t(section)]);
}
