// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "trace/ids.h"
#include "trace/stringpool.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::analysis {

// Repeated kernel sequences (issue #13): fusion candidates. Each GPU stream is read as its kernels in
// start order, each kernel a step "launching op -> kernel" (the op whose External id the kernel carries,
// by name, and the kernel's name). A memcpy or memset on the stream, or a kernel without a launching op,
// ends a run: sequences never cross them.
//
// A reported sequence is a run of minLength..maxLength consecutive steps that occurs at least twice. The
// sequences are chosen greedily so that no kernel is counted twice: the next sequence is the one whose
// non-overlapping occurrences, among kernels not yet claimed by an earlier sequence, cover the most
// kernels (occurrences x length; ties: the shorter - ABAB twice is AB four times -, then the earlier first occurrence), and its
// occurrences claim their kernels. So a pattern repeating back to back is reported once, not again as
// its rotations (BCA, CAB of ABCABC...) or as its sub-windows, and a layer longer than maxLength comes
// out as a few pieces that tile it.
// HTA 0.5's get_frequent_cuda_kernel_sequences differs: its pattern is one named CPU op's name plus every
// kernel launched under that op's call stack, counted per op call (the caller picks the op), and its
// sub-patterns overlap.

struct KernelSequenceOptions
{
    uint32_t top = 10;              // sequences to report
    uint32_t minLength = 3;         // HTA's min_pattern_len default
    uint32_t maxLength = 16;        // longer repeats come out as pieces
    std::optional<Interval> window; // only kernels that start inside it; the whole trace when absent
};

struct SequenceStep
{
    trace::StringId op;     // the launching op's name
    trace::StringId kernel; // the kernel's name
};

struct KernelSequence
{
    std::vector<SequenceStep> steps;
    std::vector<uint32_t> occurrences; // the first kernel event of each counted occurrence, by time
    int64_t gpuNs = 0;                 // the kernels' durations summed over the counted occurrences
    bool elementwise = false;          // every kernel is elementwise (trace::isElementwiseKernel): a fusion candidate
};

struct KernelSequenceReport
{
    KernelSequenceOptions options;
    uint64_t kernels = 0;                  // kernels on GPU streams
    uint64_t steps = 0;                    // of those, kernels with a launching op (the sequences' alphabet)
    int64_t kernelNs = 0;                  // the durations of all kernels on GPU streams
    std::vector<KernelSequence> sequences; // in the order chosen
};

// options.minLength >= 2 and minLength <= maxLength (the CLI checks; here they are clamped).
KernelSequenceReport findKernelSequences(const trace::Trace& trace, KernelSequenceOptions options = {});

// The fusion advice for an all-elementwise sequence.
const char* fusionAdviceText();

} // namespace tilescope::analysis
