// SPDX-License-Identifier: MIT
#pragma once

#include "stats/keyaverages.h"
#include "workerjob.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

class KeyAveragesDiffModel;
class KeyAveragesModel;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
struct TraceDocument;

// The key-averages dock: torch's rows for the whole trace or a selected range (aggregated on a worker
// thread, newest request wins), sortable, filterable, grouped by input shape, copied and exported. The
// model shares ownership of the rows it shows, so a new range or trace never frees rows under a repaint.
class KeyAveragesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit KeyAveragesPanel(QWidget* parent = nullptr);
    QLabel* scopeLabel() const { return m_title; } // what the rows are of: the whole trace, the range, the diff

    // A new trace: the whole-trace rows, filter cleared, scrolled to the top.
    void setDocument(std::shared_ptr<const TraceDocument> document);
    // The rows of a time range (trace ns), or of the whole trace for nullopt.
    void setRange(std::optional<std::pair<int64_t, int64_t>> range);
    // Selects the row of `key` on `device` without emitting keySelected (the timeline's selection); while a
    // range is being aggregated, again in the rows that replace these.
    void selectKey(std::string_view key, tilescope::stats::DeviceType device);
    void clearSelection();
    bool isAggregating() const { return m_aggregation.isRunning(); }
    // Compare mode (File > Compare With…): the open trace is before, `after` the other one; the dock shows
    // their diff (before, after and delta columns) instead of the rows, until called with nullptr.
    void setComparison(std::shared_ptr<const TraceDocument> after);
    bool isComparing() const { return m_after != nullptr; }
    // Compare mode: the diff of step `number` of both traces (`tilescope-cli diff --step N`), aggregated on a
    // worker thread, or of the whole traces for nullopt.
    void setComparisonStep(std::optional<int64_t> number);
    std::optional<int64_t> comparisonStep() const { return m_diffStep; }
    bool isDiffing() const { return m_diffJob.isRunning(); }
    QTableView* diffTable() const { return m_diffTable; }
    KeyAveragesDiffModel* diffModel() const { return m_diffModel; }
    QSortFilterProxyModel* diffProxy() const { return m_diffProxy; }

    QTableView* table() const { return m_table; }
    QLineEdit* filter() const { return m_filter; }
    QCheckBox* groupByShape() const { return m_byShape; }
    KeyAveragesModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    void copyRows() const;
    bool exportCsv(const QString& path); // the rows shown, atomically; a dialog says why it failed

signals:
    void keySelected(const QString& key, tilescope::stats::DeviceType device);
    void selectionCleared();
    void rangeAggregated();
    void diffShown(); // compare mode: the diff rows shown (after a step's aggregation, too)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showAverages(std::shared_ptr<const tilescope::stats::KeyAverages> averages, bool range);
    std::shared_ptr<const tilescope::stats::KeyAverages> wholeTraceAverages() const; // by name or by shape, as checked
    void aggregate();
    void showScope(bool range); // the title: the whole trace, or the range the rows are of
    static int shapesWidthCap(int viewport);
    int m_fittedShapesWidth = -1; // the shapes' width fitColumns set last (-1: none yet); another is the user's
    void fitColumns();            // the sort column in view: names narrowed, figures as wide as their text
    void applyRowLimit();
    void onSelectionChanged();
    QList<int> visibleSourceRows() const;
    // The table shown (the diff's in compare mode) and its proxy.
    QTableView* shownTable() const { return m_after ? m_diffTable : m_table; }
    QSortFilterProxyModel* shownProxy() const { return m_after ? m_diffProxy : m_proxy; }
    QString csvOf(const QList<int>& rows) const; // the shown table's CSV (the diff's in compare mode)
    void showDiff();

    std::shared_ptr<const TraceDocument> m_doc;
    std::optional<std::pair<int64_t, int64_t>> m_range;
    WorkerJob m_aggregation; // newest request wins: a new range, trace or whole-trace view drops the one in flight
    KeyAveragesModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_title;
    QHBoxLayout* m_controls; // the title, the filter and the buttons above the table
    QLineEdit* m_filter;
    QCheckBox* m_byShape;
    QSpinBox* m_rowLimit;
    bool m_syncing = false;
    // The sort chosen by the user (a header click) for this trace: shown while its column is, torch's order else.
    std::optional<std::pair<int, Qt::SortOrder>> m_userSort;
    bool m_sortingForUser = true; // false while showAverages sorts on its own
    int m_fittedNameWidth = -1;   // the names' width fitColumns set last (another: the user's, kept)
    std::optional<std::pair<std::string, tilescope::stats::DeviceType>> m_pendingKey; // selectKey during an aggregation
    std::shared_ptr<const TraceDocument> m_after;                                     // compare mode: the trace compared with m_doc
    KeyAveragesDiffModel* m_diffModel;
    QSortFilterProxyModel* m_diffProxy;
    QTableView* m_diffTable;
    std::optional<int64_t> m_diffStep;  // compare mode: the step diffed, none for the whole traces
    WorkerJob m_diffJob;                // a step's diff; newest request wins
    QList<QWidget*> m_rowsOnlyControls; // row limit, Copy, Export CSV: of the rows, disabled while comparing
};
