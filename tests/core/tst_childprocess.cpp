// SPDX-License-Identifier: MIT
// The session child process: streamed lines, exit status, start errors, cancel, timeout, no orphans.
#include "session/childprocess.h"
#include "testutil.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <thread>

using namespace tilescope::session;

namespace {

struct Captured
{
    std::vector<std::string> out, err;
    std::function<void(const std::string&, bool)> sink()
    {
        return [this](const std::string& line, bool isStderr) { (isStderr ? err : out).push_back(line); };
    }
};

// A pid is gone when /proc no longer lists it, or lists it as a zombie about to be reaped by init.
bool processGone(pid_t pid)
{
    for (int i = 0; i < 100; ++i) {
        if (::kill(pid, 0) != 0)
            return true;
        if (testutil::isZombie("/proc/" + std::to_string(pid)))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

} // namespace

class TestChildProcess : public QObject
{
    Q_OBJECT

private slots:
    void streamsLinesAndExitCode()
    {
        Captured c;
        const ChildOutcome o = runChild({{"sh", "-c", "echo one; echo two >&2; printf 'three'; exit 7"}, {}, {}}, c.sink());
        QVERIFY(o.started);
        QVERIFY(o.exited);
        QCOMPARE(o.exitCode, 7);
        QCOMPARE(c.out, (std::vector<std::string>{"one", "three"}));
        QCOMPARE(c.err, std::vector<std::string>{"two"});
    }

    void passesEnvironmentAndWorkingDirectory()
    {
        Captured c;
        const std::string dir = std::filesystem::temp_directory_path().string();
        const ChildOutcome o = runChild({{"sh", "-c", "echo $TILESCOPE_TEST_VALUE; pwd"}, dir, {{"TILESCOPE_TEST_VALUE", "a b"}}},
                                        c.sink());
        QCOMPARE(o.exitCode, 0);
        QCOMPARE(c.out.size(), size_t(2));
        QCOMPARE(c.out[0], std::string("a b"));
        QCOMPARE(std::filesystem::canonical(c.out[1]), std::filesystem::canonical(dir));
    }

    void missingProgramIsAClearStartError()
    {
        const ChildOutcome o = runChild({{"tilescope-no-such-program"}, {}, {}}, nullptr);
        QVERIFY(!o.started);
        QVERIFY2(o.startError.find("cannot run 'tilescope-no-such-program'") != std::string::npos, o.startError.c_str());
        QVERIFY2(o.startError.find("No such file") != std::string::npos, o.startError.c_str());
    }

    void missingWorkingDirectoryIsAClearStartError()
    {
        const ChildOutcome o = runChild({{"true"}, "/nonexistent/tilescope", {}}, nullptr);
        QVERIFY(!o.started);
        QVERIFY2(o.startError.find("/nonexistent/tilescope") != std::string::npos, o.startError.c_str());
    }

    void reportsTheSignalThatEndedIt()
    {
        const ChildOutcome o = runChild({{"sh", "-c", "kill -SEGV $$"}, {}, {}}, nullptr);
        QVERIFY(o.started);
        QVERIFY(!o.exited);
        QCOMPARE(o.signal, SIGSEGV);
    }

    void cancelEndsTheWholeGroup()
    {
        std::atomic<bool> cancel{false};
        pid_t grandchild = 0;
        const ChildOutcome o = runChild(
            {{"sh", "-c", "sleep 300 & echo $!; sleep 300"}, {}, {}},
            [&](const std::string& line, bool) {
                grandchild = static_cast<pid_t>(std::stol(line));
                cancel = true;
            },
            &cancel);
        QVERIFY(o.cancelled);
        QVERIFY(!o.timedOut);
        QVERIFY(o.seconds < 10);
        QVERIFY(grandchild > 0);
        QVERIFY2(processGone(grandchild), "the background sleep survived the cancel");
    }

    void timeoutEndsIt()
    {
        const ChildOutcome o = runChild({{"sleep", "300"}, {}, {}}, nullptr, nullptr, 0.5);
        QVERIFY(o.timedOut);
        QVERIFY(!o.cancelled);
        QVERIFY(o.seconds < 5);
        QCOMPARE(o.signal, SIGTERM);
    }

    void ignoringSigtermStillEndsAfterTheGrace()
    {
        const ChildOutcome o = runChild({{"sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.1; done"}, {}, {}}, nullptr,
                                        nullptr, 0.3, 0.5);
        QVERIFY(o.timedOut);
        QCOMPARE(o.signal, SIGKILL);
        QVERIFY(o.seconds < 5);
    }

    void leftoverBackgroundProcessesAreEnded()
    {
        Captured c;
        // The main process exits at once, leaving a sleep that holds our stdout pipe open.
        const ChildOutcome o = runChild({{"sh", "-c", "sleep 300 & echo $!"}, {}, {}}, c.sink());
        QCOMPARE(o.exitCode, 0);
        QVERIFY(o.seconds < 10);
        QCOMPARE(c.out.size(), size_t(1));
        QVERIFY2(processGone(static_cast<pid_t>(std::stol(c.out[0]))), "an orphan outlived the session");
    }
};

QTEST_APPLESS_MAIN(TestChildProcess)
#include "tst_childprocess.moc"
