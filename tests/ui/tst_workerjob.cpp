// SPDX-License-Identifier: MIT
// WorkerJob, the UI's one worker-thread lifetime rule: only the current run delivers, on the GUI thread.
#include "workerjob.h"

#include <QCoreApplication>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

class TestWorkerJob : public QObject
{
    Q_OBJECT
private slots:
    void deliversOnTheGuiThreadAndEnds()
    {
        WorkerJob job;
        bool onGuiThread = false;
        int posts = 0;
        bool finished = false;
        job.start([&](const WorkerJob::Run& run) {
            run.post([&] { ++posts; });
            run.post([&] { ++posts; });
            run.finish([&] {
                onGuiThread = QThread::currentThread() == QCoreApplication::instance()->thread();
                finished = true;
            });
        });
        QVERIFY(job.isRunning());
        QTRY_VERIFY(finished);
        QCOMPARE(posts, 2);
        QVERIFY(onGuiThread);
        QVERIFY(!job.isRunning());
    }

    void newestRunWins()
    {
        WorkerJob job;
        std::atomic<bool> release{false};
        std::atomic<bool> firstSawCancel{false};
        QList<int> delivered;
        job.start([&](const WorkerJob::Run& run) {
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            firstSawCancel = run.isCancelled();
            run.finish([&] { delivered << 1; });
        });
        job.start([&](const WorkerJob::Run& run) { run.finish([&] { delivered << 2; }); });
        release = true;
        QTRY_VERIFY(!job.isRunning());
        QTest::qWait(50); // the first run's late result must not arrive
        QCOMPARE(delivered, QList<int>{2});
        QVERIFY(firstSawCancel);
    }

    void droppedRunsDeliverNothing()
    {
        WorkerJob job;
        std::atomic<bool> release{false};
        bool delivered = false;
        job.start([&](const WorkerJob::Run& run) {
            while (!release)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            run.finish([&] { delivered = true; });
        });
        QVERIFY(job.drop());
        QVERIFY(!job.drop()); // nothing in flight any more
        release = true;
        QTest::qWait(100);
        QVERIFY(!delivered);
    }

    void requestCancelStillDelivers()
    {
        WorkerJob job;
        bool sawCancel = false, delivered = false;
        std::atomic<bool> started{false};
        job.start([&](const WorkerJob::Run& run) {
            started = true;
            while (!run.isCancelled())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            run.finish([&, cancelled = run.isCancelled()] {
                sawCancel = cancelled;
                delivered = true;
            });
        });
        QTRY_VERIFY(started);
        job.requestCancel();
        QTRY_VERIFY(delivered);
        QVERIFY(sawCancel);
    }

    void destroyedOwnerGetsNothingAndWaitWaits()
    {
        auto delivered = std::make_shared<bool>(false);
        std::atomic<bool> ended{false};
        {
            WorkerJob job(WorkerJob::OnDestroy::Wait);
            job.start([&ended, delivered](const WorkerJob::Run& run) {
                while (!run.isCancelled())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                run.finish([delivered] { *delivered = true; });
                ended = true;
            });
        }
        QVERIFY(ended); // the destructor cancelled the run and waited for it
        QTest::qWait(50);
        QVERIFY(!*delivered);
    }
};

QTEST_MAIN(TestWorkerJob)
#include "tst_workerjob.moc"
