// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

namespace tilescope::io {

// Finds where the elements of a JSON array end from its raw bytes, without tokenizing them: tracks
// strings (and their escapes) and bracket depth only, fed the bytes after the array's '[' piece by piece.
// It does not validate: the parts it splits are parsed by a strict reader afterwards, which rejects what
// is not JSON, so a split of a malformed file can only lead to an error, never to a wrong result.
class ArraySplitter
{
public:
    struct Result
    {
        size_t separator = SIZE_MAX; // a ',' between two elements, at or after `cutFrom`
        size_t arrayEnd = SIZE_MAX;  // the array's closing ']'
        bool malformed = false;      // a '}' closes the array: not JSON
    };

    // Scans text[from, size) going on from where the previous call stopped, and stops just after the
    // first separator at an index >= cutFrom, or at the array's end: the next call starts there (or at
    // `size`, when neither was found). Positions are indices in `text`.
    Result scan(const char* text, size_t from, size_t size, size_t cutFrom);

    // A likely separator between two elements of an array of objects, at an index >= `from` in
    // text[0, size): a ',' with a '}' before it and a '{' after it, whitespace aside; SIZE_MAX if none.
    // Looks at a few bytes around each '{' instead of every byte since the array's start, but it is a
    // guess: the same bytes can stand inside a string or a nested array of objects. A guess is proven by
    // parsing the part before it strictly, which must then end at a real separator (a cut inside an
    // element leaves it unfinished).
    static size_t findLikelySeparator(const char* text, size_t from, size_t size);

private:
    uint32_t m_depth = 0; // 0: between the array's elements
    bool m_inString = false;
    bool m_escape = false; // the previous piece ended in a string's backslash
};

} // namespace tilescope::io
