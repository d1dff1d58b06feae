// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"
#include "trace/namefit.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::report {

// One classified kernel or region as a reader sees it, whatever the medium: the CLI's classify table prints
// toText(), the GUI's roofline card shows toHtml().
struct Verdict
{
    std::string className; // className(cls)
    std::string colour;    // the class's colour, "#rrggbb" (the card's headline and the plot's points)
    std::string strength;
    std::string name;
    uint64_t calls = 0;
    std::string total;                // total time, torch's format
    std::string workSource;           // how the work was found, in words
    std::vector<std::string> bullets; // the evidence, one line each

    struct Feature
    {
        std::string name, meaning, lines;
        uint64_t callSites = 0;
    };
    struct Source
    {
        std::string path, kernel, conclusion;
        bool contradicts = false; // the verdict and the source's MMA call sites disagree
        std::vector<Feature> features;
    };
    std::optional<Source> source;
    std::vector<std::string> caveats; // the source's

    struct Kernel
    {
        uint64_t calls = 0;
        std::string total, share, name; // share of the region's GPU busy time, "12.5%"
    };
    std::vector<Kernel> kernels; // regions: the activities inside, largest first
};

Verdict verdictOf(const roofline::Classification& c);

// The class's colour, "#rrggbb".
std::string_view classColour(roofline::RooflineClass cls);

// The names of `verdicts` (and their kernels'), shortened for toText as one set: names that would read the
// same in one listing are told apart.
trace::NameShortener textNames(const std::vector<Verdict>& verdicts);
// The CLI's block: "  NAME  [N calls, TIME]  CLASS (STRENGTH; WORK SOURCE)", then indented lines; the names
// shortened by `names` (textNames of the listing it is part of), else as the verdict's alone.
std::string toText(const Verdict& v, const trace::NameShortener* names = nullptr);
// The card: headline, evidence list, the source's findings, the region's kernels; every text escaped.
std::string toHtml(const Verdict& v);

// `text` with &, <, > and " escaped for HTML.
std::string htmlEscaped(std::string_view text);

} // namespace tilescope::report
