// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/launchstats.h"

#include <QAbstractTableModel>

#include <memory>

namespace tilescope::trace {
class Trace;
}

// A thin table over analysis::LaunchStats, in one of two views: Distributions (three rows per stream,
// CPU duration, GPU duration and launch delay, with count, min, p50, p90, p99, max and mean; then all
// streams when there are several) or Outliers (the short kernels, then the long delays, at most
// kMaxOutliers of each). EventRole of an outlier row is its kernel's event index (kNoIndex otherwise);
// SortRole gives numbers for the numeric columns.
class LaunchesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum class View { Distributions, Outliers };
    enum Roles { EventRole = Qt::UserRole + 1, SortRole };
    static constexpr size_t kMaxOutliers = 500;

    explicit LaunchesModel(View view, QObject* parent = nullptr);
    // The model shares ownership of both (a document's trace through an aliasing pointer).
    void setStats(std::shared_ptr<const tilescope::trace::Trace> trace, std::shared_ptr<const tilescope::analysis::LaunchStats> stats);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct OutlierRow
    {
        bool shortKernel;
        uint32_t launch; // index into LaunchStats::launches
    };
    QVariant distributionData(int row, int column, int role) const;
    QVariant outlierData(int row, int column, int role) const;

    View m_view;
    std::shared_ptr<const tilescope::trace::Trace> m_trace;
    std::shared_ptr<const tilescope::analysis::LaunchStats> m_stats;
    std::vector<OutlierRow> m_outliers;
};
