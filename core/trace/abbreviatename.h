// SPDX-License-Identifier: MIT
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::trace {

// Shorter forms of a demangled C++ name (a kernel's signature), each shorter than the one before, that
// keep what tells similar kernels apart. Cutting the end or the middle of
// "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, …>(…)"
// leaves six rows that read the same; dropping the return type, the parameter list and namespace
// qualifiers first, then template arguments from the innermost level out, keeps the kernel's own name and
// its outer arguments visible for as long as possible. Names without those parts give no forms.
std::vector<std::string> nameAbbreviations(std::string_view name);

// A name for a line of text: itself when at most `width` characters, else its first abbreviation that fits,
// else its shortest; with no structure to drop, its start and end around " ... " (which tell names apart best).
// The text outputs (summary's table aside, which cuts as torch does), the report and the findings use it.
std::string shortenedName(std::string_view name, size_t width);

// Long names shortened wherever they appear in texts (a finding's title naming its kernel, a report's
// paragraphs): add() the names, then apply() to each text. Longer names go first, so a name that holds
// another is replaced whole.
class NameShortener
{
public:
    explicit NameShortener(size_t width)
        : m_width(width)
    { }
    void add(std::string_view name);
    // `text` with every added name longer than the width replaced by shortenedName; the indices into names()
    // of those replaced go to `used` when given.
    std::string apply(std::string text, std::set<size_t>* used = nullptr) const;
    const std::vector<std::pair<std::string, std::string>>& names() const { return m_names; } // full, short

private:
    size_t m_width;
    std::vector<std::pair<std::string, std::string>> m_names;
};

} // namespace tilescope::trace
