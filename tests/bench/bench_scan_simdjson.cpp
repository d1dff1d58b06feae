// SPDX-License-Identifier: MIT
// The floor for loading a trace: a bare simdjson on-demand pass (Debian's libsimdjson-dev) that visits
// every element of traceEvents and touches each event's fields (ph and name as strings, ts and dur as
// numbers, args key by key), building nothing. Prints the read (or inflate) time and the scan time apart,
// their sum, and peak RSS. A .gz file is inflated with zlib into one padded buffer first.
// Usage: bench_scan_simdjson TRACE[.gz]
#include <simdjson.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

bool isGzip(const std::string& path)
{
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    unsigned char magic[2] = {0, 0};
    const size_t got = std::fread(magic, 1, 2, f);
    std::fclose(f);
    return got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// Inflates the whole file (concatenated members too) into a padded buffer; false on a zlib error.
bool inflateFile(const std::string& path, simdjson::padded_string& out)
{
    gzFile in = gzopen(path.c_str(), "rb");
    if (!in)
        return false;
    gzbuffer(in, 1 << 20);
    std::string text;
    std::string block(1 << 22, '\0');
    for (;;) {
        const int got = gzread(in, block.data(), static_cast<unsigned>(block.size()));
        if (got < 0) {
            gzclose(in);
            return false;
        }
        if (got == 0)
            break;
        text.append(block.data(), static_cast<size_t>(got));
    }
    gzclose(in);
    out = simdjson::padded_string(text);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s TRACE[.json|.gz]\n", argv[0]);
        return 2;
    }
    const std::string path = argv[1];
    const auto startRead = Clock::now();
    simdjson::padded_string json;
    const bool gzip = isGzip(path);
    if (gzip) {
        if (!inflateFile(path, json)) {
            std::fprintf(stderr, "%s: cannot inflate\n", path.c_str());
            return 1;
        }
    } else if (simdjson::padded_string::load(path).get(json)) {
        std::fprintf(stderr, "%s: cannot read\n", path.c_str());
        return 1;
    }
    const double readSeconds = seconds(startRead);

    const auto startScan = Clock::now();
    simdjson::ondemand::parser parser;
    uint64_t events = 0, fields = 0, argKeys = 0;
    double checksum = 0;
    auto doc = parser.iterate(json);
    simdjson::ondemand::object top;
    if (doc.get_object().get(top)) {
        std::fprintf(stderr, "%s: not a JSON object\n", path.c_str());
        return 1;
    }
    for (auto topField : top) {
        std::string_view key;
        if (topField.unescaped_key().get(key) || key != "traceEvents")
            continue;
        simdjson::ondemand::array array;
        if (topField.value().get_array().get(array)) {
            std::fprintf(stderr, "%s: traceEvents is not an array\n", path.c_str());
            return 1;
        }
        for (auto element : array) {
            simdjson::ondemand::object event;
            if (element.get_object().get(event))
                return 1;
            ++events;
            for (auto field : event) {
                std::string_view name;
                if (field.unescaped_key().get(name))
                    return 1;
                ++fields;
                if (name == "ph" || name == "name") {
                    std::string_view text;
                    if (!field.value().get_string().get(text))
                        checksum += static_cast<double>(text.size());
                } else if (name == "ts" || name == "dur") {
                    double v = 0;
                    if (!field.value().get_double().get(v))
                        checksum += v;
                } else if (name == "args") {
                    simdjson::ondemand::object args;
                    if (!field.value().get_object().get(args)) {
                        for (auto arg : args) {
                            std::string_view argKey;
                            if (!arg.unescaped_key().get(argKey))
                                ++argKeys;
                        }
                    }
                }
            }
        }
    }
    const double scanSeconds = seconds(startScan);
    const double mb = static_cast<double>(json.size()) / 1e6;
    std::printf("simdjson %d.%d.%d (%s) on-demand scan: %s %.2f s (%s %.2f s + scan %.2f s, %.0f MB/s), %llu events, %llu fields, %llu "
                "args keys, peak RSS %.0f MB (checksum %.0f)\n",
                int(simdjson::SIMDJSON_VERSION_MAJOR), int(simdjson::SIMDJSON_VERSION_MINOR), int(simdjson::SIMDJSON_VERSION_REVISION),
                simdjson::get_active_implementation()->name().c_str(), path.c_str(), readSeconds + scanSeconds, gzip ? "inflate" : "read",
                readSeconds, scanSeconds, mb / scanSeconds, static_cast<unsigned long long>(events),
                static_cast<unsigned long long>(fields), static_cast<unsigned long long>(argKeys), peakRssMb(), checksum);
    return 0;
}
