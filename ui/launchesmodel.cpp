// SPDX-License-Identifier: MIT
#include "launchesmodel.h"

#include "stats/timetext.h"
#include "trace/trace.h"

#include <array>

using namespace tilescope;

namespace {

enum DistributionColumn {
    StreamColumn,
    QuantityColumn,
    CountColumn,
    MinColumn,
    P50Column,
    P90Column,
    P99Column,
    MaxColumn,
    MeanColumn,
    DistributionColumns
};
enum OutlierColumn {
    RuleColumn,
    LaunchColumn,
    AtColumn,
    CpuColumn,
    GpuColumn,
    DelayColumn,
    OutlierStreamColumn,
    KernelColumn,
    OutlierColumns
};

QString streamLabel(int device, std::optional<int64_t> stream)
{
    if (device < 0 && !stream)
        return LaunchesModel::tr("all streams");
    QString label = LaunchesModel::tr("GPU %1").arg(device);
    if (stream)
        label += LaunchesModel::tr(" stream %1").arg(*stream);
    return label;
}

QString durationText(int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); }

} // namespace

LaunchesModel::LaunchesModel(View view, QObject* parent)
    : QAbstractTableModel(parent)
    , m_view(view)
{ }

void LaunchesModel::setStats(std::shared_ptr<const trace::Trace> trace, std::shared_ptr<const analysis::LaunchStats> stats)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_stats = m_trace ? std::move(stats) : nullptr;
    m_outliers.clear();
    if (m_stats) {
        for (size_t k = 0; k < m_stats->shortKernels.size() && k < kMaxOutliers; ++k)
            m_outliers.push_back({true, m_stats->shortKernels[k]});
        for (size_t k = 0; k < m_stats->longDelays.size() && k < kMaxOutliers; ++k)
            m_outliers.push_back({false, m_stats->longDelays[k]});
    }
    endResetModel();
}

int LaunchesModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_stats)
        return 0;
    if (m_view == View::Outliers)
        return int(m_outliers.size());
    if (m_stats->launches.empty())
        return 0;
    return 3 * int(m_stats->streams.size() + (m_stats->streams.size() > 1 ? 1 : 0));
}

int LaunchesModel::columnCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return m_view == View::Outliers ? int(OutlierColumns) : int(DistributionColumns);
}

QVariant LaunchesModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_stats || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    return m_view == View::Outliers ? outlierData(index.row(), index.column(), role) : distributionData(index.row(), index.column(), role);
}

QVariant LaunchesModel::distributionData(int row, int column, int role) const
{
    const size_t streamIndex = size_t(row / 3);
    const bool all = streamIndex == m_stats->streams.size();
    const analysis::StreamLaunchStats* stream = all ? nullptr : &m_stats->streams[streamIndex];
    const std::array<const stats::Distribution*, 3> parts = all ? std::array{&m_stats->cpu, &m_stats->gpu, &m_stats->delay}
                                                                : std::array{&stream->cpu, &stream->gpu, &stream->delay};
    const stats::Distribution& d = *parts[size_t(row % 3)];
    if (role == EventRole)
        return QVariant::fromValue(trace::kNoIndex);
    if (role == Qt::TextAlignmentRole)
        return column >= CountColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    const std::array<int64_t, 6> values{0, d.min, d.p50, d.p90, d.p99, d.max};
    switch (column) {
    case StreamColumn: return streamLabel(all ? -1 : stream->device, all ? std::nullopt : stream->stream);
    case QuantityColumn: {
        static const std::array<const char*, 3> names{QT_TR_NOOP("CPU (call)"), QT_TR_NOOP("GPU (activities)"), QT_TR_NOOP("launch delay")};
        return tr(names[size_t(row % 3)]);
    }
    case CountColumn: return role == SortRole ? QVariant(qulonglong(d.count)) : QVariant(QString::number(d.count));
    case MeanColumn: return role == SortRole ? QVariant(d.mean) : QVariant(durationText(int64_t(d.mean + 0.5)));
    default: {
        const int64_t v = values[size_t(column - CountColumn)];
        return role == SortRole ? QVariant(qlonglong(v)) : QVariant(durationText(v));
    }
    }
}

QVariant LaunchesModel::outlierData(int row, int column, int role) const
{
    const OutlierRow& o = m_outliers[size_t(row)];
    const analysis::LaunchRecord& l = m_stats->launches[o.launch];
    const trace::Trace& t = *m_trace;
    if (role == EventRole)
        return QVariant::fromValue(l.activity);
    if (role == Qt::TextAlignmentRole)
        return column >= AtColumn && column <= DelayColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::ToolTipRole) {
        if (column == RuleColumn)
            return QString::fromStdString(o.shortKernel ? analysis::shortKernelRuleText() : analysis::longDelayRuleText());
        if (column == KernelColumn || column == LaunchColumn)
            return QString::fromStdString(std::string(t.name(t.events[column == KernelColumn ? l.activity : l.launch])));
        if (column == AtColumn)
            return tr("The launch call's start after the trace's start; ts %1 us in the file (tilescope-cli launches prints that)\n"
                      "Double-click: select the kernel in the timeline")
                .arg(QString::fromStdString(stats::formatMicroseconds(t.events[l.launch].start)));
        return tr("Double-click: select the kernel in the timeline");
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const analysis::StreamLaunchStats& stream = m_stats->streams[l.stream];
    switch (column) {
    case RuleColumn: return o.shortKernel ? tr("kernel shorter than launch") : tr("long launch delay");
    case LaunchColumn: return QString::fromStdString(std::string(t.name(t.events[l.launch])));
    case AtColumn: { // from the trace's start, as the timeline's ruler and Details say it (the file's ts in the tooltip)
        const int64_t start = t.events[l.launch].start;
        return role == SortRole ? QVariant(qlonglong(start))
                                : QVariant(QString::fromStdString(stats::formatMicroseconds(start - t.originTime())));
    }
    case CpuColumn: return role == SortRole ? QVariant(qlonglong(l.cpuNs)) : QVariant(durationText(l.cpuNs));
    case GpuColumn: return role == SortRole ? QVariant(qlonglong(l.gpuNs)) : QVariant(durationText(l.gpuNs));
    case DelayColumn: return role == SortRole ? QVariant(qlonglong(l.delayNs)) : QVariant(durationText(l.delayNs));
    case OutlierStreamColumn: return streamLabel(stream.device, stream.stream);
    case KernelColumn: return QString::fromStdString(std::string(t.name(t.events[l.activity])));
    default: return {};
    }
}

QVariant LaunchesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    static const std::array<const char*, DistributionColumns> distribution{
        QT_TR_NOOP("Stream"), QT_TR_NOOP("Quantity"), QT_TR_NOOP("Launches"), QT_TR_NOOP("Min"), QT_TR_NOOP("p50"),
        QT_TR_NOOP("p90"),    QT_TR_NOOP("p99"),      QT_TR_NOOP("Max"),      QT_TR_NOOP("Mean")};
    static const std::array<const char*, OutlierColumns> outliers{
        QT_TR_NOOP("Outlier"), QT_TR_NOOP("Launch"), QT_TR_NOOP("At (us from start)"),
        QT_TR_NOOP("CPU"),     QT_TR_NOOP("GPU"),    QT_TR_NOOP("Delay"),
        QT_TR_NOOP("Stream"),  QT_TR_NOOP("Kernel")};
    return tr(m_view == View::Outliers ? outliers[size_t(section)] : distribution[size_t(section)]);
}
