// SPDX-License-Identifier: MIT
#pragma once

#include "stats/keyaveragesdiff.h"

#include <QAbstractTableModel>

#include <memory>

// The key-averages dock while comparing two traces (File > Compare With…): core's diff rows
// (stats::diffKeyAverages, the rows of `tilescope-cli diff`) with before, after and delta columns, in the
// diff's order (largest device-time change first). DisplayRole is torch's formatting (deltas signed),
// SortRole the raw number in us (a missing side: none); a time delta is green when after is faster, red
// when slower. The model shares ownership of the rows it shows.
class KeyAveragesDiffModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        DeviceColumn,
        ChangeColumn,
        CountBeforeColumn,
        CountAfterColumn,
        CountDeltaColumn,
        SelfDeviceBeforeColumn,
        SelfDeviceAfterColumn,
        SelfDeviceDeltaColumn,
        DeviceTotalBeforeColumn,
        DeviceTotalAfterColumn,
        DeviceTotalDeltaColumn,
        SelfCpuBeforeColumn,
        SelfCpuAfterColumn,
        SelfCpuDeltaColumn,
        ShapesColumn,
        NUM_COLUMNS
    };
    enum Roles { SortRole = Qt::UserRole + 1 };

    explicit KeyAveragesDiffModel(QObject* parent = nullptr);
    void setDiff(std::shared_ptr<const tilescope::stats::KeyAveragesDiff> diff);
    const std::shared_ptr<const tilescope::stats::KeyAveragesDiff>& diff() const { return m_diff; }
    const tilescope::stats::KeyAverageDiffRow* row(int r) const;
    // These rows (model rows) as `tilescope-cli diff --format csv` writes them (report::diffCsv).
    QString toCsv(const QList<int>& rows) const;

    static QColor fasterColour();
    static QColor slowerColour();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const tilescope::stats::KeyAveragesDiff> m_diff;
};
