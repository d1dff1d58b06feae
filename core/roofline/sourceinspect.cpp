// SPDX-License-Identifier: MIT
#include "roofline/sourceinspect.h"

#include "roofline/cudalexer.h"

#include "io/tracefileerror.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

namespace tilescope::roofline {

namespace {

using namespace cudalexer;

constexpr uint64_t kMaxSourceBytes = 64ull << 20;
constexpr size_t kLinesKept = 5;

// The §7.4 indicators, in the order of its tables (Ampere, Hopper, Blackwell).
enum Feature : int {
    MmaSync,
    MmaSyncPtx,
    GemmMmaSync,
    Wmma,
    Ldmatrix,
    CpAsync,
    Wgmma,
    WgmmaPtx,
    GemmWgmma,
    WgmmaSync,
    TensorMapParameter,
    Tma,
    Mbarrier,
    WarpSpecialisation,
    Tcgen05Mma,
    Tcgen05Memory,
    FeatureCount
};

struct FeatureSpec
{
    const char* name;
    const char* meaning;
    TensorCorePath mma;
    const char* movement;
};

const std::array<FeatureSpec, FeatureCount> kFeatures{{
    {"tl::mma_sync", "warp-level tensor-core MMA (mma.sync; HMMA on Ampere-class GPUs)", TensorCorePath::MmaSync, ""},
    {"mma.sync (inline PTX)", "warp-level tensor-core MMA written as PTX in asm()", TensorCorePath::MmaSync, ""},
    {"tl::gemm_ss/rs/sr (mma.sync)", "CuTe tile GEMM on mma.sync tensor cores (use_wgmma false or absent)", TensorCorePath::MmaSync, ""},
    {"nvcuda::wmma::mma_sync", "WMMA fragment tensor-core MMA", TensorCorePath::Wmma, ""},
    {"ldmatrix/stmatrix", "ldmatrix/stmatrix fragment loads and stores (feed MMAs, are not MMAs)", TensorCorePath::None, ""},
    {"cp.async (tl::cp_async_*)", "cp.async global-to-shared copies (Ampere-style software pipeline)", TensorCorePath::None, "cp.async"},
    {"tl::wgmma_*", "Hopper WGMMA tensor-core MMA (wgmma.mma_async)", TensorCorePath::Wgmma, ""},
    {"wgmma.mma_async (inline PTX)", "Hopper WGMMA written as PTX in asm()", TensorCorePath::Wgmma, ""},
    {"tl::gemm_ss/rs/sr<..., true>", "CuTe tile GEMM on Hopper WGMMA (use_wgmma template argument true)", TensorCorePath::Wgmma, ""},
    {"tl::warpgroup_* / WGMMA descriptors", "WGMMA fences and matrix descriptors (accompany WGMMAs, are not MMAs)", TensorCorePath::None,
     ""},
    {"CUtensorMap parameter", "TMA descriptor passed to the kernel (__grid_constant__ const CUtensorMap)", TensorCorePath::None, ""},
    {"TMA (tl::tma_*)", "Tensor Memory Accelerator bulk copies (tma_load/tma_store, cp.async.bulk)", TensorCorePath::None, "TMA"},
    {"mbarrier", "shared-memory mbarrier init/arrive/wait (asynchronous copy and MMA pipeline)", TensorCorePath::None, "mbarrier"},
    {"tl::warpgroup_reg_alloc/dealloc", "warp specialisation: producer and consumer warpgroups trade registers (setmaxnreg)",
     TensorCorePath::None, ""},
    {"tl::tcgen05mma_*", "Blackwell tcgen05 tensor-core MMA (accumulator in tensor memory)", TensorCorePath::Tcgen05, ""},
    {"tl::tcgen05_* / tl::tmem_*", "Blackwell tensor-memory allocation, loads and MMA commits (accompany tcgen05 MMAs)",
     TensorCorePath::None, ""},
}};

struct Hit
{
    Feature feature;
    size_t pos;
    std::string precision; // MMA operand type from tl::DataType::k…, when the call names it
};

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

// tl::gemm_ss's use_wgmma flag: the 13th template argument of the current signature (M, N, K, warps, trans,
// clear_accum, lda, ldb, offset_a, offset_b, use_wgmma, wg_wait), or the 9th in the older one without
// lda..offset_b (`tl::gemm_ss<64, 64, 64, 4, 1, 0, 0, 0, true>` in era A sources). The trans and clear
// arguments are printed as 0/1, so a bool literal at either place is the flag.
std::optional<bool> useWgmmaFlag(std::string_view templateArguments)
{
    const auto args = splitTemplateArguments(templateArguments);
    for (const size_t index : {size_t(8), size_t(12)})
        if (index < args.size() && (args[index] == "true" || args[index] == "false"))
            return args[index] == "true";
    return std::nullopt;
}

std::string precisionOf(std::string_view templateArguments)
{
    const size_t at = templateArguments.find("DataType::k");
    if (at == std::string_view::npos)
        return {};
    size_t end = at + 11;
    while (end < templateArguments.size() && isIdentChar(templateArguments[end]))
        ++end;
    const std::string type(templateArguments.substr(at + 11, end - at - 11));
    if (type == "BFloat16")
        return "bf16";
    if (type == "Float16")
        return "fp16";
    if (type.starts_with("Float8"))
        return "fp8";
    if (type == "TensorFloat32" || type == "Float32")
        return "tf32";
    if (type == "Float64")
        return "fp64";
    if (type == "Int8" || type == "UInt8")
        return "int8";
    return {};
}

std::optional<Feature> featureOfTlCall(std::string_view name, std::string_view templateArguments, bool& noWgmmaFlag)
{
    if (name.ends_with("wmma::mma_sync"))
        return Wmma;
    if (!name.starts_with("tl::"))
        return std::nullopt;
    const std::string_view n = name.substr(4);
    if (n.find("::") != std::string_view::npos)
        return std::nullopt;
    if (n.find("mma_sync") != std::string_view::npos)
        return MmaSync;
    for (const char* gemm : {"gemm_ss", "gemm_rs", "gemm_sr", "gemm_sp_ss", "gemm_sp_rs"})
        if (n == gemm) {
            const auto flag = useWgmmaFlag(templateArguments);
            noWgmmaFlag = noWgmmaFlag || !flag;
            return flag.value_or(false) ? GemmWgmma : GemmMmaSync;
        }
    if (n.starts_with("wgmma_"))
        return Wgmma;
    for (const char* sync : {"warpgroup_arrive", "warpgroup_commit_batch", "warpgroup_wait", "warpgroup_fence_operand", "wait_wgmma",
                             "initialize_wgmma_descriptor", "increase_descriptor_offset"})
        if (n == sync)
            return WgmmaSync;
    if (n.starts_with("tcgen05mma_") || n.starts_with("tcgen5mma_"))
        return Tcgen05Mma;
    if (n.starts_with("tcgen05_") || n.starts_with("tmem_"))
        return Tcgen05Memory;
    if (n.starts_with("ptx_ldmatrix") || n.starts_with("ptx_stmatrix"))
        return Ldmatrix;
    if (n.starts_with("tma_") || n == "prefetch_tma_descriptor")
        return Tma;
    if (n.starts_with("cp_async"))
        return CpAsync;
    if (n.starts_with("mbarrier_"))
        return Mbarrier;
    if (n.starts_with("warpgroup_reg_"))
        return WarpSpecialisation;
    return std::nullopt;
}

// PTX mnemonics inside one asm() string literal, each occurrence a call site.
void ptxHits(const Cleaned::Piece& piece, std::vector<Hit>& hits)
{
    const std::string text = lower(piece.text);
    auto each = [&](std::string_view needle, auto&& classify) {
        for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size()))
            if (const auto f = classify(at))
                hits.push_back({*f, piece.pos + at, {}});
    };
    using Opt = std::optional<Feature>;
    each("mma.sync", [&](size_t at) -> Opt { return at >= 5 && text.compare(at - 5, 5, "wmma.") == 0 ? Wmma : MmaSyncPtx; });
    each("wgmma.", [&](size_t at) -> Opt { return text.compare(at, 15, "wgmma.mma_async") == 0 ? WgmmaPtx : WgmmaSync; });
    each("tcgen05.", [&](size_t at) -> Opt { return text.compare(at, 11, "tcgen05.mma") == 0 ? Tcgen05Mma : Tcgen05Memory; });
    each("cp.async.", [&](size_t at) -> Opt { return text.compare(at, 13, "cp.async.bulk") == 0 ? Tma : CpAsync; });
    each("mbarrier.", [](size_t) -> Opt { return Mbarrier; });
    each("ldmatrix", [](size_t) -> Opt { return Ldmatrix; });
    each("stmatrix", [](size_t) -> Opt { return Ldmatrix; });
    each("setmaxnreg", [](size_t) -> Opt { return WarpSpecialisation; });
}

// Variables holding mbarriers: `auto mbar = reinterpret_cast<Barrier*>(mbar_mem);`, `Barrier* bars`.
std::set<std::string> barrierVariables(const std::string& code)
{
    std::set<std::string> names;
    for (size_t at = code.find("Barrier"); at != std::string::npos; at = code.find("Barrier", at + 7)) {
        if ((at > 0 && isIdentChar(code[at - 1]) && !(at >= 2 && code.compare(at - 2, 2, "::") == 0))
            || (at + 7 < code.size() && isIdentChar(code[at + 7])))
            continue;
        size_t after = at + 7;
        while (after < code.size() && (isSpace(code[after]) || code[after] == '*' || code[after] == '&'))
            ++after;
        if (after < code.size() && isIdentStart(code[after])) { // a declaration: Barrier* name
            size_t end = after;
            while (end < code.size() && isIdentChar(code[end]))
                ++end;
            names.insert(code.substr(after, end - after));
            continue;
        }
        // a cast: the variable assigned in this statement
        const size_t statement = code.find_last_of(";{}", at);
        const size_t eq = code.find('=', statement == std::string::npos ? 0 : statement);
        if (eq == std::string::npos || eq > at)
            continue;
        size_t e = eq;
        while (e > 0 && isSpace(code[e - 1]))
            --e;
        size_t b = e;
        while (b > 0 && isIdentChar(code[b - 1]))
            --b;
        if (b < e)
            names.insert(code.substr(b, e - b));
    }
    return names;
}

// `.wait(` and friends on a barrier object: the receiver before the '.', with any [index] skipped.
std::string receiverBefore(const std::string& code, size_t dot)
{
    size_t e = dot;
    while (e > 0 && isSpace(code[e - 1]))
        --e;
    if (e > 0 && code[e - 1] == ']') {
        int d = 0;
        while (e > 0) {
            --e;
            if (code[e] == ']')
                ++d;
            else if (code[e] == '[' && --d == 0)
                break;
        }
        while (e > 0 && isSpace(code[e - 1]))
            --e;
    }
    size_t b = e;
    while (b > 0 && isIdentChar(code[b - 1]))
        --b;
    return code.substr(b, e - b);
}

struct KernelRange
{
    std::string name;
    size_t begin = 0, end = 0; // the parameter list through the closing brace of the body
    size_t namePos = 0;
};

std::vector<KernelRange> findKernels(const std::string& code, std::vector<Hit>& hits)
{
    std::vector<KernelRange> kernels;
    for (size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 10)) {
        if ((at > 0 && isIdentChar(code[at - 1])) || (at + 10 < code.size() && isIdentChar(code[at + 10])))
            continue;
        size_t i = at + 10;
        std::string name;
        size_t namePos = 0, open = std::string::npos;
        while (i < code.size()) {
            i = skipSpaces(code, i);
            if (i >= code.size() || code[i] == ';' || code[i] == '{')
                break;
            if (isIdentStart(code[i])) {
                size_t end = i;
                while (end < code.size() && (isIdentChar(code[end]) || (code[end] == ':' && end + 1 < code.size() && code[end + 1] == ':')))
                    end += code[end] == ':' ? 2 : 1;
                const std::string word = code.substr(i, end - i);
                const size_t next = skipSpaces(code, end);
                if (next < code.size() && code[next] == '(') {
                    if (word == "__launch_bounds__" || word == "__cluster_dims__" || word == "__maxnreg__") {
                        i = matchClose(code, next);
                        if (i == std::string::npos)
                            break;
                        continue;
                    }
                    name = word;
                    namePos = i;
                    open = next;
                    break;
                }
                i = end;
                continue;
            }
            ++i;
        }
        if (open == std::string::npos)
            continue;
        const size_t close = matchClose(code, open);
        if (close == std::string::npos)
            continue;
        const size_t body = skipSpaces(code, close);
        if (body >= code.size() || code[body] != '{')
            continue; // a declaration
        const size_t bodyEnd = matchClose(code, body);
        KernelRange k{name, open, bodyEnd == std::string::npos ? code.size() : bodyEnd, namePos};
        // TMA descriptors arrive as kernel parameters.
        for (size_t p = code.find("CUtensorMap", open); p != std::string::npos && p < close; p = code.find("CUtensorMap", p + 11))
            if (!isIdentChar(code[p + 11]) && !(p > 0 && isIdentChar(code[p - 1])))
                hits.push_back({TensorMapParameter, p, {}});
        kernels.push_back(k);
        at = k.end > at + 10 ? k.end - 10 : at;
    }
    return kernels;
}

std::vector<Hit> callSites(const std::string& code, bool& noWgmmaFlag)
{
    std::vector<Hit> hits;
    const std::set<std::string> barriers = barrierVariables(code);
    const size_t n = code.size();
    size_t i = 0;
    while (i < n) {
        if (!isIdentStart(code[i]) || (i > 0 && isIdentChar(code[i - 1]))) {
            ++i;
            continue;
        }
        const size_t start = i;
        size_t end = i;
        while (end < n
               && (isIdentChar(code[end]) || (code[end] == ':' && end + 2 < n && code[end + 1] == ':' && isIdentStart(code[end + 2]))))
            end += code[end] == ':' ? 2 : 1;
        const std::string_view name(code.data() + start, end - start);
        size_t next = skipSpaces(code, end);
        std::string_view templateArguments;
        if (next < n && code[next] == '<') {
            const size_t closeAngle = matchAngle(code, next);
            if (closeAngle != std::string::npos) {
                templateArguments = std::string_view(code.data() + next + 1, closeAngle - next - 2);
                next = skipSpaces(code, closeAngle);
            }
        }
        i = end;
        if (next >= n || code[next] != '(')
            continue;
        if (const auto f = featureOfTlCall(name, templateArguments, noWgmmaFlag)) {
            const TensorCorePath mma = kFeatures[*f].mma;
            hits.push_back({*f, start, mma != TensorCorePath::None ? precisionOf(templateArguments) : std::string()});
            continue;
        }
        // Method calls on mbarrier objects (era B: mbarrier[i].init(n), .wait(phase), .arrive(), .expect_transaction(b)).
        size_t before = start;
        while (before > 0 && isSpace(code[before - 1]))
            --before;
        const bool member = before > 0 && (code[before - 1] == '.' || (before > 1 && code[before - 1] == '>' && code[before - 2] == '-'));
        if (!member)
            continue;
        const bool barrierOnly = name == "expect_transaction" || name == "arrive_and_expect_tx";
        if (barrierOnly || name == "init" || name == "wait" || name == "arrive" || name == "try_wait") {
            const std::string receiver = receiverBefore(code, code[before - 1] == '.' ? before - 1 : before - 2);
            if (barrierOnly || barriers.count(receiver) || lower(receiver).find("mbar") != std::string::npos)
                hits.push_back({Mbarrier, start, {}});
        }
    }
    return hits;
}

std::string joinComma(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

SourceSummary summarise(const std::vector<Hit>& hits, const LineIndex& lines, size_t from, size_t to)
{
    SourceSummary s;
    std::array<SourceFeature, FeatureCount> all{};
    std::array<std::string, FeatureCount> precision{};
    for (const Hit& h : hits) {
        if (h.pos < from || h.pos >= to)
            continue;
        SourceFeature& f = all[h.feature];
        ++f.callSites;
        const int line = lines.line(h.pos);
        if (f.lines.size() < kLinesKept && (f.lines.empty() || f.lines.back() != line))
            f.lines.push_back(line);
        if (precision[h.feature].empty())
            precision[h.feature] = h.precision;
    }
    std::array<uint64_t, 5> mmaCalls{}; // by TensorCorePath
    std::array<std::string, 5> mmaPrecision{};
    for (int k = 0; k < FeatureCount; ++k) {
        SourceFeature& f = all[size_t(k)];
        if (f.callSites == 0)
            continue;
        f.name = kFeatures[size_t(k)].name;
        f.meaning = kFeatures[size_t(k)].meaning;
        f.mma = kFeatures[size_t(k)].mma;
        f.movement = kFeatures[size_t(k)].movement;
        if (f.mma != TensorCorePath::None) {
            mmaCalls[size_t(f.mma)] += f.callSites;
            if (mmaPrecision[size_t(f.mma)].empty())
                mmaPrecision[size_t(f.mma)] = precision[size_t(k)];
        }
        if (!f.movement.empty() && std::find(s.dataMovement.begin(), s.dataMovement.end(), f.movement) == s.dataMovement.end())
            s.dataMovement.push_back(f.movement);
        s.features.push_back(f);
    }
    // Newest family first: a Hopper kernel that also issues a few mma.sync is a WGMMA kernel.
    std::vector<std::string> others;
    for (const TensorCorePath p : {TensorCorePath::Tcgen05, TensorCorePath::Wgmma, TensorCorePath::MmaSync, TensorCorePath::Wmma}) {
        if (mmaCalls[size_t(p)] == 0)
            continue;
        if (s.tensorCore == TensorCorePath::None) {
            s.tensorCore = p;
            s.mmaPrecision = mmaPrecision[size_t(p)];
        } else {
            others.push_back(tensorCorePathName(p) + " " + std::to_string(mmaCalls[size_t(p)]));
        }
    }
    std::string c = "tensor cores: ";
    if (s.tensorCore == TensorCorePath::None) {
        c += "none seen (no MMA call site)";
    } else {
        const uint64_t calls = mmaCalls[size_t(s.tensorCore)];
        c += tensorCorePathMeaning(s.tensorCore) + " (" + std::to_string(calls) + (calls == 1 ? " MMA call site" : " MMA call sites")
            + (s.mmaPrecision.empty() ? "" : ", " + s.mmaPrecision) + ")";
        if (!others.empty())
            c += ", also " + joinComma(others);
    }
    std::vector<std::string> movement;
    for (const auto& m : s.dataMovement)
        movement.push_back(m == "mbarrier" ? "mbarrier pipeline" : m);
    c += "; data movement: " + (movement.empty() ? std::string("plain loads and stores") : joinComma(movement));
    if (all[WarpSpecialisation].callSites > 0)
        c += "; warp-specialised";
    s.conclusion = c;
    return s;
}

// §7.5 rule 1: tokens found only in #include lines, comments or ordinary strings prove nothing.
void mentionCaveats(const Cleaned& cleaned, const SourceSummary& file, const LineIndex& lines, std::vector<std::string>& caveats)
{
    struct Group
    {
        const char* label;
        std::vector<const char*> tokens;
        std::vector<Feature> features;
    };
    const std::vector<Group> groups{
        {"wgmma", {"wgmma", "gemm_sm90"}, {Wgmma, WgmmaPtx, GemmWgmma}},
        {"mma.sync", {"mma_sync", "mma.sync", "gemm_sm80", "instruction/mma.h"}, {MmaSync, MmaSyncPtx, GemmMmaSync}},
        {"tcgen05", {"tcgen05", "tcgen_05"}, {Tcgen05Mma}},
        {"TMA", {"tma_", "copy_sm90", "cp.async.bulk"}, {Tma}},
        {"cp.async", {"cp_async", "cp.async"}, {CpAsync}},
        {"mbarrier", {"mbarrier"}, {Mbarrier}},
    };
    for (const Group& g : groups) {
        uint64_t calls = 0;
        for (const Feature f : g.features)
            calls += file.callSitesOf(kFeatures[f].name);
        if (calls > 0)
            continue;
        std::map<std::string, std::vector<int>> where; // kind -> lines
        for (const auto& piece : cleaned.removed) {
            const std::string text = lower(piece.text);
            bool found = false;
            for (const char* t : g.tokens)
                found = found || text.find(t) != std::string::npos;
            if (!found)
                continue;
            const char* kind = piece.kind == Cleaned::Kind::Comment ? "comments"
                : piece.kind == Cleaned::Kind::String               ? "string literals"
                : text.find("include") != std::string::npos         ? "#include lines"
                                                                    : "preprocessor lines";
            auto& l = where[kind];
            if (l.size() < kLinesKept)
                l.push_back(lines.line(piece.pos));
        }
        if (where.empty())
            continue;
        std::string places;
        for (const auto& [kind, ls] : where) {
            std::string numbers;
            for (const int l : ls)
                numbers += (numbers.empty() ? "" : ", ") + std::to_string(l);
            places += (places.empty() ? "" : ", ") + kind + " (line" + (ls.size() > 1 ? "s " : " ") + numbers + ")";
        }
        caveats.push_back(std::string("'") + g.label + "' appears only in " + places
                          + ", with no call site: included headers and comments prove nothing");
    }
}

} // namespace

std::string tensorCorePathName(TensorCorePath path)
{
    switch (path) {
    case TensorCorePath::MmaSync: return "mma.sync";
    case TensorCorePath::Wmma: return "wmma";
    case TensorCorePath::Wgmma: return "wgmma";
    case TensorCorePath::Tcgen05: return "tcgen05";
    case TensorCorePath::None: break;
    }
    return "none";
}

std::string tensorCorePathMeaning(TensorCorePath path)
{
    switch (path) {
    case TensorCorePath::MmaSync: return "Ampere-class mma.sync";
    case TensorCorePath::Wmma: return "WMMA (nvcuda::wmma)";
    case TensorCorePath::Wgmma: return "Hopper WGMMA";
    case TensorCorePath::Tcgen05: return "Blackwell tcgen05";
    case TensorCorePath::None: break;
    }
    return "none seen";
}

uint64_t SourceSummary::callSitesOf(std::string_view featureName) const
{
    for (const auto& f : features)
        if (f.name == featureName)
            return f.callSites;
    return 0;
}

SourceInspection inspectGeneratedSource(std::string_view text)
{
    SourceInspection out;
    const Cleaned cleaned = clean(text);
    const LineIndex lines(text);
    bool noWgmmaFlag = false;
    std::vector<Hit> hits = callSites(cleaned.code, noWgmmaFlag);
    for (const auto& piece : cleaned.asmTexts)
        ptxHits(piece, hits);
    const std::vector<KernelRange> kernels = findKernels(cleaned.code, hits);
    out.file = summarise(hits, lines, 0, text.size());
    for (const KernelRange& k : kernels)
        out.kernels.push_back({k.name, lines.line(k.namePos), summarise(hits, lines, k.begin, k.end)});
    for (const auto& [pos, target] : cleaned.includes)
        out.includes.push_back(target);

    bool tileLang = false;
    for (const auto& inc : out.includes)
        tileLang = tileLang || inc.find("tl_templates") != std::string::npos;
    tileLang = tileLang || cleaned.code.find("tl::") != std::string::npos;
    if (kernels.empty())
        out.caveats.push_back("no __global__ kernel definition found: give the device source (kernel.get_kernel_source(), "
                              "device_kernel.cu of the TileLang cache), not the host source");
    if (!tileLang)
        out.caveats.push_back("no tl_templates include and no tl:: call: this may not be TileLang output; only the inline PTX "
                              "and WMMA rules apply");
    mentionCaveats(cleaned, out.file, lines, out.caveats);
    bool gemmHeader = false;
    for (const auto& inc : out.includes)
        gemmHeader = gemmHeader || inc.ends_with("cuda/gemm.h");
    if (gemmHeader && out.file.tensorCore == TensorCorePath::None)
        out.caveats.push_back("gemm.h is included but nothing calls a GEMM: TileLang up to v0.1.11 includes it in every kernel");
    if (out.file.callSitesOf(kFeatures[TensorMapParameter].name) > 0 && out.file.callSitesOf(kFeatures[Tma].name) == 0)
        out.caveats.push_back("CUtensorMap parameters but no tl::tma_* call site: the descriptors are passed, no TMA copy is issued here");
    if (noWgmmaFlag)
        out.caveats.push_back("tl::gemm_* without a use_wgmma template argument: mma.sync through gemm_sm80.h; built for sm90 the "
                              "header default (WGMMA) would apply, so check the SASS");
    if (!cleaned.asmTexts.empty() && (out.file.callSitesOf(kFeatures[MmaSyncPtx].name) || out.file.callSitesOf(kFeatures[WgmmaPtx].name)))
        out.caveats.push_back("inline PTX counts where it is written, also in a helper that may never be called");
    if (out.file.tensorCore != TensorCorePath::None)
        out.caveats.push_back("call sites show what TileLang emitted; the proof is the SASS of the cached binary (cuobjdump -sass: "
                              "HMMA, HGMMA, UTCHMMA...)");
    return out;
}

SourceInspection inspectGeneratedSourceFile(const std::string& path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw io::TraceFileError(path, std::nullopt, "cannot open the generated source: no such file");
    if (std::filesystem::is_directory(status))
        throw io::TraceFileError(path, std::nullopt, "is a directory, not a generated .cu source");
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxSourceBytes)
        throw io::TraceFileError(path, std::nullopt,
                                 "too large for a generated source (" + std::to_string(size >> 20) + " MiB; the limit is 64 MiB)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw io::TraceFileError(path, std::nullopt, "cannot open the generated source for reading");
    std::string text;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, size_t(in.gcount()));
        if (text.size() > kMaxSourceBytes)
            throw io::TraceFileError(path, std::nullopt, "too large for a generated source (over 64 MiB)");
    }
    if (in.bad())
        throw io::TraceFileError(path, std::nullopt, "read error");
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw io::TraceFileError(path, std::nullopt, "empty file: no generated source in it");
    if (const size_t nul = text.find('\0'); nul != std::string::npos)
        throw io::TraceFileError(path, uint64_t(nul),
                                 "binary data (a NUL byte), not CUDA source: give the .cu "
                                 "(kernel.get_kernel_source(), device_kernel.cu), not a cubin or .so");
    SourceInspection out = inspectGeneratedSource(text);
    out.path = path;
    return out;
}

SourceEvidence sourceEvidenceFor(const SourceInspection& inspection, std::string_view kernelName)
{
    SourceEvidence e;
    e.path = inspection.path;
    const SourceKernel* chosen = nullptr;
    if (!kernelName.empty())
        for (const auto& k : inspection.kernels)
            if (k.name == kernelName)
                chosen = &k;
    if (!chosen && inspection.kernels.size() == 1 && !kernelName.empty()) {
        chosen = &inspection.kernels[0];
        if (chosen->name != kernelName)
            e.caveats.push_back("the file's kernel is " + chosen->name + ", not " + std::string(kernelName) + ": the findings are "
                                + chosen->name + "'s");
    }
    if (chosen) {
        e.kernel = chosen->name;
        e.summary = chosen->summary;
    } else {
        e.summary = inspection.file;
        if (inspection.kernels.size() > 1 && !kernelName.empty()) {
            std::vector<std::string> names;
            for (const auto& k : inspection.kernels)
                names.push_back(k.name);
            e.caveats.push_back("the file defines " + std::to_string(names.size()) + " kernels (" + joinComma(names) + "), none named "
                                + std::string(kernelName) + ": the findings are the whole file's");
        }
    }
    e.caveats.insert(e.caveats.end(), inspection.caveats.begin(), inspection.caveats.end());
    return e;
}

} // namespace tilescope::roofline
