// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::trace {
struct DeviceProperties;
}

namespace tilescope::roofline {

// Peak rates of one GPU, in bytes/s and FLOP/s (OPS for int8); 0 where the part has no such unit.
struct Ceilings
{
    double memoryBytesPerS = 0;
    double fp64 = 0, fp32 = 0, tf32 = 0, bf16 = 0, fp16 = 0, fp8 = 0, int8 = 0;
};

// The compute rate of a roof named as classify names them ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8",
// "int8"); 0 for any other name and where the part has no such unit.
double roofRate(const Ceilings& c, std::string_view roof);

struct DeviceEntry
{
    std::string id;
    std::vector<std::string> tokens, without;
    std::string computeCapability;
    int sms = 0;
    std::optional<double> minMemGiB, maxMemGiB;
    bool provisional = false;
    std::string source;
    Ceilings peaks;
};

// The datasheet table (resources/devices.json, compiled in), or another file of the same form.
std::vector<DeviceEntry> builtinDeviceDatabase();
std::vector<DeviceEntry> loadDeviceDatabase(const std::string& path);

struct DeviceMatch
{
    const DeviceEntry* entry = nullptr; // nullptr: unknown device
    std::vector<std::string> notes;     // why it matched, and any doubt (SM count or CC differ)
};

// roofline.md §2: tokens of the lower-cased name (split on spaces, '-' and '_'; a size such as "40 GB" read as
// "40gb"), most specific entry first,
// memory size for variants, then a check of compute capability and SM count.
DeviceMatch matchDevice(const std::vector<DeviceEntry>& database, const trace::DeviceProperties& device);

// The rows a GPU named by a user fits, in table order: the one whose id it is (case, spaces, '-' aside), else
// every row whose words the name has, as a trace's name is matched ("NVIDIA A100-SXM4-40GB", "Tesla
// V100-DGXS-32GB"), or whose words hold all of the name's ("4090", "a100 pcie"). A word of a row's `without`
// names another part there as in a trace's name ("RTX 4090 Laptop", "H200 NVL"). A size ("40gb", "40 GB",
// "40G") keeps the variants of that memory. Several rows: the name is ambiguous ("a100", "h100").
std::vector<const DeviceEntry*> deviceRowsNamed(const std::vector<DeviceEntry>& database, const std::string& name);
// Why `name` fits no row (the rows listed, and the word that kept it from the nearest) or several (those listed);
// empty when it names exactly one.
std::string gpuNameProblem(const std::vector<DeviceEntry>& database, const std::string& name);

// The row one GPU of a trace is graded against: its own (`device`; null when the trace names none) or, where the
// table knows no row for it, the one a user chose (`gpu`, empty for none). `error` when the choice fits no row,
// several, or not the trace's own known GPU (its times ran there).
struct GpuChoice
{
    const DeviceEntry* entry = nullptr;
    bool chosen = false;            // entry is the user's choice
    std::vector<std::string> notes; // matchDevice's, or what was chosen
    std::string error;
};
GpuChoice resolveGpu(const std::vector<DeviceEntry>& database, const trace::DeviceProperties* device, const std::string& gpu);

// Measured ceilings (tilescope-cli calibrate, ../shared/traces/h200/calibration/calibration.json):
// copy_bytes_per_s, bf16_mm_flops_per_s, fp16_mm_flops_per_s, tf32_mm_flops_per_s,
// fp32_notf32_mm_flops_per_s, fp8_mm_flops_per_s, fp64_mm_flops_per_s. Missing keys stay unset.
struct MeasuredCeilings
{
    std::optional<double> memoryBytesPerS, fp32, tf32, bf16, fp16, fp8, fp64;
    std::string gpu; // as recorded, to warn when it is not the trace's GPU
};
MeasuredCeilings loadMeasuredCeilings(const std::string& path);

// Measured values replace datasheet ones where present.
Ceilings applyMeasured(const Ceilings& datasheet, const MeasuredCeilings& measured);

// Ceilings measured on one GPU are wrong for a trace of another: true when both are named and the names
// differ (case and surrounding spaces aside). A trace without deviceProperties or ceilings without a "gpu"
// cannot tell, and the measured ones are taken.
bool measuredOnAnotherGpu(const MeasuredCeilings& measured, std::string_view traceGpu);
// Whether measured ceilings grade a GPU: by name where the trace names its GPU (measuredOnAnotherGpu); where it
// names none, a file whose GPU fits the chosen row (null: none chosen) or that names no GPU.
bool measuredApplies(const MeasuredCeilings& measured, std::string_view traceGpu, const DeviceEntry* chosen,
                     const std::vector<DeviceEntry>& database);

} // namespace tilescope::roofline
