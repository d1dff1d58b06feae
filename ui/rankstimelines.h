// SPDX-License-Identifier: MIT
#pragma once

#include "workerjob.h"

#include <QWidget>

#include <memory>
#include <vector>

class DetailsPanel;
class QLabel;
class TimelineView;
struct TraceDocument;

// Every rank's lanes in one timeline (issue #13: "the timeline groups lanes per rank"): a foldable "rank N"
// header per rank, the straggler's amber, then that rank's busy, stream and thread lanes, all on one time
// axis with one scroll bar (the ranks' clocks are taken as one, as on one host). A click selects the event
// in its rank's trace and the details below show it. The documents are built on a worker thread, the ranks
// in parallel.
class RanksTimelines : public QWidget
{
    Q_OBJECT
public:
    struct Rank
    {
        qint64 rank = 0;
        QString file;
        bool straggler = false;
        QString evidence; // the figure the verdict rests on, for its header ("in collectives 8.5ms/step, 0.45x the others")
    };

    explicit RanksTimelines(QWidget* parent = nullptr);
    void setRanks(const std::vector<Rank>& ranks);
    TimelineView* timeline() const { return m_timeline; }
    DetailsPanel* details() const { return m_details; }
    const std::vector<Rank>& ranks() const { return m_ranks; } // as shown, the groups' order

signals:
    void loaded();
    void failed(const QString& message);

private:
    void showDocuments(const std::vector<Rank>& ranks, const std::vector<std::shared_ptr<const TraceDocument>>& documents);

    WorkerJob m_job;
    QLabel* m_status;
    TimelineView* m_timeline;
    DetailsPanel* m_details;
    std::vector<Rank> m_ranks;
    std::vector<std::shared_ptr<const TraceDocument>> m_documents; // the groups' documents
    QString m_hint;                                                // the status line while nothing is selected
    int m_detailsGroup = -1;                                       // whose document the details read
};
