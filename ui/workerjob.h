// SPDX-License-Identifier: MIT
#pragma once

#include <QPointer>
#include <QThread>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

// The lifetime rule of every worker-thread job in the UI (trace loads, sessions, range aggregations):
// start(work) runs `work` on a new QThread; what the work posts back runs on the GUI thread, and only
// while that run is still the current one: not superseded by a newer start(), not dropped, its owner not
// destroyed. An owner keeps its WorkerJob as a member and may capture `this` in what it posts, because
// the WorkerJob dies with it and drops the run first. Only the GUI thread calls the WorkerJob itself.
class WorkerJob
{
    struct State
    {
        quint64 current = 0; // the generation whose deliveries still count (GUI thread only)
        bool running = false;
    };

public:
    enum class OnDestroy {
        Detach, // the thread finishes on its own; its results are dropped
        Wait,   // the destructor cancels and blocks until the thread has ended (a session's process group)
    };

    // What the work gets, on the worker thread.
    class Run
    {
    public:
        const std::atomic<bool>* cancelFlag() const { return m_cancel.get(); }
        bool isCancelled() const { return m_cancel->load(); }
        // Queues fn to the GUI thread; it runs there only if this run is still the current one.
        void post(std::function<void()> fn) const { deliver(std::move(fn), false); }
        // The same, for the run's last word: isRunning() is false by the time fn runs.
        void finish(std::function<void()> fn) const { deliver(std::move(fn), true); }

    private:
        friend class WorkerJob;
        void deliver(std::function<void()> fn, bool last) const;
        std::shared_ptr<State> m_state;
        quint64 m_generation = 0;
        std::shared_ptr<std::atomic<bool>> m_cancel;
    };

    explicit WorkerJob(OnDestroy onDestroy = OnDestroy::Detach)
        : m_onDestroy(onDestroy)
    { }
    ~WorkerJob();
    WorkerJob(const WorkerJob&) = delete;
    WorkerJob& operator=(const WorkerJob&) = delete;

    // Runs work(run) on a new thread. A run still in flight is cancelled and its deliveries dropped.
    void start(std::function<void(const Run&)> work);
    // Cancels the run in flight and drops its deliveries; true when there was one.
    bool drop();
    // Raises the run's cancel flag only: it still delivers, so it can say how it ended.
    void requestCancel();
    bool isRunning() const { return m_state->running; }

private:
    OnDestroy m_onDestroy;
    std::shared_ptr<State> m_state = std::make_shared<State>();
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::vector<QPointer<QThread>> m_threads; // for OnDestroy::Wait; each deletes itself when it finishes
};
