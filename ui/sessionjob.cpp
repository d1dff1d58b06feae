// SPDX-License-Identifier: MIT
#include "sessionjob.h"

#include <QCoreApplication>

using namespace tilescope::session;

SessionJob::SessionJob(QObject* parent)
    : QObject(parent)
{ }

SessionJob::~SessionJob() = default; // m_worker cancels the session and waits for its thread

SessionTools SessionJob::applicationTools() { return locateSessionTools(QCoreApplication::applicationFilePath().toStdString()); }

void SessionJob::start(const SessionConfig& config, const SessionTools& tools)
{
    if (m_worker.isRunning())
        return;
    m_worker.start([this, config, tools](const WorkerJob::Run& run) {
        const auto onEvent = [this, run](const SessionEvent& e) {
            const QString message = QString::fromStdString(e.message);
            switch (e.kind) {
            case SessionEvent::Kind::Phase:
                run.post([this, e, message] { emit phase(QString::fromStdString(e.phase), e.step, e.of, message); });
                break;
            case SessionEvent::Kind::Log:
            case SessionEvent::Kind::Error:
            case SessionEvent::Kind::Artifact:
            case SessionEvent::Kind::Result: {
                const bool isError = e.fromStderr || e.kind == SessionEvent::Kind::Error;
                run.post([this, message, isError] { emit logLine(message, isError); });
                break;
            }
            }
        };
        auto result = std::make_shared<const SessionResult>(runSession(config, tools, onEvent, run.cancelFlag()));
        run.finish([this, result] { emit finished(result); });
    });
}

void SessionJob::cancel() { m_worker.requestCancel(); }
