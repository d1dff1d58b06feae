// SPDX-License-Identifier: MIT
#pragma once

#include "findings/finding.h"
#include "stats/keyaverages.h"

#include "workerjob.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class ComparedTimeline;
class DetailsPanel;
class FindingsPanel;
class KeyAveragesModel;
class KeyAveragesPanel;
class MemoryEventsPanel;
class MemoryPanel;
class QDockWidget;
class SnapshotView;
class ProfileDialog;
class RanksLoadJob;
class RanksPanel;
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTimer;
class RooflinePanel;
class StepsPanel;
class TimelineView;
class TraceLoadJob;
struct TraceDocument;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // `partial`: keep what loads before a truncation or syntax error (see LoadOptions::partial).
    // `remember`: into Open Recent; a rank opened from its folder is not (the folder is).
    void openFile(const QString& path, bool partial = false, bool remember = true);
    void openBundledSample();
    // A folder of per-rank traces of one run (issue #13): the Ranks dock, and rank `showRank`'s timeline
    // (-1: the first straggler, else the lowest rank).
    void openRankFolder(const QString& folder, qint64 showRank = -1);
    RanksPanel* ranks() const { return m_ranks; }
    void reopenLast();
    void showProfileDialog();
    ProfileDialog* profileDialog() const { return m_profileDialog; }
    // Saves a PNG of the window once the trace in flight has loaded, then quits.
    void screenshotWhenLoaded(const QString& path);
    static constexpr QSize kDefaultSize{1500, 950}; // where the screen has room for it and its frame
    // For a short screen (a 1366x768 laptop's; before the window is shown): the right-hand docks take the
    // whole height and the table sits under the timeline, so the window fits with room for both.
    // View > Reset Layout: the docks as the window first laid them out (shown, docked, their first sizes).
    void resetLayout();
    void useShortScreenLayout();

    TimelineView* timeline() const { return m_timeline; }
    RooflinePanel* roofline() const { return m_roofline; }
    MemoryPanel* memory() const { return m_memory; }
    MemoryEventsPanel* memoryEvents() const { return m_memoryEvents; }
    SnapshotView* snapshotView() const { return m_snapshotView; }
    // Reads an allocator snapshot pickle off the GUI thread into the Memory snapshot dock.
    void openMemorySnapshot(const QString& path);
    // Stacks a memory timeline's categories under the memory graph of the open trace.
    void openMemoryTimeline(const QString& path);
    KeyAveragesPanel* keyAverages() const { return m_keyAverages; }
    FindingsPanel* findings() const { return m_findings; }
    QTableView* table() const;
    QLineEdit* tableFilter() const;
    QCheckBox* groupByShape() const;
    QLineEdit* searchField() const { return m_search; }
    const TraceDocument* document() const { return m_doc.get(); }
    std::shared_ptr<const TraceDocument> sharedDocument() const { return m_doc; }
    TraceLoadJob* loadJob() const { return m_job; }
    QString figuresText() const;
    QString dialogFolder() const; // where the file dialogs start: the open trace's folder, else the last opened's
    // Steps and compare (issue #13). The open trace is before, the compared one after.
    StepsPanel* steps() const { return m_steps; }
    void compareWith(const QString& path); // loads `path` on a worker; comparisonChanged when shown
    void closeComparison();
    const TraceDocument* comparedDocument() const { return m_compared.get(); }
    ComparedTimeline* comparedTimeline() const { return m_comparedTimeline; }
    TraceLoadJob* compareJob() const { return m_compareJob; }
    static QString shortcutsHtml();
    static QString aboutHtml();

signals:
    // The open trace's timeline is drawn; its analyses are still running (documentChanged follows).
    void firstFrameShown();
    // A trace is open with every analysis in.
    void documentChanged();
    void rangeAggregated();
    void comparisonChanged(); // a compared trace shown, or the comparison closed

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void setDocument(std::shared_ptr<const TraceDocument> document);    // a new trace
    void updateAnalyses(std::shared_ptr<const TraceDocument> document); // the same trace, more analyses
    void showAnalyses();                                                // the docks, from m_doc
    void documentComplete();
    void alignMemoryPanel();
    QDockWidget* addCompareDock(QDockWidget* neighbour);
    QDockWidget* addStepsDock(QDockWidget* neighbour);
    void showLoadProgress(qint64 bytesRead, qint64 bytesTotal, qint64 events);
    void updateFigures();
    void onLoadFailed(const QString& path, const QString& message, qint64 completeEventsBefore);
    void onEventSelected(uint32_t event);
    void onKeySelected(const QString& key, tilescope::stats::DeviceType device);
    void showFindingPlace(const tilescope::findings::Finding& finding, int place);
    void search(bool forward);
    void rememberRecent(const QString& path);
    void forgetRecent(const QString& path);
    void rebuildRecentMenu();

    TraceLoadJob* m_job;
    std::shared_ptr<const TraceDocument> m_doc;
    TimelineView* m_timeline;
    DetailsPanel* m_details;
    RooflinePanel* m_roofline;
    MemoryPanel* m_memory;
    MemoryEventsPanel* m_memoryEvents;
    SnapshotView* m_snapshotView;
    QDockWidget* m_snapshotDock = nullptr;
    WorkerJob m_memoryFileJob; // newest request wins
    WorkerJob m_reportJob;     // File > Export Report: findings, rendering and writing
    KeyAveragesPanel* m_keyAverages;
    QDockWidget* m_keyAveragesDock = nullptr;
    FindingsPanel* m_findings;
    bool m_rangeFromFinding = false; // the timeline's range is a finding's place: its findings stay shown
    QLineEdit* m_search;
    QByteArray m_defaultLayout;   // saveState() once the docks first have their sizes
    void applyDefaultDockSizes(); // the right column's and the table's first heights, for the window's height
    QLabel* m_figures;
    std::optional<QString> m_profilerRangeText; // trace::profilerRangeText of m_doc, once it is asked (reset with it)
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QMenu* m_recentMenu;
    QTimer* m_figuresTimer;
    ProfileDialog* m_profileDialog = nullptr;
    QString m_screenshotPath;
    // Steps and compare (issue #13).
    StepsPanel* m_steps = nullptr;
    TraceLoadJob* m_compareJob = nullptr;
    std::shared_ptr<const TraceDocument> m_compared;
    ComparedTimeline* m_comparedTimeline = nullptr;
    QAction* m_closeComparison = nullptr;
    RanksPanel* m_ranks = nullptr;
    QDockWidget* m_ranksDock = nullptr;
    RanksLoadJob* m_ranksJob = nullptr;
    qint64 m_rankToShow = -1;
    QDockWidget* addRanksDock(QDockWidget* neighbour);
};
