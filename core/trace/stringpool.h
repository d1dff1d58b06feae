// SPDX-License-Identifier: MIT
#pragma once

#include "trace/ids.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace tilescope::trace {

using StringId = uint32_t;

// Interns strings: each distinct text is stored once and named by a dense 32-bit id.
// Id 0 is always the empty string.
// The texts lie end to end in blocks that never move (views stay valid); the index is an open-addressing
// table of (hash, id) in one array, probed linearly: no node or allocation per string, and a lookup
// that reads one cache line before it compares the text (a loader interns every event's name).
class StringPool
{
public:
    StringPool();
    // The pool moved from is left empty and usable, as a new one (its table is never without slots).
    StringPool(StringPool&& other);
    StringPool& operator=(StringPool&& other);

    StringId intern(std::string_view text);
    std::string_view view(StringId id) const { return m_strings[id]; }
    // The id of `text` if it was interned, else kNoIndex.
    StringId find(std::string_view text) const;
    size_t size() const { return m_strings.size(); }
    // Forgets every string but keeps the memory, for a pool used again and again (a parallel load's chunks).
    void clear();

private:
    static uint64_t hashOf(std::string_view text);
    size_t slotOf(std::string_view text, uint64_t hash) const;
    std::string_view store(std::string_view text);
    void insert(uint64_t hash, StringId id);
    void grow();
    void swap(StringPool& other) noexcept;

    struct Block
    {
        std::unique_ptr<char[]> bytes;
        size_t size = 0, used = 0;
    };
    std::vector<Block> m_blocks;
    size_t m_block = 0; // the block being filled
    std::vector<std::string_view> m_strings;
    std::vector<uint64_t> m_slots; // 0: empty; else the hash's high 32 bits and id + 1
};

} // namespace tilescope::trace
