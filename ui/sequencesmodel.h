// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/kernelsequences.h"

#include <QAbstractTableModel>

#include <memory>

namespace tilescope::trace {
class Trace;
}

// A thin table over analysis::KernelSequenceReport: one row per repeated sequence in the order chosen
// (length, occurrences, GPU time, share of kernel time, fusion candidate, its steps). EventRole is the
// first kernel of the sequence's first occurrence; SortRole gives numbers for the numeric columns.
class SequencesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { RankColumn, LengthColumn, OccurrencesColumn, GpuTimeColumn, ShareColumn, FusionColumn, StepsColumn, NUM_COLUMNS };
    enum Roles { EventRole = Qt::UserRole + 1, SortRole };

    explicit SequencesModel(QObject* parent = nullptr);
    // The model shares ownership of both (a document's trace through an aliasing pointer).
    void setReport(std::shared_ptr<const tilescope::trace::Trace> trace,
                   std::shared_ptr<const tilescope::analysis::KernelSequenceReport> report);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const tilescope::trace::Trace> m_trace;
    std::shared_ptr<const tilescope::analysis::KernelSequenceReport> m_report;
};
