// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace tilescope::answer {

// RFC 4648 base64 with padding, no line breaks: the report's data: URIs.
std::string base64Encoded(std::string_view bytes);

} // namespace tilescope::answer
