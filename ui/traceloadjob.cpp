// SPDX-License-Identifier: MIT
#include "traceloadjob.h"

#include "io/tracefileerror.h"
#include "trace/traceloader.h"
#include "tracedocument.h"

#include <QPointer>
#include <QThread>

TraceLoadJob::TraceLoadJob(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const TraceDocument>>();
}

TraceLoadJob::~TraceLoadJob()
{
    if (m_cancel)
        *m_cancel = true;
}

void TraceLoadJob::start(const QString& path, const QByteArray& bytes, bool partial)
{
    cancel();
    const quint64 generation = ++m_generation;
    auto flag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = flag;
    m_running = true;
    QPointer<TraceLoadJob> self(this);
    auto deliver = [self, generation](auto fn) {
        if (!self)
            return;
        QMetaObject::invokeMethod(self, [self, generation, fn] {
            if (self && self->m_generation == generation) {
                self->m_running = false;
                fn(self.data());
            }
        }, Qt::QueuedConnection);
    };
    QThread* thread = QThread::create([=] {
        tilescope::trace::LoadOptions options;
        options.partial = partial;
        options.cancel = flag.get();
        options.progress = [self, generation](const tilescope::trace::LoadProgress& p) {
            if (!self)
                return;
            QMetaObject::invokeMethod(self, [self, generation, p] {
                if (self && self->m_generation == generation)
                    emit self->progress(qint64(p.inputBytesRead), qint64(p.inputBytesTotal), qint64(p.events));
            }, Qt::QueuedConnection);
        };
        try {
            auto document = TraceDocument::build(path, bytes, options);
            deliver([document](TraceLoadJob* job) { emit job->finished(document); });
        } catch (const tilescope::io::LoadCancelled&) {
            deliver([](TraceLoadJob* job) { emit job->cancelled(); });
        } catch (const tilescope::io::TraceFileError& e) {
            const QString message = QString::fromUtf8(e.what());
            const qint64 complete = qint64(e.completeEventsBefore());
            deliver([path, message, complete](TraceLoadJob* job) { emit job->failed(path, message, complete); });
        } catch (const std::exception& e) {
            const QString message = QString::fromUtf8(e.what());
            deliver([path, message](TraceLoadJob* job) { emit job->failed(path, message, 0); });
        }
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void TraceLoadJob::cancel()
{
    if (m_cancel)
        *m_cancel = true;
    if (m_running) {
        m_running = false;
        ++m_generation;
        emit cancelled();
    }
}
