// SPDX-License-Identifier: MIT
#include "memory/memorytimeline.h"

#include "io/bytesource.h"
#include "io/decimal.h"
#include "io/jsonreader.h"
#include "io/tracefileerror.h"
#include "memory/bytecount.h"

#include <algorithm>

namespace tilescope::memory {

namespace {

using io::JsonReader;
using io::JsonToken;

constexpr MemoryCategoryInfo kCategories[kMemoryCategoryCount] = {
    {"PARAMETER", "darkgreen", "#006400"},
    {"OPTIMIZER_STATE", "goldenrod", "#daa520"},
    {"INPUT", "black", "#000000"},
    {"TEMPORARY", "mediumpurple", "#9370db"},
    {"ACTIVATION", "red", "#ff0000"},
    {"GRADIENT", "mediumblue", "#0000cd"},
    {"AUTOGRAD_DETAIL", "royalblue", "#4169e1"},
    {"unknown", "grey", "#808080"},
};

// A raw record's timestamp larger than this is nanoseconds: torch's raw export writes its internal ns
// clock, the .json form µs. As µs it would be a date past the year 5000.
constexpr int64_t kNanosecondTimestampsFrom = 100'000'000'000'000'000;

// Rows, records or values in one array: what a hostile file (a gzip bomb of "0,") may make the reader hold.
constexpr size_t kMaxEntries = size_t(1) << 24;

struct RawRecord
{
    int64_t time;
    int64_t action;
    int64_t bytes;
    int64_t category;
};

class TimelineReader
{
public:
    TimelineReader(io::ByteSource& source, MemoryTimeline& out)
        : m_reader(source)
        , m_out(out)
    { }

    void read();

private:
    int64_t integer(JsonToken token, const std::string& what)
    {
        if (token != JsonToken::Number)
            m_reader.failAt(m_reader.tokenOffset(), "expected an integer for " + what + ", found " + io::jsonTokenName(token));
        const auto value = io::parseExactInteger(m_reader.text());
        if (!value)
            m_reader.failAt(m_reader.tokenOffset(),
                            "expected an integer for " + what + ", found " + std::string(m_reader.text().substr(0, 40)));
        return *value;
    }
    [[noreturn]] void failShape(const std::string& problem) const
    {
        throw io::TraceFileError(m_reader.sourceName(), std::nullopt, problem);
    }
    void expect(JsonToken got, JsonToken want, const std::string& what)
    {
        if (got != want)
            m_reader.failAt(m_reader.tokenOffset(),
                            std::string("expected ") + io::jsonTokenName(want) + " for " + what + ", found " + io::jsonTokenName(got));
    }
    // The numbers of an array whose '[' was just read.
    std::vector<int64_t> integers(const std::string& what)
    {
        std::vector<int64_t> values;
        for (JsonToken t; (t = m_reader.next()) != JsonToken::ArrayEnd;) {
            limit(values.size(), what);
            values.push_back(integer(t, what));
        }
        return values;
    }
    void limit(size_t count, const std::string& what)
    {
        if (count >= kMaxEntries)
            m_reader.failAt(m_reader.tokenOffset(),
                            "more than " + std::to_string(kMaxEntries) + " entries in " + what + " (the reader's limit)");
    }
    void readRaw(std::vector<RawRecord> records, bool arrayEnded);
    RawRecord rawRecord(const std::vector<int64_t>& values, uint64_t offset, size_t index);
    void finishTimes();

    JsonReader m_reader;
    MemoryTimeline& m_out;
};

void TimelineReader::read()
{
    const char* shape = "export_memory_timeline's [times, sizes] or its raw [[time, action, bytes, category], ...]";
    JsonToken t = m_reader.next();
    if (t != JsonToken::ArrayBegin)
        m_reader.failAt(m_reader.tokenOffset(),
                        std::string("not a memory timeline: expected a JSON array (") + shape + "), found " + io::jsonTokenName(t));
    t = m_reader.next();
    if (t == JsonToken::ArrayEnd) { // [] : a raw export with no record
        readRaw({}, true);
        return;
    }
    if (t != JsonToken::ArrayBegin)
        m_reader.failAt(m_reader.tokenOffset(),
                        std::string("not a memory timeline: expected an array as the first element (") + shape + "), found "
                            + io::jsonTokenName(t));
    const uint64_t firstOffset = m_reader.tokenOffset();
    std::vector<int64_t> first = integers("the first element's values");
    // The second element tells the forms apart: rows (arrays) after the times, or another record (numbers).
    t = m_reader.next();
    if (t == JsonToken::ArrayEnd) {
        readRaw({rawRecord(first, firstOffset, 0)}, true);
        return;
    }
    expect(t, JsonToken::ArrayBegin, "the second element");
    const uint64_t secondOffset = m_reader.tokenOffset();
    t = m_reader.next();
    if (t == JsonToken::Number) {
        std::vector<int64_t> second{integer(t, "record 1")};
        for (const int64_t v : integers("record 1"))
            second.push_back(v);
        readRaw({rawRecord(first, firstOffset, 0), rawRecord(second, secondOffset, 1)}, false);
        return;
    }
    m_out.form = MemoryTimelineForm::Sizes;
    m_out.timesUs = std::move(first);
    for (size_t row = 0; t != JsonToken::ArrayEnd; ++row, t = m_reader.next()) {
        expect(t, JsonToken::ArrayBegin, "row " + std::to_string(row) + " of sizes");
        limit(row, "sizes");
        const uint64_t rowOffset = m_reader.tokenOffset();
        const std::vector<int64_t> values = integers("row " + std::to_string(row) + " of sizes");
        if (values.size() != kMemoryCategoryCount + 1)
            m_reader.failAt(rowOffset,
                            "row " + std::to_string(row) + " of sizes has " + std::to_string(values.size()) + " values, expected "
                                + std::to_string(kMemoryCategoryCount + 1) + " (an unused slot, then 8 categories)");
        CategoryBytes bytes;
        std::copy(values.begin() + 1, values.end(), bytes.begin());
        m_out.rows.push_back(bytes);
    }
    expect(m_reader.next(), JsonToken::ArrayEnd, "the end of [times, sizes] (it has more than two elements)");
    expect(m_reader.next(), JsonToken::End, "the end of the file");
    if (m_out.rows.size() != m_out.timesUs.size())
        failShape("wrong shape: " + std::to_string(m_out.timesUs.size()) + " times but " + std::to_string(m_out.rows.size())
                  + " rows of sizes");
    finishTimes();
}

RawRecord TimelineReader::rawRecord(const std::vector<int64_t>& v, uint64_t offset, size_t index)
{
    const std::string where = "record " + std::to_string(index);
    if (v.size() != 4)
        m_reader.failAt(offset, where + " has " + std::to_string(v.size()) + " values, expected 4 [timestamp, action, bytes, category]");
    if (v[1] < 1 || v[1] > 4)
        m_reader.failAt(offset,
                        where + ": action " + std::to_string(v[1]) + " is not 1..4 (PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY)");
    if (v[3] < 0 || v[3] >= static_cast<int64_t>(kMemoryCategoryCount))
        m_reader.failAt(offset, where + ": category " + std::to_string(v[3]) + " is not 0..7");
    if (v[0] < -1)
        m_reader.failAt(offset, where + ": timestamp " + std::to_string(v[0]) + " (only -1, pre-existing, may be negative)");
    return {v[0], v[1], v[2], v[3]};
}

void TimelineReader::readRaw(std::vector<RawRecord> records, bool arrayEnded)
{
    m_out.form = MemoryTimelineForm::Raw;
    if (!arrayEnded) {
        for (JsonToken t; (t = m_reader.next()) != JsonToken::ArrayEnd;) {
            const std::string what = "record " + std::to_string(records.size());
            expect(t, JsonToken::ArrayBegin, what);
            limit(records.size(), "the records");
            const uint64_t offset = m_reader.tokenOffset();
            records.push_back(rawRecord(integers(what), offset, records.size()));
        }
    }
    expect(m_reader.next(), JsonToken::End, "the end of the file");

    m_out.rawRecordCount = records.size();
    bool nanoseconds = false;
    for (const RawRecord& r : records) {
        ++m_out.rawActionCounts[static_cast<size_t>(r.action - 1)];
        nanoseconds = nanoseconds || r.time >= kNanosecondTimestampsFrom;
    }
    m_out.rawTimesWereNanoseconds = nanoseconds;
    // torch sorts the records it writes; a stable sort by time keeps the file's order within a time.
    std::stable_sort(records.begin(), records.end(), [](const RawRecord& a, const RawRecord& b) { return a.time < b.time; });
    // torch/profiler/_memory_profiler.py _coalesce_timeline: ns floored to µs, a new row per distinct time,
    // each row the previous one plus the signed bytes of its records.
    for (const RawRecord& r : records) {
        const int64_t time = r.time == -1 || !nanoseconds ? r.time : r.time / 1000;
        if (m_out.timesUs.empty() || time != m_out.timesUs.back()) {
            m_out.timesUs.push_back(time);
            m_out.rows.push_back(m_out.rows.empty() ? CategoryBytes{} : m_out.rows.back());
        }
        int64_t& slot = m_out.rows.back()[static_cast<size_t>(r.category)];
        slot = addBytes(slot, r.bytes);
    }
    finishTimes();
}

// Pre-existing memory (time -1) gets the smallest real time, as torch does; times must then not decrease.
void TimelineReader::finishTimes()
{
    int64_t smallest = -1;
    for (const int64_t t : m_out.timesUs)
        if (t >= 0 && (smallest < 0 || t < smallest))
            smallest = t;
    for (int64_t& t : m_out.timesUs) {
        if (t < -1)
            failShape("time " + std::to_string(t) + " is negative (only -1, pre-existing, may be)");
        if (t == -1)
            t = smallest;
    }
    for (size_t i = 1; i < m_out.timesUs.size(); ++i)
        if (m_out.timesUs[i] < m_out.timesUs[i - 1])
            failShape("times[" + std::to_string(i) + "] = " + std::to_string(m_out.timesUs[i]) + " is before times[" + std::to_string(i - 1)
                      + "] = " + std::to_string(m_out.timesUs[i - 1]) + " (a timeline's times never decrease)");
}

MemoryTimeline readTimeline(io::ByteSource& source)
{
    MemoryTimeline timeline;
    timeline.path = source.name();
    TimelineReader(source, timeline).read();
    return timeline;
}

} // namespace

const MemoryCategoryInfo& memoryCategoryInfo(size_t category) { return kCategories[std::min(category, kMemoryCategoryCount - 1)]; }

int64_t MemoryTimeline::totalBytes(size_t row) const
{
    int64_t total = 0;
    for (const int64_t b : rows[row])
        total = addBytes(total, b);
    return total;
}

MemoryTimelinePeak peakTotal(const MemoryTimeline& timeline)
{
    MemoryTimelinePeak peak;
    for (size_t i = 0; i < timeline.size(); ++i)
        if (const int64_t total = timeline.totalBytes(i); peak.row == SIZE_MAX || total > peak.bytes)
            peak = {total, timeline.timesUs[i], i};
    return peak;
}

MemoryTimelinePeak peakOfCategory(const MemoryTimeline& timeline, size_t category)
{
    MemoryTimelinePeak peak;
    if (category >= kMemoryCategoryCount)
        return peak;
    for (size_t i = 0; i < timeline.size(); ++i)
        if (const int64_t bytes = timeline.rows[i][category]; peak.row == SIZE_MAX || bytes > peak.bytes)
            peak = {bytes, timeline.timesUs[i], i};
    return peak;
}

MemoryTimeline loadMemoryTimeline(const std::string& path)
{
    auto source = io::openTraceFile(path);
    return readTimeline(*source);
}

MemoryTimeline memoryTimelineFromBytes(std::string_view bytes, const std::string& name)
{
    auto source = io::memorySource(bytes, name);
    return readTimeline(*source);
}

std::string timelineOutsideTraceText(const MemoryTimeline& timeline, int64_t firstNs, int64_t lastNs, std::optional<int64_t> baseTimeNs)
{
    if (timeline.timesUs.empty())
        return timeline.path + ": the memory timeline holds no times: nothing of it can be drawn";
    if (epochRangeMeetsTrace(timeline.timesUs.front(), timeline.timesUs.back(), firstNs, lastNs, baseTimeNs)) // times never decrease
        return {};
    return timeline.path + ": the memory timeline does not reach into the trace's time span (it ends before the trace starts or "
        + "starts after it ends): it was exported from another run, and none of it would be drawn";
}

} // namespace tilescope::memory
