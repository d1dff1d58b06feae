// SPDX-License-Identifier: MIT
#include "session/childprocess.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tilescope::session {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Splits a byte stream into lines; a final unterminated piece is flushed at the end.
struct LineBuffer
{
    std::string pending;
    bool isStderr = false;

    void feed(const char* data, size_t n, const std::function<void(const std::string&, bool)>& onLine)
    {
        pending.append(data, n);
        size_t start = 0;
        for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
            size_t end = nl;
            if (end > start && pending[end - 1] == '\r')
                --end;
            if (onLine)
                onLine(pending.substr(start, end - start), isStderr);
        }
        pending.erase(0, start);
    }
    void flush(const std::function<void(const std::string&, bool)>& onLine)
    {
        if (!pending.empty() && onLine)
            onLine(pending, isStderr);
        pending.clear();
    }
};

std::vector<std::string> mergedEnvironment(const std::vector<std::pair<std::string, std::string>>& extra)
{
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry(*e);
        const std::string name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const auto& [k, v] : extra)
            replaced = replaced || k == name;
        if (!replaced)
            out.push_back(entry);
    }
    for (const auto& [k, v] : extra)
        out.push_back(k + "=" + v);
    return out;
}

void signalGroup(pid_t pgid, int sig)
{
    if (pgid > 0)
        ::kill(-pgid, sig);
}

} // namespace

ChildOutcome runChild(const ChildSpec& spec, const std::function<void(const std::string&, bool)>& onLine, const std::atomic<bool>* cancel,
                      double timeoutSeconds, double graceSeconds)
{
    ChildOutcome outcome;
    if (spec.argv.empty()) {
        outcome.startError = "no program to run";
        return outcome;
    }
    int outPipe[2], errPipe[2], execPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0 || ::pipe2(errPipe, O_CLOEXEC) != 0 || ::pipe2(execPipe, O_CLOEXEC) != 0) {
        outcome.startError = std::string("cannot create pipes: ") + std::strerror(errno);
        return outcome;
    }
    // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
    std::vector<std::string> envStrings = mergedEnvironment(spec.environment);
    std::vector<char*> envp, argv;
    for (std::string& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = spec.argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();

    const auto t0 = Clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        outcome.startError = std::string("fork failed: ") + std::strerror(errno);
        return outcome;
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // if TileScope dies, its session child dies with it
        if (::getppid() != parent)
            ::_exit(127);
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            ::dup2(devnull, 0);
        int err = 0;
        char kind = 'x'; // tells the parent why: 'c' chdir failed, 'x' exec failed; errno follows
        if (!spec.workingDirectory.empty() && ::chdir(spec.workingDirectory.c_str()) != 0) {
            err = errno;
            kind = 'c';
        } else {
            ::execvpe(argv[0], argv.data(), envp.data());
            err = errno;
        }
        char msg[1 + sizeof(int)];
        msg[0] = kind;
        std::memcpy(msg + 1, &err, sizeof(int));
        [[maybe_unused]] ssize_t w = ::write(execPipe[1], msg, sizeof msg);
        ::_exit(127);
    }
    ::setpgid(pid, pid); // also in the parent, so the group exists before we might signal it
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    ::close(execPipe[1]);
    char msg[1 + sizeof(int)];
    const ssize_t got = ::read(execPipe[0], msg, sizeof msg);
    ::close(execPipe[0]);
    if (got == static_cast<ssize_t>(sizeof msg)) {
        int err = 0;
        std::memcpy(&err, msg + 1, sizeof(int));
        ::waitpid(pid, nullptr, 0);
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        outcome.startError = msg[0] == 'c' ? "cannot enter working directory '" + spec.workingDirectory + "': " + std::strerror(err)
                                           : "cannot run '" + spec.argv[0] + "': " + std::strerror(err);
        return outcome;
    }
    outcome.started = true;

    LineBuffer outLines, errLines;
    errLines.isStderr = true;
    pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
    bool open[2] = {true, true};
    bool exitedMain = false;
    int status = 0;
    double killAt = -1; // when SIGKILL follows the SIGTERM we sent
    bool killed = false;
    char buffer[65536];
    for (;;) {
        if (!exitedMain && ::waitpid(pid, &status, WNOHANG) == pid) {
            exitedMain = true;
            // Grandchildren left in the group would keep our pipes open and outlive the session.
            signalGroup(pid, SIGKILL);
        }
        if (exitedMain && !open[0] && !open[1])
            break;
        const double now = since(t0);
        if (!exitedMain && killAt < 0) {
            const bool wantCancel = cancel && cancel->load();
            const bool wantTimeout = timeoutSeconds > 0 && now > timeoutSeconds;
            if (wantCancel || wantTimeout) {
                outcome.cancelled = wantCancel;
                outcome.timedOut = !wantCancel && wantTimeout;
                signalGroup(pid, SIGTERM);
                killAt = now + graceSeconds;
            }
        }
        if (!exitedMain && killAt >= 0 && !killed && now > killAt) {
            signalGroup(pid, SIGKILL);
            killed = true;
        }
        for (int i = 0; i < 2; ++i)
            fds[i].fd = open[i] ? (i == 0 ? outPipe[0] : errPipe[0]) : -1;
        const int ready = ::poll(fds, 2, exitedMain ? 50 : 100);
        if (ready < 0 && errno != EINTR)
            break;
        bool progressed = false;
        for (int i = 0; i < 2; ++i) {
            if (!open[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                (i == 0 ? outLines : errLines).feed(buffer, static_cast<size_t>(n), onLine);
                progressed = true;
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                open[i] = false;
            }
        }
        // After the main process is gone and the group killed, a pipe with no news is finished.
        if (exitedMain && !progressed && ready == 0)
            break;
    }
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    outLines.flush(onLine);
    errLines.flush(onLine);
    if (!exitedMain)
        ::waitpid(pid, &status, 0);
    signalGroup(pid, SIGKILL);
    outcome.seconds = since(t0);
    if (WIFEXITED(status)) {
        outcome.exited = true;
        outcome.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        outcome.signal = WTERMSIG(status);
    }
    return outcome;
}

} // namespace tilescope::session
