// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>

class LaunchesModel;
class QLabel;
class QTableView;
struct TraceDocument;

// The Launches dock: analysis::computeLaunchStats of the whole trace - per-stream distributions of CPU
// duration, GPU duration and launch delay above, the outliers below. Double-clicking an outlier asks for
// its kernel to be selected and centred in the timeline (eventActivated).
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
    QString headerText() const;

signals:
    void eventActivated(uint32_t event);

private:
    LaunchesModel* m_distributions;
    LaunchesModel* m_outliers;
    QTableView* m_distributionTable;
    QTableView* m_outlierTable;
    QLabel* m_header;
};
