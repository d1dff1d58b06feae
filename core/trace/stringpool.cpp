// SPDX-License-Identifier: MIT
#include "trace/stringpool.h"

namespace tilescope::trace {

StringPool::StringPool()
{
    m_strings.emplace_back();
    m_index.emplace(std::string_view(), 0);
}

StringId StringPool::intern(std::string_view text)
{
    if (const auto it = m_index.find(text); it != m_index.end())
        return it->second;
    const std::string& stored = m_storage.emplace_back(text);
    const auto id = static_cast<StringId>(m_strings.size());
    m_strings.emplace_back(stored);
    m_index.emplace(std::string_view(stored), id);
    return id;
}

StringId StringPool::find(std::string_view text) const
{
    const auto it = m_index.find(text);
    return it == m_index.end() ? kNoIndex : it->second;
}

} // namespace tilescope::trace
