// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>

class MemoryBlocksModel;
class MemoryOpsModel;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
struct TraceDocument;

// The memory events of a trace, as the TensorBoard plugin's Memory view lists them and more: every
// allocation paired with its free (sortable by size, time, lifetime; live-at-end marked) and the per-op
// statistics (the top allocators), both filtered by one text. A click selects the op in the timeline.
class MemoryEventsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryEventsPanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);

    QTableView* blocksView() const { return m_blocksView; }
    QTableView* opsView() const { return m_opsView; }
    QLineEdit* filter() const { return m_filter; }
    QTabWidget* tabs() const { return m_tabs; }
    MemoryBlocksModel* blocksModel() const { return m_blocks; }
    MemoryOpsModel* opsModel() const { return m_ops; }
    QString summaryText() const; // the line above the tables

signals:
    void eventClicked(uint32_t event); // an allocation's op
    void opNameClicked(const QString& name);

private:
    std::shared_ptr<const TraceDocument> m_doc;
    MemoryBlocksModel* m_blocks;
    MemoryOpsModel* m_ops;
    QSortFilterProxyModel* m_blocksProxy;
    QSortFilterProxyModel* m_opsProxy;
    QTableView* m_blocksView;
    QTableView* m_opsView;
    QTabWidget* m_tabs;
    QLineEdit* m_filter;
    QLabel* m_summary;
};
