// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilescope::session {

// Command lines as a POSIX shell reads them, without expansion. The one place that quotes and splits
// arguments: logs, error messages, the Profile dialog's argument field and saved configs all agree.

// "cmd 'a b' 'it'\''s'": each argument that is not plain (letters, digits and _-+=/.,:@%) goes in single
// quotes, a ' inside as '\''; an empty argument is ''. splitCommandLine(shellQuoted(v)) == v.
std::string shellQuoted(const std::vector<std::string>& argv);

// Splits TEXT into words the way sh does, quoting only: 'single' quotes keep everything literally,
// "double" quotes keep all but \" \\ \$ \` (backslash-escaped), and outside quotes a backslash keeps the
// next character. $ and globs are plain characters (nothing is expanded). An unclosed quote runs to the end.
std::vector<std::string> splitCommandLine(std::string_view text);

} // namespace tilescope::session
