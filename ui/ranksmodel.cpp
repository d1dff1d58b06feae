// SPDX-License-Identifier: MIT
#include "ranksmodel.h"

#include "report/texttable.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <QBrush>
#include <QColor>
#include <QFont>

using namespace tilescope;

namespace {
QString duration(int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); }
} // namespace

RanksModel::RanksModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void RanksModel::setReport(std::shared_ptr<const analysis::RanksReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

QString RanksModel::verdictText() const
{
    if (!m_report)
        return {};
    const analysis::StragglerVerdict& v = m_report->verdict;
    QString text = tr("World size %1, %2 ranks loaded. ").arg(m_report->worldSize).arg(m_report->ranks.size());
    if (!v.applicable) {
        text += tr("Stragglers not sought (one rank, or a rank without collectives).");
    } else if (v.stragglers.empty()) {
        text += tr("No straggler: no rank stands out.");
    } else {
        QStringList ranks;
        for (const int64_t r : v.stragglers)
            ranks << QString::number(r);
        text += tr("Straggler: rank %1 (the others wait for it inside the collectives).").arg(ranks.join(QStringLiteral(", ")));
    }
    text += tr(" Rule: %1.").arg(QString::fromStdString(v.rule));
    // The folder's files that are not traces (its meta.json, ...), so that none goes missing unsaid.
    QStringList passedOver;
    for (const std::string& why : m_report->skipped)
        passedOver << QString::fromStdString(why);
    if (!passedOver.isEmpty())
        text += tr(" Passed over, not traces: %1.").arg(passedOver.join(QStringLiteral("; ")));
    return text;
}

int RanksModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !m_report ? 0 : int(m_report->ranks.size()); }

int RanksModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant RanksModel::data(const QModelIndex& index, int role) const
{
    if (!m_report || !index.isValid() || index.row() >= rowCount() || index.column() >= NUM_COLUMNS)
        return {};
    const analysis::RankFigures& f = m_report->ranks[size_t(index.row())];
    const analysis::StragglerEvidence& e = m_report->verdict.evidence[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case RankColumn: return QString::number(f.rank);
        case StepsColumn: return f.hasSteps ? QString::number(f.steps) : tr("whole trace");
        case StepMedianColumn: return duration(f.stepMedianNs);
        case GpuBusyColumn: return duration(f.gpuBusyNs);
        case ComputeColumn: return duration(f.computeNsPerStep);
        case CollectivesColumn: return duration(f.collectiveNsPerStep);
        case OverlapColumn:
            return f.collectiveNsPerStep > 0 ? QString::fromStdString(report::percentText(f.commCompOverlap)) : QStringLiteral("-");
        case VersusOthersColumn:
            return m_report->verdict.applicable ? QString::fromStdString(stats::formatFixed(e.waitRatio, 2)) + QStringLiteral("x")
                                                : QStringLiteral("-");
        case StragglerColumn: return e.straggler ? tr("straggler") : QString();
        case NUM_COLUMNS: break;
        }
        return {};
    case Qt::TextAlignmentRole:
        return int((index.column() == RankColumn || index.column() == StragglerColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    case Qt::FontRole:
        if (e.straggler) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole: return e.straggler ? QVariant(QBrush(QColor(255, 214, 102))) : QVariant();
    case Qt::ToolTipRole:
        return tr("%1\ncollectives (%2): %3 per step, median %4; the other ranks' median %5 (%6x); %7% of the median step "
                  "shorter")
            .arg(QString::fromStdString(f.file), QString::fromStdString(std::string(analysis::collectiveSourceText(f.collectiveSource))),
                 duration(f.collectiveNsPerStep), duration(f.collectiveMedianNs), duration(e.othersMedianNs),
                 QString::fromStdString(stats::formatFixed(e.waitRatio, 2)),
                 QString::fromStdString(stats::formatFixed(e.gapOfStep * 100, 1)));
    case FileRole: return QString::fromStdString(f.file);
    default: return {};
    }
}

QVariant RanksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == StepMedianColumn)
        return tr("The middle step's duration; of an even count of steps the lower middle one (a step that happened, not an "
                  "average of two)");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case RankColumn: return tr("Rank");
    case StepsColumn: return tr("Steps");
    case StepMedianColumn: return tr("Step (median)");
    case GpuBusyColumn: return tr("GPU busy (all steps)"); // a total, beside per-step columns
    case ComputeColumn: return tr("Compute / step");
    case CollectivesColumn: return tr("Collectives / step");
    case OverlapColumn: return tr("Comm ∩ comp");
    case VersusOthersColumn: return tr("vs others");
    case StragglerColumn: return tr("Straggler");
    case NUM_COLUMNS: break;
    }
    return {};
}
