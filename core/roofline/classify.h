// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/annotationfile.h"

#include "roofline/ceilings.h"
#include "roofline/sourceinspect.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::roofline {

// One kernel (or memcpy/memset) name inside a region, over all the region's calls.
struct RegionKernel
{
    std::string name;
    uint64_t calls = 0;
    double totalUs = 0;
    double share = 0; // of the region's GPU-busy time
};

// Where a kernel or region sits on the roofline (roofline.md §6-7). Strings only at the edges: className().
enum class RooflineClass : uint8_t { IoBound, CudaCoreBound, TensorCoreBound, LatencyBound, Communication, Inconclusive };

// "io-bound", "cuda-core-bound", "tensor-core-bound", "latency-bound", "communication", "inconclusive": the
// class as the JSON output, the CLI table and the GUI write it.
std::string_view className(RooflineClass cls);
// The inverse of className(); nullopt for any other text.
std::optional<RooflineClass> parseClassName(std::string_view name);

struct Classification
{
    std::string name;
    uint64_t calls = 0;
    double totalUs = 0;
    std::optional<double> flops, bytes;                  // totals over the calls; unset when unknown
    double achievedFlopsPerS = 0, achievedBytesPerS = 0; // communication: bytes are the messages, the rate NCCL's algorithm bandwidth
    std::optional<double> busBytesPerS;                  // communication: NCCL's bus bandwidth, when the group size is known
    std::string roof;                                    // the compute roof compared against
    RooflineClass cls = RooflineClass::Inconclusive;
    std::string strength;      // strong, weak, provisional
    std::string evidenceLevel; // B (torch op inputs), C (annotation), D (none), B/C mixed
    std::vector<std::string> evidence;
    // roofline.md §7.5 rule 4, the strongest tensor-core evidence: "generated source" (call sites),
    // "kernel name" (a hint), or "none". SASS is not read.
    std::string tensorCoreEvidence = "none";
    std::optional<SourceEvidence> source; // when a generated source is attached
    bool sourceContradicts = false;       // the verdict's roof and the source's MMA call sites disagree
    std::vector<RegionKernel> kernels;    // regions only: the activities inside, by total time, largest first
};

// A memcpy or memset name that touches host memory ("Memcpy HtoD (Pinned -> Device)", "... DtoH ...",
// "Pageable"): such a memcpy's bandwidth roof is the host link (PCIe), not HBM.
bool namesHostMemory(std::string_view activityName);

// How a verdict's work was found, in words for the card and the CLI table (evidenceLevel stays in the JSON).
std::string workSourceText(const Classification& c);

struct ClassifyReport
{
    std::string deviceName;
    std::string deviceRow; // the datasheet row used, empty when unknown
    std::string chosenGpu; // ClassifyOptions::gpu when it chose the row; empty when the trace did
    Ceilings datasheet;
    Ceilings ceilings; // datasheet, or measured where given
    bool measured = false;
    std::vector<std::string> notes;
    // Annotations that name no kernel or region of the trace (a typo, another trace's file): said, not used.
    std::vector<std::string> unmatchedAnnotations;
    std::vector<Classification> kernels; // by total time, largest first
    std::vector<Classification> regions;
};

// The device as the outputs head their verdicts: the trace's GPU, "(none)", and the datasheet row chosen for it.
std::string deviceText(const ClassifyReport& report);

// A generated source given for a kernel name, "re:" pattern or region label (tilescope-cli --source NAME=FILE).
struct SourceAttachment
{
    std::string target;
    SourceInspection inspection;
};

struct ClassifyOptions
{
    std::vector<Annotation> annotations;
    std::vector<SourceAttachment> sources; // searched before the annotations' sources
    std::optional<MeasuredCeilings> measured;
    std::vector<DeviceEntry> database; // empty: the built-in table
    // The GPU to grade against when the trace names none the table knows (deviceRowNamed: a row's id or a GPU's
    // name); empty: the trace's. classify throws std::invalid_argument when it names no row, or a row other than
    // the trace's own GPU's.
    std::string gpu;
    bool allowTf32 = false; // torch's allow_tf32 is not in the trace
};

// roofline.md §6: work per kernel from the launching op (torch's FLOP formulas, compulsory bytes) or the
// annotations, then the roofline verdict with its strength and the numbers it rests on.
// Generated sources (§7.4-7.5) add evidence lines; for a custom kernel without a declared roof, MMA call
// sites choose the tensor roof (§6.2), and a tensor-core verdict without any is flagged.
ClassifyReport classify(const trace::Trace& trace, const ClassifyOptions& options);

} // namespace tilescope::roofline
