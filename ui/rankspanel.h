// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>

class QLabel;
class QTableView;
class QPushButton;
class RanksModel;
class RanksTimelines;

namespace tilescope::analysis {
struct RanksReport;
}

// The Ranks dock: the verdict and its rule over the per-rank table (RanksModel). Activating a row (double
// click, Enter) asks for that rank's timeline.
class RanksPanel : public QWidget
{
    Q_OBJECT
public:
    explicit RanksPanel(QWidget* parent = nullptr);
    // Null: no folder of ranks (the dock says how to open one).
    void setReport(std::shared_ptr<const tilescope::analysis::RanksReport> report);
    static QString introText();
    RanksModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLabel* verdict() const { return m_verdict; }
    // "All Ranks' Timelines": every rank's timeline one under the other in a window of their own.
    QPushButton* allTimelinesButton() const { return m_allTimelines; }
    RanksTimelines* timelinesWindow() const { return m_timelinesWindow; }
    // The timeline now shows `file`: its rank's row is selected and returned; -1 when it is no rank of the set.
    qint64 markShown(const QString& file);

signals:
    void rankActivated(const QString& file, qint64 rank);

private:
    RanksModel* m_model;
    QLabel* m_verdict;
    QTableView* m_table;
    QPushButton* m_allTimelines;
    RanksTimelines* m_timelinesWindow = nullptr;
};
