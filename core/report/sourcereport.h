// SPDX-License-Identifier: MIT
#pragma once

#include "io/smalljson.h"
#include "roofline/sourceinspect.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli inspect FILE.cu`: what a generated TileLang source shows (roofline.md §7.4-7.5).
std::string sourceInspectionJson(const roofline::SourceInspection& inspection);
std::string sourceInspectionText(const roofline::SourceInspection& inspection);

// {"path", "kernel", "features": [{"name", "meaning", "call_sites", "lines"}], "tensor_core", "mma_precision",
//  "data_movement", "conclusion", "caveats"}: the "source" of a classified kernel or region.
io::Json sourceEvidenceJson(const roofline::SourceEvidence& evidence);

} // namespace tilescope::report
