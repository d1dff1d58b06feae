// SPDX-License-Identifier: MIT
#include "session/commandline.h"

namespace tilescope::session {

std::string shellQuoted(const std::vector<std::string>& argv)
{
    std::string out;
    for (const std::string& a : argv) {
        if (!out.empty())
            out += ' ';
        const bool plain = !a.empty()
            && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_-+=/.,:@%")
                == std::string::npos;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

std::vector<std::string> splitCommandLine(std::string_view text)
{
    std::vector<std::string> words;
    std::string current;
    bool inWord = false; // a quoted empty string ('' or "") is still a word
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                current += c;
        } else if (quote == '"') {
            if (c == '"')
                quote = 0;
            else if (c == '\\' && i + 1 < text.size() && std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos)
                current += text[++i];
            else
                current += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\') {
            inWord = true;
            if (i + 1 < text.size())
                current += text[++i];
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord)
                words.push_back(current);
            current.clear();
            inWord = false;
        } else {
            current += c;
            inWord = true;
        }
    }
    if (inWord)
        words.push_back(current);
    return words;
}

} // namespace tilescope::session
