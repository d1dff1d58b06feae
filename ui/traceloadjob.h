// SPDX-License-Identifier: MIT
#pragma once

#include "workerjob.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

struct TraceDocument;

// Loads a trace on a worker thread with progress and cancel; results arrive as queued signals.
// Results of loads that were superseded or cancelled are dropped (WorkerJob).
class TraceLoadJob : public QObject
{
    Q_OBJECT
public:
    explicit TraceLoadJob(QObject* parent = nullptr);
    ~TraceLoadJob() override;

    // `bytes` non-empty: load from memory (the bundled sample), `path` only names it. `partial`: keep the
    // complete events before a truncation or syntax error (a crashed run's trace), with a warning.
    void start(const QString& path, const QByteArray& bytes = {}, bool partial = false);
    void cancel();
    bool isRunning() const { return m_worker.isRunning(); }
    // Tests: runs on the worker thread between firstFrame and the analyses (a slow analysis stand-in).
    void setBeforeAnalysesForTests(std::function<void()> hook) { m_beforeAnalyses = std::move(hook); }

signals:
    void progress(qint64 bytesRead, qint64 bytesTotal, qint64 events);
    // The events and lane index are in: enough to draw the timeline (the analyses are still empty).
    void firstFrame(std::shared_ptr<const TraceDocument> document);
    // The analyses after the first frame: `what` runs next, `done` of `total` steps are done.
    void analysisProgress(int done, int total, const QString& what);
    // More analyses are in (the document shares the first frame's trace); finished brings the last.
    void analysed(std::shared_ptr<const TraceDocument> document);
    // The complete document, every analysis in.
    void finished(std::shared_ptr<const TraceDocument> document);
    // completeEventsBefore > 0: the file is damaged after that many whole events, which a partial load keeps.
    void failed(const QString& path, const QString& message, qint64 completeEventsBefore);
    void cancelled();

private:
    WorkerJob m_worker;
    std::function<void()> m_beforeAnalyses;
};
