// SPDX-License-Identifier: MIT
#pragma once

#include "session/sessionrunner.h"
#include "workerjob.h"

#include <QObject>
#include <QString>

#include <memory>

// Runs one profiling session (core's runSession, a child process group) on a worker thread; its
// progress and its end arrive as queued signals. Cancel ends the session's whole process group.
class SessionJob : public QObject
{
    Q_OBJECT
public:
    explicit SessionJob(QObject* parent = nullptr);
    ~SessionJob() override; // cancels and waits: no session outlives the window

    void start(const tilescope::session::SessionConfig& config, const tilescope::session::SessionTools& tools);
    void cancel();
    bool isRunning() const { return m_worker.isRunning(); }

    // The tools next to this application (harness, tilescope-torch).
    static tilescope::session::SessionTools applicationTools();

signals:
    void phase(const QString& phase, int step, int of, const QString& message);
    void logLine(const QString& line, bool isError);
    void finished(std::shared_ptr<const tilescope::session::SessionResult> result);

private:
    WorkerJob m_worker{WorkerJob::OnDestroy::Wait};
};
