// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/sourceinspect.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tilescope::roofline {

// User-supplied work per call for kernels and regions torch has no formula for (TileLang, Triton, CUDA),
// in the sidecar TRACE.annotations.json:
// {"annotations": [{"region": NAME, "flops": F, "bytes": B, "roof": "bf16"}, {"kernel": NAME or "re:REGEX", ...}]}
// An entry may name the kernel's generated CUDA source, "source": "path.cu" (relative to the annotations
// file's folder, or absolute); an entry with a source needs no flops or bytes. The struct, its checks, the
// loader and the writer live here; the CLI, the classifier and the app's editor all use them.
struct Annotation
{
    std::string region; // a record_function label, or empty
    std::string kernel; // an exact kernel name or "re:" + ECMAScript regex (searched), or empty
    std::optional<double> flops, bytes;
    std::string roof;                       // fp32, tf32, bf16, fp16, fp8, fp64, int8, or empty
    std::optional<SourceInspection> source; // inspected when the file is loaded
    std::string sourcePath;                 // "source" as written in the file (for saving it back)
};

// What is wrong with one annotation, one sentence each (empty: nothing): no name or both names, a bad
// regular expression, negative FLOPs or bytes, neither FLOPs nor bytes nor a source.
std::vector<std::string> annotationProblems(const Annotation& a);
// Inspects a.sourcePath (relative to `sidecarFolder` unless absolute) into a.source; throws TraceFileError
// naming the source file when it cannot be read.
void inspectAnnotationSource(Annotation& a, const std::filesystem::path& sidecarFolder);

// Reads a sidecar; throws TraceFileError naming the file and the first problem.
std::vector<Annotation> loadAnnotations(const std::string& path);

// The annotations sidecar in the form loadAnnotations reads (values per call; "source" as given).
std::string annotationsJson(const std::vector<Annotation>& annotations);

// Writes the sidecar (TRACE.annotations.json) through a temporary file and a rename, then reads it back
// with loadAnnotations so a file TileScope writes is one it accepts. Never touches the trace itself.
// Throws TraceFileError naming the file.
std::vector<Annotation> saveAnnotations(const std::string& path, const std::vector<Annotation>& annotations);

} // namespace tilescope::roofline
