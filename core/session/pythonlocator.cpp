// SPDX-License-Identifier: MIT
#include "session/pythonlocator.h"

#include "session/childprocess.h"
#include "session/sessionconfig.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace tilescope::session {

namespace fs = std::filesystem;

PythonCandidates pythonCandidatesFromEnvironment()
{
    PythonCandidates c;
    const auto binPython = [](const char* variable) {
        const char* prefix = std::getenv(variable);
        return prefix && *prefix ? (fs::path(prefix) / "bin" / "python").string() : std::string();
    };
    c.virtualEnv = binPython("VIRTUAL_ENV");
    c.condaPrefix = binPython("CONDA_PREFIX");
    return c;
}

bool pythonHasTorch(const std::string& python)
{
    ChildSpec spec;
    spec.argv = {python, "-c", "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('torch') else 1)"};
    const ChildOutcome outcome = runChild(
        spec, [](const std::string&, bool) {}, nullptr, 30);
    return outcome.started && outcome.exited && outcome.exitCode == 0;
}

TorchPython findTorchPython(const PythonCandidates& candidates)
{
    TorchPython found;
    found.python = candidates.onPath;
    const std::pair<std::string, const char*> order[] = {{candidates.onPath, "python3 on PATH"},
                                                         {candidates.virtualEnv, "the active virtualenv (VIRTUAL_ENV)"},
                                                         {candidates.condaPrefix, "the active conda env (CONDA_PREFIX)"},
                                                         {candidates.system, "the system python"}};
    for (const auto& [python, what] : order) {
        if (python.empty() || std::find(found.tried.begin(), found.tried.end(), python) != found.tried.end())
            continue;
        // A named path that is not there is not worth starting.
        if (python.find('/') != std::string::npos && !fs::exists(python))
            continue;
        found.tried.push_back(python);
        if (!pythonHasTorch(python))
            continue;
        found.python = python;
        found.hasTorch = true;
        if (python != candidates.onPath)
            found.note = candidates.onPath + " on PATH has no torch; using " + python + ", " + what;
        return found;
    }
    std::string tried;
    for (const std::string& python : found.tried)
        tried += (tried.empty() ? "" : ", ") + python;
    found.note = "no python with torch found (tried " + tried + "); name an interpreter that has torch";
    return found;
}

std::string resolveDefaultPython(SessionConfig& config)
{
    const bool runsPython = config.mode == SessionMode::Script || config.mode == SessionMode::Kernel
        || (config.mode == SessionMode::Command && config.command.find("{python}") != std::string::npos);
    if (!runsPython || config.python != PythonCandidates().onPath)
        return {};
    const TorchPython found = findTorchPython();
    config.python = found.python;
    return found.note;
}

} // namespace tilescope::session
