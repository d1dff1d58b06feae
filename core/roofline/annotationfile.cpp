// SPDX-License-Identifier: MIT
#include "roofline/annotationfile.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

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
    const std::string temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << annotationsJson(annotations);
        out.close();
        if (!out)
            throw io::TraceFileError(path, std::nullopt, "cannot write the annotations file");
    }
    try {
        loadAnnotations(temporary); // refuses what the classifier would refuse, before replacing anything
    } catch (const io::TraceFileError& e) {
        std::remove(temporary.c_str());
        throw io::TraceFileError(path, std::nullopt, "not saved: " + e.problem());
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(temporary.c_str());
        throw io::TraceFileError(path, std::nullopt, "cannot replace the annotations file: " + why);
    }
    return loadAnnotations(path);
}

} // namespace tilescope::roofline
