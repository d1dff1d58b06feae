// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// A C/CUDA text lexer just deep enough for counting call sites in generated sources (roofline.md §7.4):
// comments, literals and preprocessor lines blanked, asm() strings kept apart, brackets matched.
namespace tilescope::roofline::cudalexer {

inline bool isIdentChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
inline bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The text with comments, literals and preprocessor lines blanked (newlines kept, so offsets and line
// numbers still hold), and what was blanked.
struct Cleaned
{
    enum class Kind { Comment, Preprocessor, String };
    struct Piece
    {
        Kind kind;
        size_t pos;
        std::string text;
    };
    std::string code;
    std::vector<Piece> removed;                           // not evidence: only for the "mentioned but never called" caveats
    std::vector<Piece> asmTexts;                          // string literals inside asm(...): inline PTX, a real call site
    std::vector<std::pair<size_t, std::string>> includes; // offset of the #include line, its target
};
Cleaned clean(std::string_view text);

// 1-based line numbers of offsets.
struct LineIndex
{
    std::vector<size_t> newlines;
    explicit LineIndex(std::string_view text)
    {
        for (size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n')
                newlines.push_back(i);
    }
    int line(size_t pos) const { return int(std::lower_bound(newlines.begin(), newlines.end(), pos) - newlines.begin()) + 1; }
};

// The first position from `i` that is not white space.
size_t skipSpaces(const std::string& s, size_t i);
// The position after the bracket closing the one at `open` ('(', '{' or '['), or npos.
size_t matchClose(const std::string& s, size_t open);
// After '<' at `open`: the position after its '>', or npos when this is not a template argument list.
size_t matchAngle(const std::string& s, size_t open);
// "64, tl::foo<1, 2>, (a, b)" -> {"64", "tl::foo<1, 2>", "(a, b)"}, each trimmed.
std::vector<std::string> splitTemplateArguments(std::string_view args);

} // namespace tilescope::roofline::cudalexer
