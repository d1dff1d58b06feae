// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <string>
#include <vector>

namespace tilescope::roofline {

// The annotations sidecar in the form loadAnnotations reads (values per call; "source" as given).
std::string annotationsJson(const std::vector<Annotation>& annotations);

// Writes the sidecar (TRACE.annotations.json) through a temporary file and a rename, then reads it back
// with loadAnnotations so a file TileScope writes is one it accepts. Never touches the trace itself.
// Throws TraceFileError naming the file.
std::vector<Annotation> saveAnnotations(const std::string& path, const std::vector<Annotation>& annotations);

} // namespace tilescope::roofline
