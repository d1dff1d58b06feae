// SPDX-License-Identifier: MIT
// io::ArraySplitter against a byte-at-a-time reference: the same cuts and the same end (or the same
// verdict of malformed) for random arrays of nested values and strings full of brackets, commas, quotes
// and escapes, fed in pieces of every size, with cuts asked for anywhere.
#include "io/arraysplitter.h"

#include <QtTest>

#include <random>
#include <string>
#include <vector>

using tilescope::io::ArraySplitter;

namespace {

struct Cuts
{
    std::vector<size_t> separators;
    size_t arrayEnd = SIZE_MAX;
    bool malformed = false;
    bool operator==(const Cuts&) const = default;
};

// The rule, one byte at a time: after each separator, the next cut is the first ',' between elements
// at least `chunk` bytes further on.
Cuts reference(const std::string& text, size_t chunk)
{
    Cuts cuts;
    size_t depth = 0, cutFrom = chunk;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0) {
                if (c == '}')
                    cuts.malformed = true;
                else
                    cuts.arrayEnd = i;
                return cuts;
            }
            --depth;
        } else if (c == ',' && depth == 0 && i >= cutFrom) {
            cuts.separators.push_back(i);
            cutFrom = i + 1 + chunk;
        }
    }
    return cuts;
}

// As the loader drives it: the bytes arrive in pieces; each call goes on from where the last stopped.
Cuts split(const std::string& text, size_t chunk, std::mt19937& random, size_t maxPiece)
{
    Cuts cuts;
    ArraySplitter splitter;
    size_t from = 0, available = 0, cutFrom = chunk;
    for (;;) {
        const ArraySplitter::Result r = splitter.scan(text.data(), from, available, cutFrom);
        if (r.malformed) {
            cuts.malformed = true;
            return cuts;
        }
        if (r.arrayEnd != SIZE_MAX) {
            cuts.arrayEnd = r.arrayEnd;
            return cuts;
        }
        if (r.separator != SIZE_MAX) {
            cuts.separators.push_back(r.separator);
            from = r.separator + 1;
            cutFrom = from + chunk;
            continue;
        }
        if (available == text.size())
            return cuts;
        from = available;
        available = std::min(text.size(), available + std::uniform_int_distribution<size_t>(1, maxPiece)(random));
    }
}

std::string randomString(std::mt19937& random)
{
    static const char alphabet[] = "ab,{}[]: \\\"";
    std::string s = "\"";
    const int n = std::uniform_int_distribution<int>(0, 30)(random);
    for (int i = 0; i < n; ++i) {
        const char c = alphabet[std::uniform_int_distribution<size_t>(0, sizeof alphabet - 2)(random)];
        if (c == '\\' || c == '"')
            s += '\\'; // escaped: a backslash before a quote, or a doubled backslash
        s += c;
    }
    return s + "\"";
}

std::string randomValue(std::mt19937& random, int depth)
{
    const int kind = std::uniform_int_distribution<int>(0, depth > 4 ? 2 : 4)(random);
    if (kind == 0)
        return std::to_string(random() % 100000);
    if (kind <= 2)
        return randomString(random);
    const bool object = kind == 3;
    std::string s = object ? "{" : "[";
    const int n = std::uniform_int_distribution<int>(0, 5)(random);
    for (int i = 0; i < n; ++i) {
        if (i > 0)
            s += ", ";
        if (object)
            s += randomString(random) + ": ";
        s += randomValue(random, depth + 1);
    }
    return s + (object ? "}" : "]");
}

} // namespace

class TestArraySplitter : public QObject
{
    Q_OBJECT
private slots:
    void sameCutsAsByteAtATime()
    {
        std::mt19937 random(1205);
        for (int round = 0; round < 300; ++round) {
            // The bytes after the array's '[': elements, then ']' and what follows the array.
            std::string text;
            const int elements = std::uniform_int_distribution<int>(0, 60)(random);
            for (int i = 0; i < elements; ++i)
                text += (i > 0 ? ",\n  " : "") + randomValue(random, 0);
            text += round % 10 == 9 ? "} ]" : "]}"; // a stray '}' closing the array: malformed
            for (const size_t chunk : {size_t(0), size_t(1), size_t(37), size_t(64), size_t(200), size_t(1000)}) {
                const Cuts expected = reference(text, chunk);
                for (const size_t maxPiece : {size_t(1), size_t(63), size_t(65), size_t(4096)}) {
                    const Cuts got = split(text, chunk, random, maxPiece);
                    QVERIFY2(got == expected,
                             qPrintable(QStringLiteral("round %1, chunk %2, pieces up to %3: %4 cuts, expected %5")
                                            .arg(round)
                                            .arg(chunk)
                                            .arg(maxPiece)
                                            .arg(got.separators.size())
                                            .arg(expected.separators.size())));
                }
            }
        }
    }

    // The guess: a ',' between a '}' and a '{', whitespace aside, at or after `from`; nothing else.
    void likelySeparator()
    {
        const auto find = [](std::string_view text, size_t from) {
            return ArraySplitter::findLikelySeparator(text.data(), from, text.size());
        };
        QCOMPARE(find(R"({"a": 1},{"b": 2})", 0), size_t(8));
        QCOMPARE(find("{\"a\": 1}\n  ,\t\r\n {\"b\": 2}", 0), size_t(11));
        QCOMPARE(find(R"({"a": 1},{"b": 2},{"c": 3})", 9), size_t(17));
        QCOMPARE(find(R"({"a": 1},{"b": 2})", 9), SIZE_MAX); // the only one is before `from`
        QCOMPARE(find(R"({"a": [1, {"b": 2}, 3]})", 0), SIZE_MAX);
        QCOMPARE(find(R"({"a": 1} {"b": 2})", 0), SIZE_MAX);
        QCOMPARE(find(R"({"a": 1}, ["b"])", 0), SIZE_MAX);
        QCOMPARE(find(R"({"a": 1},)", 0), SIZE_MAX); // the '{' is not read yet
        QCOMPARE(find(",{", 0), SIZE_MAX);
        QCOMPARE(find("{", 0), SIZE_MAX);
        QCOMPARE(find("", 0), SIZE_MAX);
        // Only a guess: inside a string, or between the objects of a nested array, it is no separator.
        QCOMPARE(find(R"({"name": "},{"})", 0), size_t(11));
        QCOMPARE(find(R"({"a": [{}, {}]})", 0), size_t(9));
    }
};

QTEST_APPLESS_MAIN(TestArraySplitter)
#include "tst_arraysplitter.moc"
