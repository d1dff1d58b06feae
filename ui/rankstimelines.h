// SPDX-License-Identifier: MIT
#pragma once

#include "workerjob.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QVBoxLayout;
class TimelineView;
struct TraceDocument;

// Every rank's timeline one under the other, each under a "rank N" header, on one time axis: zooming or
// panning one moves them all (issue #13; the ranks' clocks are taken as one, as on one host). The
// documents are built on a worker thread, the ranks in parallel. A stand-in for one timeline that groups
// every rank's lanes: each rank keeps its own view with its own busy lanes and scroll bar.
class RanksTimelines : public QWidget
{
    Q_OBJECT
public:
    struct Rank
    {
        qint64 rank = 0;
        QString file;
        bool straggler = false;
    };

    explicit RanksTimelines(QWidget* parent = nullptr);
    void setRanks(const std::vector<Rank>& ranks);
    const std::vector<TimelineView*>& views() const { return m_views; }

signals:
    void loaded();
    void failed(const QString& message);

private:
    void showDocuments(const std::vector<Rank>& ranks, const std::vector<std::shared_ptr<const TraceDocument>>& documents);

    WorkerJob m_job;
    QVBoxLayout* m_layout;
    QLabel* m_status;
    std::vector<TimelineView*> m_views;
    std::vector<QWidget*> m_rows;
    bool m_syncing = false;
};
