// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/ranks.h"

#include <QAbstractTableModel>

#include <memory>

// One row per rank of a rank set (analysis::computeRanks, by rank): the figures of `tilescope-cli ranks`.
// A straggler's row is bold on an amber background, its last column says so, and every row's tooltip
// gives the evidence (its collective time per step against the others' median, the gap as a share of
// the median step). FileRole gives the rank's trace file.
class RanksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        StepsColumn,
        StepMedianColumn,
        GpuBusyColumn,
        ComputeColumn,
        CollectivesColumn,
        OverlapColumn,
        VersusOthersColumn,
        StragglerColumn,
        NUM_COLUMNS
    };
    enum Roles { FileRole = Qt::UserRole + 1 };

    explicit RanksModel(QObject* parent = nullptr);
    void setReport(std::shared_ptr<const tilescope::analysis::RanksReport> report);
    const tilescope::analysis::RanksReport* report() const { return m_report.get(); }
    // The verdict in one line: the stragglers or "none", with the rule.
    QString verdictText() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const tilescope::analysis::RanksReport> m_report;
};
