// SPDX-License-Identifier: MIT
#include "trace/abbreviatename.h"

#include <algorithm>
#include <cctype>

namespace tilescope::trace {

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6"; // U+2026

// Nesting depth of '<' '(' '[' brackets before each character; nullopt-like -1 when unbalanced (an
// operator< in the name, say), so callers leave the name alone.
int maxDepth(std::string_view s)
{
    int depth = 0, deepest = 0;
    for (const char c : s) {
        if (c == '<' || c == '(' || c == '[')
            deepest = std::max(deepest, ++depth);
        else if (c == '>' || c == ')' || c == ']')
            if (--depth < 0)
                return -1;
    }
    return depth == 0 ? deepest : -1;
}

// Replaces the contents of every bracket pair opened at nesting `level` (1 = outermost) with "…".
std::string collapseLevel(std::string_view s, int level)
{
    std::string out;
    out.reserve(s.size());
    int depth = 0;
    for (const char c : s) {
        const bool open = c == '<' || c == '(' || c == '[';
        const bool close = c == '>' || c == ')' || c == ']';
        if (close)
            --depth;
        if (depth < level)
            out += c;
        if (open && ++depth == level)
            out += kEllipsis;
    }
    return out;
}

// Drops a trailing top-level parameter list: "f<T>(int, float)" -> "f<T>(…)".
std::string collapseParameters(std::string_view s)
{
    if (s.empty() || s.back() != ')')
        return std::string(s);
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
        if (s[i] == ')' || s[i] == '>' || s[i] == ']')
            ++depth;
        else if ((s[i] == '(' || s[i] == '<' || s[i] == '[') && --depth == 0)
            return s[i] == '(' && i > 0 ? std::string(s.substr(0, i + 1)) + std::string(kEllipsis) + ")" : std::string(s);
    }
    return std::string(s);
}

bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Removes namespace and class qualifiers ("at::native::", "(anonymous namespace)::") everywhere.
std::string dropQualifiers(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
        static constexpr std::string_view anonymous = "(anonymous namespace)::";
        if (s.substr(i).starts_with(anonymous)) {
            i += anonymous.size();
            continue;
        }
        if (isIdentifierChar(s[i])) {
            size_t end = i;
            while (end < s.size() && isIdentifierChar(s[end]))
                ++end;
            if (s.substr(end).starts_with("::")) {
                i = end + 2;
                continue;
            }
            out.append(s.substr(i, end - i));
            i = end;
            continue;
        }
        out += s[i++];
    }
    return out;
}

std::string tidySpaces(std::string s)
{
    size_t at;
    while ((at = s.find("> >")) != std::string::npos)
        s.erase(at + 1, 1);
    return s;
}

} // namespace

std::vector<std::string> nameAbbreviations(std::string_view name)
{
    std::vector<std::string> forms;
    auto add = [&](std::string form) {
        form = tidySpaces(std::move(form));
        const std::string_view previous = forms.empty() ? name : std::string_view(forms.back());
        if (form.size() < previous.size())
            forms.push_back(std::move(form));
    };
    std::string s(name);
    if (s.starts_with("void ") && s.find('(') != std::string::npos)
        s.erase(0, 5);
    add(s);
    if (maxDepth(s) <= 0) // unbalanced (an operator<), or a plain name such as aten::mm: leave it whole
        return forms;
    add(collapseParameters(forms.empty() ? s : forms.back()));
    add(dropQualifiers(forms.empty() ? s : forms.back()));
    const std::string base = forms.empty() ? s : forms.back();
    for (int level = maxDepth(base); level >= 1; --level)
        add(collapseLevel(base, level));
    return forms;
}

} // namespace tilescope::trace
