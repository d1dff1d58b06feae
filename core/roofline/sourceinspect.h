// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::roofline {

// The tensor-core instruction family a generated source issues (roofline.md §7.4).
enum class TensorCorePath {
    None,    // no MMA call site
    MmaSync, // warp-level mma.sync (Ampere-class HMMA; also Volta m8n8k4, sm120 block-scaled)
    Wmma,    // nvcuda::wmma
    Wgmma,   // Hopper warpgroup wgmma.mma_async
    Tcgen05, // Blackwell tcgen05.mma
};
std::string tensorCorePathName(TensorCorePath path);    // "none", "mma.sync", "wmma", "wgmma", "tcgen05"
std::string tensorCorePathMeaning(TensorCorePath path); // "Hopper WGMMA", ...

// One indicator of §7.4, counted by call sites (a `tl::` call, a method call on a barrier object, a
// PTX mnemonic inside asm(), or a CUtensorMap kernel parameter); never by #include lines or comments.
struct SourceFeature
{
    std::string name;                          // e.g. "tl::wgmma_*"
    std::string meaning;                       // e.g. "Hopper WGMMA tensor-core MMA"
    TensorCorePath mma = TensorCorePath::None; // set only for features that are MMA instructions themselves
    std::string movement;                      // "TMA", "cp.async", "mbarrier", or empty
    uint64_t callSites = 0;
    std::vector<int> lines; // the first few, 1-based
};

// What one kernel (or the whole file) shows.
struct SourceSummary
{
    std::vector<SourceFeature> features;              // only those with call sites, in the order of the §7.4 tables
    TensorCorePath tensorCore = TensorCorePath::None; // the newest family with MMA call sites
    std::string mmaPrecision;                         // fp16, bf16, fp8, tf32, int8, fp64 from tl::DataType::k…; empty if unknown
    std::vector<std::string> dataMovement;            // "TMA", "cp.async", "mbarrier" with call sites
    std::string conclusion;                           // one line
    uint64_t callSitesOf(std::string_view featureName) const;
};

struct SourceKernel
{
    std::string name; // the __global__ function, e.g. main_kernel
    int line = 0;     // of its definition
    SourceSummary summary;
};

struct SourceInspection
{
    std::string path;                  // empty for inspectGeneratedSource(text)
    SourceSummary file;                // every call site in the file, inside kernels or not
    std::vector<SourceKernel> kernels; // definitions, in file order
    std::vector<std::string> includes; // the #include targets, which prove nothing (§7.5 rule 1)
    std::vector<std::string> caveats;
};

// roofline.md §7.4-7.5 on a TileLang device source (kernel.get_kernel_source(), device_kernel.cu of the
// cache). Comments, string and character literals and preprocessor lines are blanked before counting;
// string literals inside asm(...) are kept apart and searched for PTX mnemonics.
SourceInspection inspectGeneratedSource(std::string_view text);
// Throws io::TraceFileError naming the file when it cannot be read, is empty, binary or over 64 MiB.
SourceInspection inspectGeneratedSourceFile(const std::string& path);

// The findings attached to one classified kernel or region.
struct SourceEvidence
{
    std::string path;
    std::string kernel; // the entry point the findings come from; empty: the whole file
    SourceSummary summary;
    std::vector<std::string> caveats;
};

// Findings for a trace kernel: the definition of that name when the file has one, the only kernel when
// there is one, else the whole file (with a caveat saying so). An empty name selects the whole file.
SourceEvidence sourceEvidenceFor(const SourceInspection& inspection, std::string_view kernelName);

} // namespace tilescope::roofline
