// SPDX-License-Identifier: MIT
#pragma once

#include "workerjob.h"

#include <QObject>
#include <QString>

#include <memory>

namespace tilescope::analysis {
struct RanksReport;
}

// Loads a folder of per-rank traces (trace::loadRankSet: in parallel, on all cores) and computes the
// per-rank figures on a worker thread; the traces are dropped once the figures are made (a rank's
// timeline opens its file). Superseded or cancelled runs deliver nothing (WorkerJob).
class RanksLoadJob : public QObject
{
    Q_OBJECT
public:
    explicit RanksLoadJob(QObject* parent = nullptr);
    void start(const QString& folder);
    void cancel();
    bool isRunning() const { return m_worker.isRunning(); }

signals:
    void progress(qint64 bytesRead, qint64 bytesTotal);
    void finished(const QString& folder, std::shared_ptr<const tilescope::analysis::RanksReport> report);
    void failed(const QString& folder, const QString& message);
    void cancelled();

private:
    WorkerJob m_worker;
};
