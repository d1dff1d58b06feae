// SPDX-License-Identifier: MIT
#pragma once

#include "trace/ids.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tilescope::trace {

using StringId = uint32_t;

// Interns strings: each distinct text is stored once and named by a dense 32-bit id.
// Id 0 is always the empty string.
class StringPool
{
public:
    StringPool();
    StringId intern(std::string_view text);
    std::string_view view(StringId id) const { return m_strings[id]; }
    // The id of `text` if it was interned, else kNoIndex.
    StringId find(std::string_view text) const;
    size_t size() const { return m_strings.size(); }

private:
    std::deque<std::string> m_storage; // stable addresses for the views
    std::vector<std::string_view> m_strings;
    std::unordered_map<std::string_view, StringId> m_index;
};

} // namespace tilescope::trace
