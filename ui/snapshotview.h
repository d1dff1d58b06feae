// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>

namespace tilescope::memory {
struct AllocatorSnapshot;
}
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;
class QTabWidget;
class QTextBrowser;
class SegmentMap;
class SnapshotHistoryModel;

// A CUDA allocator snapshot (the pickle torch.cuda.memory._dump_snapshot writes), read without running it:
// the segments as address-ordered bars with their blocks, the largest live blocks, the recorded history
// with allocated and reserved replayed over it and any OOM entry, and the stack of whatever is selected
// with the user frame (the first Python frame that is not torch's) first.
class SnapshotView : public QWidget
{
    Q_OBJECT
public:
    explicit SnapshotView(QWidget* parent = nullptr);
    void setSnapshot(std::shared_ptr<const tilescope::memory::AllocatorSnapshot> snapshot);
    const std::shared_ptr<const tilescope::memory::AllocatorSnapshot>& snapshot() const { return m_snapshot; }

    QString summaryText() const;
    QString framesText() const; // the stack shown, as plain text
    QTableWidget* largestBlocks() const { return m_largest; }
    QTableView* history() const { return m_history; }
    SegmentMap* segmentMap() const { return m_map; }
    QCustomPlot* replotPlot() const { return m_plot; }
    QTabWidget* tabs() const { return m_tabs; }
    void showBlock(size_t segment, size_t block);
    void showEntry(int device, size_t entry);

private:
    void showStack(uint32_t stack, const QString& title);
    void fillLargest();
    void fillReplay();
    std::shared_ptr<const tilescope::memory::AllocatorSnapshot> m_snapshot;
    QLabel* m_summary;
    SegmentMap* m_map;
    QTabWidget* m_tabs;
    QTableWidget* m_largest;
    SnapshotHistoryModel* m_historyModel;
    QSortFilterProxyModel* m_historyProxy;
    QTableView* m_history;
    QCustomPlot* m_plot;
    QTextBrowser* m_frames;
};
