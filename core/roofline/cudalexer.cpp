// SPDX-License-Identifier: MIT
#include "roofline/cudalexer.h"

namespace tilescope::roofline::cudalexer {

Cleaned clean(std::string_view text)
{
    Cleaned out;
    out.code.assign(text);
    std::string& code = out.code;
    const size_t n = text.size();
    auto blank = [&](size_t from, size_t to) {
        for (size_t k = from; k < to && k < n; ++k)
            if (code[k] != '\n')
                code[k] = ' ';
    };
    bool lineStart = true;
    bool asmKeyword = false; // saw asm/__asm__ (and qualifiers), waiting for its '('
    int depth = 0;
    int asmDepth = -1; // paren depth outside the asm statement while inside one
    size_t i = 0;
    while (i < n) {
        const char c = text[i];
        if (c == '\n') {
            lineStart = true;
            ++i;
            continue;
        }
        if (isSpace(c)) {
            ++i;
            continue;
        }
        if (lineStart && c == '#') {
            size_t end = i;
            while (end < n && text[end] != '\n')
                ++end;
            while (end < n && end > i && text[end - 1] == '\\') { // continued directive
                ++end;
                while (end < n && text[end] != '\n')
                    ++end;
            }
            const std::string line(text.substr(i, end - i));
            size_t word = line.find_first_not_of(" \t", 1);
            if (word != std::string::npos && line.compare(word, 7, "include") == 0) {
                const size_t open = line.find_first_of("<\"", word + 7);
                const size_t close = open == std::string::npos ? open : line.find_first_of(">\"", open + 1);
                if (close != std::string::npos)
                    out.includes.emplace_back(i, line.substr(open + 1, close - open - 1));
            }
            out.removed.push_back({Cleaned::Kind::Preprocessor, i, line});
            blank(i, end);
            i = end;
            continue;
        }
        lineStart = false;
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            size_t end = text.find('\n', i);
            end = end == std::string_view::npos ? n : end;
            out.removed.push_back({Cleaned::Kind::Comment, i, std::string(text.substr(i, end - i))});
            blank(i, end);
            i = end;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            size_t end = text.find("*/", i + 2);
            end = end == std::string_view::npos ? n : end + 2;
            out.removed.push_back({Cleaned::Kind::Comment, i, std::string(text.substr(i, end - i))});
            blank(i, end);
            i = end;
            continue;
        }
        if (c == '"') {
            size_t end;
            const bool raw = i > 0 && text[i - 1] == 'R'
                && (i < 2 || !isIdentChar(text[i - 2]) || text[i - 2] == '8' || text[i - 2] == 'u' || text[i - 2] == 'U'
                    || text[i - 2] == 'L');
            if (raw) {
                const size_t paren = text.find('(', i + 1);
                const std::string closing = paren == std::string_view::npos ? std::string("\"")
                                                                            : ")" + std::string(text.substr(i + 1, paren - i - 1)) + "\"";
                end = text.find(closing, paren == std::string_view::npos ? i + 1 : paren);
                end = end == std::string_view::npos ? n : end + closing.size();
            } else {
                end = i + 1;
                while (end < n && text[end] != '"' && text[end] != '\n')
                    end += text[end] == '\\' ? 2 : 1;
                end = std::min(n, end + 1);
            }
            Cleaned::Piece piece{Cleaned::Kind::String, i, std::string(text.substr(i, end - i))};
            (asmDepth >= 0 ? out.asmTexts : out.removed).push_back(std::move(piece));
            blank(i, end);
            i = end;
            asmKeyword = false;
            continue;
        }
        if (c == '\'' && !(i > 0 && isIdentChar(text[i - 1]))) { // not a digit separator (1'000)
            size_t end = i + 1;
            while (end < n && text[end] != '\'' && text[end] != '\n')
                end += text[end] == '\\' ? 2 : 1;
            end = std::min(n, end + 1);
            out.removed.push_back({Cleaned::Kind::String, i, std::string(text.substr(i, end - i))});
            blank(i, end);
            i = end;
            asmKeyword = false;
            continue;
        }
        if (isIdentStart(c) && !(i > 0 && isIdentChar(text[i - 1]))) {
            size_t end = i;
            while (end < n && isIdentChar(text[end]))
                ++end;
            const std::string_view word = text.substr(i, end - i);
            if (word == "asm" || word == "__asm__" || word == "__asm")
                asmKeyword = true;
            else if (!(asmKeyword && (word == "volatile" || word == "__volatile__" || word == "goto" || word == "inline")))
                asmKeyword = false;
            i = end;
            continue;
        }
        if (c == '(') {
            if (asmKeyword && asmDepth < 0)
                asmDepth = depth;
            ++depth;
        } else if (c == ')') {
            --depth;
            if (depth == asmDepth)
                asmDepth = -1;
        }
        asmKeyword = false;
        ++i;
    }
    return out;
}

size_t skipSpaces(const std::string& s, size_t i)
{
    while (i < s.size() && isSpace(s[i]))
        ++i;
    return i;
}

size_t matchClose(const std::string& s, size_t open)
{
    const char o = s[open], c = o == '(' ? ')' : o == '{' ? '}' : ']';
    int d = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == o)
            ++d;
        else if (s[i] == c && --d == 0)
            return i + 1;
    }
    return std::string::npos;
}

size_t matchAngle(const std::string& s, size_t open)
{
    int angle = 0, paren = 0;
    const size_t limit = std::min(s.size(), open + 4000);
    for (size_t i = open; i < limit; ++i) {
        const char c = s[i];
        if (c == '<')
            ++angle;
        else if (c == '>' && paren == 0 && --angle == 0)
            return i + 1;
        else if (c == '(')
            ++paren;
        else if (c == ')' && --paren < 0)
            return std::string::npos;
        else if (c == ';' || c == '{' || c == '}')
            return std::string::npos;
    }
    return std::string::npos;
}

std::vector<std::string> splitTemplateArguments(std::string_view args)
{
    std::vector<std::string> out;
    int d = 0;
    std::string current;
    for (const char c : args) {
        if (c == '<' || c == '(')
            ++d;
        else if (c == '>' || c == ')')
            --d;
        if (c == ',' && d == 0) {
            out.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    out.push_back(current);
    for (auto& a : out) {
        const size_t b = a.find_first_not_of(" \t\n\r"), e = a.find_last_not_of(" \t\n\r");
        a = b == std::string::npos ? std::string() : a.substr(b, e - b + 1);
    }
    return out;
}

} // namespace tilescope::roofline::cudalexer
