// SPDX-License-Identifier: MIT
#include "sessionjob.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>

using namespace tilescope::session;

SessionJob::SessionJob(QObject* parent)
    : QObject(parent)
{
}

SessionJob::~SessionJob()
{
    if (m_thread) {
        m_cancel->store(true);
        m_thread->wait();
        delete m_thread;
    }
}

SessionTools SessionJob::applicationTools()
{
    return locateSessionTools(QCoreApplication::applicationFilePath().toStdString());
}

void SessionJob::start(const SessionConfig& config, const SessionTools& tools)
{
    if (m_thread)
        return;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    const auto cancelFlag = m_cancel;
    QPointer<SessionJob> self(this);
    m_thread = QThread::create([self, config, tools, cancelFlag] {
        const auto onEvent = [self](const SessionEvent& e) {
            if (!self)
                return;
            const QString message = QString::fromStdString(e.message);
            switch (e.kind) {
            case SessionEvent::Kind::Phase:
                QMetaObject::invokeMethod(self, [self, e, message] {
                    if (self)
                        emit self->phase(QString::fromStdString(e.phase), e.step, e.of, message);
                }, Qt::QueuedConnection);
                break;
            case SessionEvent::Kind::Log:
            case SessionEvent::Kind::Error:
            case SessionEvent::Kind::Artifact:
            case SessionEvent::Kind::Result: {
                const bool isError = e.fromStderr || e.kind == SessionEvent::Kind::Error;
                QMetaObject::invokeMethod(self, [self, message, isError] {
                    if (self)
                        emit self->logLine(message, isError);
                }, Qt::QueuedConnection);
                break;
            }
            }
        };
        auto result = std::make_shared<const SessionResult>(runSession(config, tools, onEvent, cancelFlag.get()));
        if (self)
            QMetaObject::invokeMethod(self, [self, result] {
                if (!self)
                    return;
                self->m_thread->wait();
                delete self->m_thread;
                self->m_thread = nullptr;
                emit self->finished(result);
            }, Qt::QueuedConnection);
    });
    m_thread->start();
}

void SessionJob::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}
