// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "trace/trace.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilescope::analysis {

// Launch queue length per GPU stream over time (issue #13): the operations launched but not yet started. Every
// GPU activity (kernel, memcpy, memset) linked by correlation to a runtime or driver API launch counts +1 at the
// launch's start and −1 at its own start, on the activity's stream; at equal times the changes net out first.
// Activities without a launch in the trace are not counted (their launch was not recorded).

// The length at which a launch call blocks, as traces show it: CUDA's queue has 1024 entries (HTA's
// CUDA_MAX_LAUNCH_QUEUE_PER_STREAM), but counted as above a saturated stream plateaus at 1022 and never goes
// higher (HTA's ns_resolution_trace_rank0: 48% of its window at 1022, a launch call running through all of
// it), so 1024 would never show a full queue.
constexpr int32_t kDefaultLaunchQueueLimit = 1022;

struct QueueStep
{
    int64_t time;
    int32_t length; // from `time` until the next step's time
};

struct StreamQueue
{
    trace::TrackId track = 0;
    int device = 0;
    int64_t stream = -1;
    uint64_t operations = 0;       // linked launches whose call starts in the selection (all without one), as `launches` counts
    Interval window{0, 0};         // first to last change of the series, cut to the selection
    std::vector<QueueStep> series; // the whole trace's changes; ends at length 0 when every launch started
    // Over the window, weighted by time:
    int32_t maxLength = 0;
    double meanLength = 0;
    int32_t medianLength = 0, p95Length = 0;               // the least length the queue was at or below 50% / 95% of the time
    std::vector<std::pair<int32_t, int64_t>> timeAtLength; // length -> ns, ascending by length; sums to the window
    int64_t fullNs = 0;                                    // time at length >= the limit (HTA's "duration at max queue length")
    int64_t blockedNs = 0;                                 // of fullNs, the time a launch call to this stream was running: the CPU waited
};

struct QueueReport
{
    std::optional<Interval> selection;
    int32_t limit = kDefaultLaunchQueueLimit;
    uint64_t activitiesWithoutLaunch = 0; // GPU activities of the trace left out
    std::vector<StreamQueue> streams;     // streams with counted operations inside the selection, by device then stream
};

QueueReport computeQueueLength(const trace::Trace& trace, std::optional<Interval> selection = std::nullopt,
                               int32_t limit = kDefaultLaunchQueueLimit);

} // namespace tilescope::analysis
