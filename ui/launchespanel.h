// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>

class LaunchesModel;
class QLabel;
class RowFitSplitter;
class QTabWidget;
class QTableView;
class SequencesModel;
struct TraceDocument;

// The Launches dock, two tabs over the whole trace: analysis::computeLaunchStats (per-stream distributions
// of CPU duration, GPU duration and launch delay above, the outliers below) and
// analysis::findKernelSequences (the repeated op -> kernel sequences, fusion candidates marked).
// Double-clicking an outlier or a sequence asks for its kernel (a sequence's first) to be selected and
// centred in the timeline (eventActivated).
class LaunchesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LaunchesPanel(QWidget* parent = nullptr);
    // A new trace (computed here: one pass over the events).
    void setDocument(std::shared_ptr<const TraceDocument> document);

    LaunchesModel* distributions() const { return m_distributions; }
    LaunchesModel* outliers() const { return m_outliers; }
    QTableView* outlierTable() const { return m_outlierTable; }
    QTableView* distributionTable() const { return m_distributionTable; }
    SequencesModel* sequences() const { return m_sequences; }
    QTableView* sequenceTable() const { return m_sequenceTable; }
    QTabWidget* tabs() const { return m_tabs; }
    QString headerText() const;

signals:
    void eventActivated(uint32_t event);

private:
    LaunchesModel* m_distributions;
    LaunchesModel* m_outliers;
    QTableView* m_distributionTable;
    RowFitSplitter* m_split; // the figures over the outliers
    QTableView* m_outlierTable;
    QLabel* m_header;
    SequencesModel* m_sequences;
    QTableView* m_sequenceTable;
    QLabel* m_sequenceHeader;
    QTabWidget* m_tabs;
};
