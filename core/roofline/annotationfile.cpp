// SPDX-License-Identifier: MIT
#include "roofline/annotationfile.h"

#include "io/smalljson.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"

#include <regex>

namespace tilescope::roofline {

std::vector<std::string> annotationProblems(const Annotation& a)
{
    std::vector<std::string> problems;
    if (a.region.empty() == a.kernel.empty())
        problems.push_back(a.region.empty() ? "no name: give a region or a kernel" : "needs exactly one of 'region' or 'kernel'");
    if (a.kernel.starts_with("re:")) {
        try {
            std::regex check(a.kernel.substr(3));
        } catch (const std::regex_error& e) {
            problems.push_back(std::string("bad regular expression: ") + e.what());
        }
    }
    if (a.flops && !(*a.flops >= 0))
        problems.push_back("FLOPs must be a number >= 0");
    if (a.bytes && !(*a.bytes >= 0))
        problems.push_back("bytes must be a number >= 0");
    if (!a.flops && !a.bytes && a.sourcePath.empty())
        problems.push_back("gives neither 'flops' nor 'bytes' (nor a 'source')");
    return problems;
}

void inspectAnnotationSource(Annotation& a, const std::filesystem::path& sidecarFolder)
{
    if (a.sourcePath.empty())
        return;
    std::filesystem::path file(a.sourcePath);
    if (file.is_relative())
        file = sidecarFolder / file;
    a.source = inspectGeneratedSourceFile(file.string());
}

std::vector<Annotation> loadAnnotations(const std::string& path)
{
    const io::Json root = io::readSmallJsonFile(path);
    const io::Json* list = io::jsonMember(root, "annotations");
    if (!list || !list->is_array())
        throw io::TraceFileError(path, std::nullopt, "expected an object with an 'annotations' array");
    std::vector<Annotation> out;
    for (const io::Json& v : *list) {
        const std::string where = "annotation " + std::to_string(out.size()) + " ";
        Annotation a;
        const io::Json* region = io::jsonMember(v, "region");
        const io::Json* kernel = io::jsonMember(v, "kernel");
        if ((!region && !kernel) || (region && kernel))
            throw io::TraceFileError(path, std::nullopt, where + "needs exactly one of 'region' or 'kernel'");
        (region ? a.region : a.kernel) = io::jsonText(v, region ? "region" : "kernel");
        // A value of the wrong type is named as such, not read as absent ("gives neither 'flops' nor 'bytes'").
        const auto number = [&](const char* key) -> std::optional<double> {
            const io::Json* member = io::jsonMember(v, key);
            if (member && !member->is_null() && !member->is_number())
                throw io::TraceFileError(path, std::nullopt,
                                         where + "'" + key + "' must be a number (FLOPs or bytes per call), got a " + member->type_name());
            return io::jsonDouble(member);
        };
        a.flops = number("flops");
        a.bytes = number("bytes");
        a.roof = io::jsonText(v, "roof");
        if (io::jsonMember(v, "source"))
            a.sourcePath = io::jsonText(v, "source");
        if (const auto problems = annotationProblems(a); !problems.empty())
            throw io::TraceFileError(path, std::nullopt, where + problems.front());
        inspectAnnotationSource(a, std::filesystem::path(path).parent_path());
        out.push_back(std::move(a));
    }
    return out;
}

std::string annotationsJson(const std::vector<Annotation>& annotations)
{
    io::Json list = io::Json::array();
    for (const Annotation& a : annotations) {
        io::Json entry;
        if (!a.region.empty())
            entry["region"] = a.region;
        else
            entry["kernel"] = a.kernel;
        if (a.flops)
            entry["flops"] = io::jsonNumber(*a.flops);
        if (a.bytes)
            entry["bytes"] = io::jsonNumber(*a.bytes);
        if (!a.roof.empty())
            entry["roof"] = a.roof;
        if (!a.sourcePath.empty())
            entry["source"] = a.sourcePath;
        list.push_back(std::move(entry));
    }
    return io::dumpJson({{"annotations", std::move(list)}}) + "\n";
}

std::vector<Annotation> saveAnnotations(const std::string& path, const std::vector<Annotation>& annotations)
{
    io::writeTextFileAtomically(path, annotationsJson(annotations), "the annotations file", [&](const std::string& temporary) {
        try {
            loadAnnotations(temporary); // refuses what the classifier would refuse, before replacing anything
        } catch (const io::TraceFileError& e) {
            throw io::TraceFileError(path, std::nullopt, "not saved: " + e.problem());
        }
    });
    return loadAnnotations(path);
}

} // namespace tilescope::roofline
