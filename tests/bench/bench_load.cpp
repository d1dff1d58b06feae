// SPDX-License-Identifier: MIT
// Loads a trace one way and prints wall time, MB/s, events/s and peak RSS. Run each mode in its own
// process (tools/bench_load.sh does) so peak RSS belongs to that mode alone.
//   scan      bare streaming tokenizer pass (TileScope's JsonReader), no model
//   nlohmann  nlohmann::json SAX pass with a handler that does nothing, fed byte by byte through an
//             input iterator over the streamed file (constant memory, like TileScope's reader)
//   nlohmann-buffer  the same SAX pass over the whole file in one contiguous std::string (nlohmann's
//             fast path: pointer input); the time includes reading the file, the parse alone is
//             printed too, and the buffer costs the file's size in memory
//   load      TileScope's loader (raw args not kept, as the CLI summary)
//   load-args TileScope's loader keeping every raw args object (as the GUI)
//   summary   load + key_averages + table render
//   keyaverages  load, then key_averages alone five times: the best printed
#include "benchtimer.h"

#include "io/bytesource.h"
#include "io/jsonreader.h"
#include "stats/keyaverages.h"
#include "stats/torchtable.h"
#include "trace/traceloader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>

using namespace tilescope;

namespace {

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct NullSax : nlohmann::json_sax<nlohmann::json>
{
    uint64_t objects = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override
    {
        ++objects;
        return true;
    }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override
    {
        std::fprintf(stderr, "nlohmann: %s\n", e.what());
        return false;
    }
};

// Feeds nlohmann from a ByteSource (so gzip works the same way for every mode).
struct SourceIterator
{
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    struct State
    {
        io::ByteSource* source;
        std::vector<char> buffer = std::vector<char>(1 << 18);
        size_t pos = 0, end = 0;
        bool eof = false;
        void refill()
        {
            end = source->read(buffer.data(), buffer.size());
            pos = 0;
            eof = end == 0;
        }
    };
    State* state = nullptr;
    bool atEnd() const { return !state || (state->pos >= state->end && (state->refill(), state->eof)); }
    reference operator*() const { return state->buffer[state->pos]; }
    SourceIterator& operator++()
    {
        ++state->pos;
        return *this;
    }
    bool operator==(const SourceIterator& other) const { return atEnd() == other.atEnd(); }
    bool operator!=(const SourceIterator& other) const { return !(*this == other); }
};

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: bench_load scan|nlohmann|nlohmann-buffer|load|load-args|summary|keyaverages TRACE\n");
        return 2;
    }
    const std::string mode = argv[1];
    const std::string path = argv[2];
    const auto start = bench::Clock::now();
    uint64_t events = 0, bytes = 0;
    std::string note;
    try {
        if (mode == "scan") {
            auto source = io::openTraceFile(path);
            io::JsonReader reader(*source);
            for (io::JsonToken t; (t = reader.next()) != io::JsonToken::End;)
                events += t == io::JsonToken::ObjectBegin && reader.depth() == 3;
            bytes = reader.bytesRead();
        } else if (mode == "nlohmann") {
            auto source = io::openTraceFile(path);
            SourceIterator::State state{source.get()};
            NullSax sax;
            nlohmann::json::sax_parse(SourceIterator{&state}, SourceIterator{}, &sax);
            events = sax.objects;
            bytes = source->consumedInputBytes();
        } else if (mode == "nlohmann-buffer") {
            auto source = io::openTraceFile(path);
            std::string text;
            char buffer[1 << 18];
            for (size_t n; (n = source->read(buffer, sizeof buffer)) > 0;)
                text.append(buffer, n);
            const auto parseStart = bench::Clock::now();
            NullSax sax;
            if (!nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &sax))
                return 2;
            const double parse = bench::secondsSince(parseStart);
            char line[96];
            std::snprintf(line, sizeof line, "  [parse alone %.3f s, %.1f MB/s]", parse, static_cast<double>(text.size()) / 1e6 / parse);
            note = line;
            events = sax.objects;
            bytes = text.size();
        } else if (mode == "load" || mode == "load-args" || mode == "summary" || mode == "keyaverages") {
            trace::LoadOptions options;
            options.keepRawArgs = mode == "load-args";
            const auto t = trace::loadTrace(path, options);
            events = t->stats.records;
            bytes = t->stats.decodedBytes;
            if (mode == "keyaverages") {
                // Key averages alone, best of five on the loaded trace (the time printed is the whole run's).
                double best = 1e9, first = 0;
                size_t rows = 0;
                for (int run = 0; run < 5; ++run) {
                    const auto runStart = bench::Clock::now();
                    const stats::KeyAverages averages = stats::computeKeyAverages(*t);
                    best = std::min(best, bench::secondsSince(runStart));
                    if (run == 0)
                        first = best;
                    rows = averages.rows.size();
                }
                char line[96];
                std::snprintf(line, sizeof line, "  [key averages first %.1f ms, best of 5 %.1f ms, %zu rows]", first * 1e3, best * 1e3,
                              rows);
                note = line;
            }
            if (mode == "summary") {
                const auto averages = stats::computeKeyAverages(*t);
                stats::TorchTableOptions table;
                table.sortBy = stats::SortKey::SelfDeviceTimeTotal;
                table.rowLimit = -1;
                std::fprintf(stderr, "table: %zu bytes, %zu rows\n", stats::renderTorchTable(averages, table).size(), averages.rows.size());
            }
        } else {
            std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
            return 2;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
    const double seconds = bench::secondsSince(start);
    std::printf("%-15s %8.3f s  %8.1f MB/s  %10.0f events/s  peak RSS %7.1f MB  (%llu JSON bytes, %llu events)%s\n", mode.c_str(), seconds,
                static_cast<double>(bytes) / 1e6 / seconds, static_cast<double>(events) / seconds, peakRssMb(),
                static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(events), note.c_str());
    return 0;
}
