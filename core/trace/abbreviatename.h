// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilescope::trace {

// Shorter forms of a demangled C++ name (a kernel's signature), each shorter than the one before, that
// keep what tells similar kernels apart. Cutting the end or the middle of
// "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, …>(…)"
// leaves six rows that read the same; dropping the return type, the parameter list and namespace
// qualifiers first, then template arguments from the innermost level out, keeps the kernel's own name and
// its outer arguments visible for as long as possible. Names without those parts give no forms.
std::vector<std::string> nameAbbreviations(std::string_view name);

} // namespace tilescope::trace
