// SPDX-License-Identifier: MIT
#include "analysis/kernelsequences.h"

#include "trace/eventkind.h"
#include "trace/trace.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>

namespace tilescope::analysis {

namespace {

// The kernels of every stream back to back; a run never crosses runEnd.
struct StepString
{
    std::vector<uint32_t> symbol; // dense id of (op name, kernel name)
    std::vector<uint32_t> event;  // the kernel
    std::vector<uint32_t> runEnd; // one past the last position of the position's run
    std::vector<SequenceStep> alphabet;
};

StepString buildSteps(const trace::Trace& t, const std::optional<Interval>& window, KernelSequenceReport& r)
{
    StepString s;
    std::unordered_map<uint64_t, uint32_t> symbolOf;
    for (const trace::Track& track : t.tracks) {
        if (track.type != trace::Track::Type::GpuStream)
            continue;
        size_t runStart = s.symbol.size();
        auto closeRun = [&] {
            for (size_t p = runStart; p < s.symbol.size(); ++p)
                s.runEnd[p] = static_cast<uint32_t>(s.symbol.size());
            runStart = s.symbol.size();
        };
        for (const uint32_t i : track.events) {
            const trace::Event& e = t.events[i];
            if (window && (e.start < window->start || e.start >= window->end))
                continue;
            if (e.kind == trace::EventKind::GpuMemcpy || e.kind == trace::EventKind::GpuMemset) {
                closeRun();
                continue;
            }
            if (e.kind != trace::EventKind::Kernel)
                continue;
            ++r.kernels;
            r.kernelNs += e.duration;
            const uint32_t op = t.opOf(i);
            if (op == trace::kNoIndex) {
                closeRun();
                continue;
            }
            ++r.steps;
            const SequenceStep step{t.events[op].name, e.name};
            const uint64_t key = (static_cast<uint64_t>(step.op) << 32) | step.kernel;
            const auto [it, added] = symbolOf.emplace(key, static_cast<uint32_t>(s.alphabet.size()));
            if (added)
                s.alphabet.push_back(step);
            s.symbol.push_back(it->second);
            s.event.push_back(i);
            s.runEnd.push_back(0);
        }
        closeRun();
    }
    return s;
}

// A run of `length` steps from `start` that occurs at least twice (counting overlapping occurrences).
struct Candidate
{
    uint32_t length;
    uint32_t first;         // its first occurrence
    uint32_t offset, count; // its occurrences: occurrences[offset, offset + count), ascending
};

constexpr uint64_t kHashBase = 0x100000001b3ULL; // odd: the polynomial hash mod 2^64 of the symbols + 1

} // namespace

const char* fusionAdviceText()
{
    return "every kernel is elementwise: one fused kernel (torch.compile, a hand-written or TileLang kernel) could replace the chain "
           "and save the intermediate tensors' round trips through memory and all but one launch";
}

KernelSequenceReport findKernelSequences(const trace::Trace& t, KernelSequenceOptions options)
{
    options.minLength = std::max<uint32_t>(options.minLength, 2);
    options.maxLength = std::max(options.maxLength, options.minLength);
    KernelSequenceReport r;
    r.options = options;
    const StepString s = buildSteps(t, options.window, r);
    const size_t n = s.symbol.size();
    if (n < 2 * static_cast<size_t>(options.minLength) || options.top == 0)
        return r;

    std::vector<uint64_t> prefix(n + 1, 0), power(options.maxLength + 1, 1);
    for (size_t p = 0; p < n; ++p)
        prefix[p + 1] = prefix[p] * kHashBase + s.symbol[p] + 1;
    for (size_t l = 1; l <= options.maxLength; ++l)
        power[l] = power[l - 1] * kHashBase;
    auto hashOf = [&](size_t start, size_t length) { return prefix[start + length] - prefix[start] * power[length]; };

    // Level by level, counting only the extensions of runs that repeat (a run of length l can repeat only
    // if its prefix of length l - 1 does).
    std::vector<Candidate> candidates;
    std::vector<uint32_t> occurrences;
    std::vector<uint8_t> repeats(n, 1); // the run at p of the previous length repeats
    std::vector<uint32_t> slotAt(n);
    std::unordered_map<uint64_t, uint32_t> slotOf;
    std::vector<uint32_t> slotCount, slotFirst;
    for (uint32_t length = options.minLength; length <= options.maxLength; ++length) {
        slotOf.clear();
        slotCount.clear();
        slotFirst.clear();
        for (size_t p = 0; p + length <= n; ++p) {
            if (!repeats[p] || p + length > s.runEnd[p]) {
                slotAt[p] = trace::kNoIndex;
                continue;
            }
            const auto [it, added] = slotOf.emplace(hashOf(p, length), static_cast<uint32_t>(slotCount.size()));
            if (added) {
                slotCount.push_back(0);
                slotFirst.push_back(static_cast<uint32_t>(p));
            }
            ++slotCount[it->second];
            slotAt[p] = it->second;
        }
        std::vector<uint32_t> candidateOfSlot(slotCount.size(), trace::kNoIndex);
        uint32_t offset = static_cast<uint32_t>(occurrences.size());
        for (uint32_t slot = 0; slot < slotCount.size(); ++slot) {
            if (slotCount[slot] < 2)
                continue;
            candidateOfSlot[slot] = static_cast<uint32_t>(candidates.size());
            candidates.push_back({length, slotFirst[slot], offset, 0});
            offset += slotCount[slot];
        }
        if (candidateOfSlot.empty() || offset == occurrences.size())
            break;
        occurrences.resize(offset);
        bool any = false;
        for (size_t p = 0; p < n; ++p) {
            const uint32_t slot = p + length <= n ? slotAt[p] : trace::kNoIndex;
            const bool repeated = slot != trace::kNoIndex && candidateOfSlot[slot] != trace::kNoIndex;
            repeats[p] = repeated;
            if (!repeated)
                continue;
            Candidate& c = candidates[candidateOfSlot[slot]];
            occurrences[c.offset + c.count++] = static_cast<uint32_t>(p);
            any = true;
        }
        if (!any)
            break;
    }

    // Lazy greedy: a candidate's covered kernels only shrink as others claim theirs, so a popped candidate
    // whose exact cover still beats every other bound is the best one.
    std::vector<uint8_t> claimed(n, 0);
    auto sameRun = [&](uint32_t a, uint32_t b, uint32_t length) {
        return std::equal(s.symbol.begin() + a, s.symbol.begin() + a + length, s.symbol.begin() + b);
    };
    auto freeOccurrences = [&](const Candidate& c) {
        std::vector<uint32_t> taken;
        uint32_t nextFree = 0;
        for (uint32_t k = 0; k < c.count; ++k) {
            const uint32_t p = occurrences[c.offset + k];
            if (p < nextFree || !sameRun(p, c.first, c.length))
                continue;
            if (std::any_of(claimed.begin() + p, claimed.begin() + p + c.length, [](uint8_t x) { return x != 0; }))
                continue;
            taken.push_back(p);
            nextFree = p + c.length;
        }
        return taken;
    };
    using Entry = std::tuple<uint64_t, int64_t, int64_t, uint32_t>; // cover, -length, -first, candidate
    std::priority_queue<Entry> heap;
    for (uint32_t c = 0; c < candidates.size(); ++c)
        heap.emplace(uint64_t{candidates[c].count} * candidates[c].length, -int64_t{candidates[c].length}, -int64_t{candidates[c].first},
                     c);
    while (!heap.empty() && r.sequences.size() < options.top) {
        const auto [bound, negLength, negFirst, c] = heap.top();
        const uint32_t length = static_cast<uint32_t>(-negLength);
        heap.pop();
        const std::vector<uint32_t> taken = freeOccurrences(candidates[c]);
        if (taken.size() < 2)
            continue;
        const uint64_t cover = uint64_t{taken.size()} * length;
        if (!heap.empty() && Entry{cover, negLength, negFirst, c} < heap.top()) {
            heap.emplace(cover, negLength, negFirst, c);
            continue;
        }
        KernelSequence q;
        const uint32_t first = taken.front();
        for (uint32_t k = 0; k < length; ++k)
            q.steps.push_back(s.alphabet[s.symbol[first + k]]);
        q.elementwise = std::all_of(q.steps.begin(), q.steps.end(),
                                    [&](const SequenceStep& step) { return trace::isElementwiseKernel(t.strings.view(step.kernel)); });
        for (const uint32_t p : taken) {
            q.occurrences.push_back(s.event[p]);
            for (uint32_t k = 0; k < length; ++k) {
                claimed[p + k] = 1;
                q.gpuNs += t.events[s.event[p + k]].duration;
            }
        }
        std::sort(q.occurrences.begin(), q.occurrences.end(),
                  [&](uint32_t a, uint32_t b) { return std::make_pair(t.events[a].start, a) < std::make_pair(t.events[b].start, b); });
        r.sequences.push_back(std::move(q));
    }
    return r;
}

} // namespace tilescope::analysis
