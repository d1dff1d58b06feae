// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>

#include <memory>

namespace tilescope::memory {
struct AllocatorSnapshot;
}

// The allocator's recorded history (device_traces), one row per entry, oldest first: action, size,
// address, stream, time, the user frame. OOM entries are red. EntryRole gives (device << 32 | entry).
class SnapshotHistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IndexColumn, ActionColumn, SizeColumn, AddressColumn, StreamColumn, TimeColumn, FrameColumn, NUM_COLUMNS };
    enum Roles { SortRole = Qt::UserRole + 1, EntryRole };

    explicit SnapshotHistoryModel(QObject* parent = nullptr);
    void setSnapshot(std::shared_ptr<const tilescope::memory::AllocatorSnapshot> snapshot);
    // Row of an entry, -1 when absent.
    int rowOf(int device, size_t entry) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const tilescope::memory::AllocatorSnapshot> m_snapshot;
    std::vector<std::pair<uint32_t, uint32_t>> m_rows; // (device, entry)
};
