// SPDX-License-Identifier: MIT
#include "workerjob.h"

#include <QCoreApplication>

#include <algorithm>

void WorkerJob::Run::deliver(std::function<void()> fn, bool last) const
{
    // Posted to the application object, which outlives every owner; the generation check on the GUI
    // thread decides whether the owner (and so this WorkerJob) still wants it.
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [state = m_state, generation = m_generation, fn = std::move(fn), last] {
            if (state->current != generation)
                return;
            if (last)
                state->running = false;
            fn();
        },
        Qt::QueuedConnection);
}

WorkerJob::~WorkerJob()
{
    drop();
    if (m_onDestroy == OnDestroy::Wait)
        for (const QPointer<QThread>& thread : m_threads)
            if (thread)
                thread->wait();
}

void WorkerJob::start(std::function<void(const Run&)> work)
{
    drop();
    Run run;
    run.m_state = m_state;
    run.m_generation = ++m_state->current;
    run.m_cancel = m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_state->running = true;
    QThread* thread = QThread::create([work = std::move(work), run] { work(run); });
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    std::erase_if(m_threads, [](const QPointer<QThread>& t) { return t.isNull(); });
    m_threads.emplace_back(thread);
    thread->start();
}

bool WorkerJob::drop()
{
    requestCancel();
    ++m_state->current; // whatever the old run still posts is stale now
    const bool wasRunning = m_state->running;
    m_state->running = false;
    return wasRunning;
}

void WorkerJob::requestCancel()
{
    if (m_cancel)
        m_cancel->store(true);
}
