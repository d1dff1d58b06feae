// SPDX-License-Identifier: MIT
#pragma once

#include "stats/keyaverages.h"
#include "stats/torchtable.h"

#include <QAbstractTableModel>

#include <memory>

// torch's key_averages rows: DisplayRole is torch's formatting, SortRole the raw number. The model shares
// ownership of the rows it shows, so whoever replaced them (a range aggregation, a new trace) cannot free
// them under a repaint.
class KeyAveragesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        DeviceColumn,
        SelfCpuPercentColumn,
        SelfCpuColumn,
        CpuTotalPercentColumn,
        CpuTotalColumn,
        CpuAvgColumn,
        SelfDeviceColumn,
        SelfDevicePercentColumn,
        DeviceTotalColumn,
        DeviceAvgColumn,
        CpuMemColumn,
        SelfCpuMemColumn,
        DeviceMemColumn,
        SelfDeviceMemColumn,
        CountColumn,
        FlopsColumn,
        ShapesColumn,
        NUM_COLUMNS
    };
    enum Roles { SortRole = Qt::UserRole + 1, RowIndexRole };

    explicit KeyAveragesModel(QObject* parent = nullptr);
    void setAverages(std::shared_ptr<const tilescope::stats::KeyAverages> averages);
    const std::shared_ptr<const tilescope::stats::KeyAverages>& averages() const { return m_averages; }
    const tilescope::stats::KeyAverage* row(int r) const;
    int findRow(std::string_view key, tilescope::stats::DeviceType device) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // CSV of the given rows, in that order, for copy and export: report::keyAveragesCsv, the same file as
    // `tilescope-cli summary --format csv` for the same rows.
    QString toCsv(const QList<int>& rows) const;

private:
    std::shared_ptr<const tilescope::stats::KeyAverages> m_averages;
    tilescope::stats::FlopsUnit m_flopsUnit; // torch's table's, for the FLOPs column
    // The percentages' denominators, summed as summary's table sums them (its default order): the footers'
    // "Self CPU time total" and "Self CUDA time total".
    double m_selfCpuTotal = 0, m_selfDeviceTotal = 0;
};
