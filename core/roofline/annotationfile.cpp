// SPDX-License-Identifier: MIT
#include "roofline/annotationfile.h"

#include "io/smalljson.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"

namespace tilescope::roofline {

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
