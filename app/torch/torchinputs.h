// SPDX-License-Identifier: MIT
#pragma once

#include "inputspec.h"

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

namespace tilescope::torchtool {

// The forward() arguments of a session: randn for floating dtypes, randint(0, 16) for integers,
// randint(0, 2) for bool, on the device, after seeding every generator with `seed` so a run repeats.
std::vector<c10::IValue> makeInputs(const std::vector<TensorSpec>& specs, const c10::Device& device, uint64_t seed);

} // namespace tilescope::torchtool
