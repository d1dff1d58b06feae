// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>

#include <memory>

struct TraceDocument;

// The allocations of a trace's [memory] records, each paired with its free (memory::MemoryBlock): device,
// size, allocation and release times, lifetime, the ops that allocated and freed it, still live at the end.
// DisplayRole is text for people, SortRole the raw number; EventRole the op to jump to. The model shares
// ownership of the document it shows.
class MemoryBlocksModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        DeviceColumn,
        SizeColumn,
        AllocatedColumn,
        FreedColumn,
        LifetimeColumn,
        OpColumn,
        FreedByColumn,
        AddressColumn,
        NUM_COLUMNS
    };
    enum Roles { SortRole = Qt::UserRole + 1, EventRole };

    explicit MemoryBlocksModel(QObject* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const TraceDocument> m_doc;
};

// Allocations and frees per op name, self (memory::OpMemory): calls, allocations and their bytes, frees,
// the size increase, bytes still live at the device's peak. Top allocators first.
class MemoryOpsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        OpColumn,
        CallsColumn,
        AllocsColumn,
        AllocBytesColumn,
        FreesColumn,
        FreeBytesColumn,
        IncreaseColumn,
        LiveAtPeakColumn,
        NUM_COLUMNS
    };
    enum Roles { SortRole = Qt::UserRole + 1, NameRole };

    explicit MemoryOpsModel(QObject* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const TraceDocument> m_doc;
};
