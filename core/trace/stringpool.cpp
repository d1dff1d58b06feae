// SPDX-License-Identifier: MIT
#include "trace/stringpool.h"

#include <algorithm>
#include <cstring>

namespace tilescope::trace {

namespace {

constexpr size_t kBlockBytes = size_t(64) << 10;
constexpr size_t kFirstSlots = 64;

inline uint64_t mix(uint64_t h)
{
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

} // namespace

StringPool::StringPool()
    : m_slots(kFirstSlots, 0)
{
    m_strings.emplace_back();
    insert(hashOf({}), 0);
}

StringPool::StringPool(StringPool&& other)
    : StringPool()
{
    swap(other);
}

StringPool& StringPool::operator=(StringPool&& other)
{
    if (this != &other) {
        StringPool taken(std::move(other));
        swap(taken);
    }
    return *this;
}

void StringPool::swap(StringPool& other) noexcept
{
    m_blocks.swap(other.m_blocks);
    std::swap(m_block, other.m_block);
    m_strings.swap(other.m_strings);
    m_slots.swap(other.m_slots);
}

// 8 bytes at a time, multiplied and folded: a few cycles for the short names of a trace.
uint64_t StringPool::hashOf(std::string_view text)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (text.size() * 0xff51afd7ed558ccdull);
    const char* p = text.data();
    size_t n = text.size();
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    if (n > 0) {
        uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (h ^ w) * 0x94d049bb133111ebull;
    }
    return mix(h);
}

// The slot holding `text`, or the empty one where it would go.
size_t StringPool::slotOf(std::string_view text, uint64_t hash) const
{
    const size_t mask = m_slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const uint64_t slot = m_slots[i];
        if (slot == 0 || ((slot >> 32) == (hash >> 32) && m_strings[(slot & 0xffffffffu) - 1] == text))
            return i;
    }
}

StringId StringPool::find(std::string_view text) const
{
    const uint64_t slot = m_slots[slotOf(text, hashOf(text))];
    return slot == 0 ? kNoIndex : static_cast<StringId>((slot & 0xffffffffu) - 1);
}

StringId StringPool::intern(std::string_view text)
{
    const uint64_t hash = hashOf(text);
    uint64_t& slot = m_slots[slotOf(text, hash)];
    if (slot != 0)
        return static_cast<StringId>((slot & 0xffffffffu) - 1);
    const auto id = static_cast<StringId>(m_strings.size());
    m_strings.push_back(store(text));
    slot = (hash & 0xffffffff00000000ull) | (uint64_t(id) + 1);
    if (m_strings.size() * 2 > m_slots.size()) // at most half full: short probes
        grow();
    return id;
}

void StringPool::insert(uint64_t hash, StringId id)
{
    const size_t mask = m_slots.size() - 1;
    size_t i = hash & mask;
    while (m_slots[i] != 0)
        i = (i + 1) & mask;
    m_slots[i] = (hash & 0xffffffff00000000ull) | (uint64_t(id) + 1);
}

void StringPool::grow()
{
    m_slots.assign(m_slots.size() * 2, 0);
    for (StringId id = 0; id < m_strings.size(); ++id)
        insert(hashOf(m_strings[id]), id);
}

std::string_view StringPool::store(std::string_view text)
{
    if (text.empty())
        return {};
    while (m_block < m_blocks.size() && m_blocks[m_block].size - m_blocks[m_block].used < text.size())
        ++m_block; // a block kept by clear() may be too small for a long text: the next one is tried
    if (m_block == m_blocks.size()) {
        Block block;
        block.size = std::max(kBlockBytes, text.size());
        block.bytes = std::make_unique_for_overwrite<char[]>(block.size);
        m_blocks.push_back(std::move(block));
    }
    Block& block = m_blocks[m_block];
    char* at = block.bytes.get() + block.used;
    std::memcpy(at, text.data(), text.size());
    block.used += text.size();
    return {at, text.size()};
}

void StringPool::clear()
{
    for (Block& block : m_blocks)
        block.used = 0;
    m_block = 0;
    m_strings.resize(1);
    std::fill(m_slots.begin(), m_slots.end(), 0);
    insert(hashOf({}), 0);
}

} // namespace tilescope::trace
