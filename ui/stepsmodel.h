// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>

#include <memory>

struct TraceDocument;

// The Steps dock's rows: core's per-step table (analysis::computeStepTable, the rows of `tilescope-cli steps`)
// of the open trace. DisplayRole is the CLI table's formatting, SortRole the raw number (ns, a fraction, a
// count). The model shares ownership of the document it shows.
class StepsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { StepColumn, NameColumn, DurationColumn, GpuBusyColumn, UtilizationColumn, KernelsColumn, CpuBusyColumn, NUM_COLUMNS };
    enum Roles { SortRole = Qt::UserRole + 1 };

    explicit StepsModel(QObject* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);
    // The step's window [start, end) in trace ns; {0, 0} for a row out of range.
    std::pair<int64_t, int64_t> stepWindow(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const TraceDocument> m_doc;
};
