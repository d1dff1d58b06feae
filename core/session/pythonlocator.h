// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace tilescope::session {

// The interpreters a session may use when none was chosen, in the order they are tried.
struct PythonCandidates
{
    std::string onPath = "python3"; // whatever python3 the PATH finds
    std::string virtualEnv;         // $VIRTUAL_ENV (an active venv), empty when unset
    std::string condaPrefix;        // $CONDA_PREFIX (an active conda env), empty when unset
    std::string system = "/usr/bin/python3";
};
PythonCandidates pythonCandidatesFromEnvironment();

// Whether `python` starts and can import torch (importlib's find_spec: quick, torch is not imported).
bool pythonHasTorch(const std::string& python);

struct TorchPython
{
    std::string python; // the interpreter to use; candidates.onPath when none has torch
    bool hasTorch = false;
    std::vector<std::string> tried; // every interpreter asked, in order
    std::string note;               // for the user: which was used and why; empty when python3 on PATH has torch
};

// The first candidate with torch: python3 on PATH, the active venv's bin/python, the active conda env's
// bin/python, then /usr/bin/python3. Used when the user named no interpreter (the CLI's capture without
// --python, the Profile dialog's default).
TorchPython findTorchPython(const PythonCandidates& candidates = pythonCandidatesFromEnvironment());

struct SessionConfig;

// When `config` runs Python (script and kernel modes, a command with {python}) with the default
// interpreter, replaces it with findTorchPython()'s choice. Returns the note for the user, empty when
// nothing changed. The CLI's capture without --python and the Profile dialog's default both call it.
std::string resolveDefaultPython(SessionConfig& config);

} // namespace tilescope::session
