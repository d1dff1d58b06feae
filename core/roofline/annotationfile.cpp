// SPDX-License-Identifier: MIT
#include "roofline/annotationfile.h"

#include "io/tracefileerror.h"
#include "report/jsonwriter.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace tilescope::roofline {

std::string annotationsJson(const std::vector<Annotation>& annotations)
{
    report::JsonWriter w;
    w.beginObject().key("annotations").beginArray();
    for (const Annotation& a : annotations) {
        w.beginObject();
        if (!a.region.empty())
            w.key("region").value(a.region);
        else
            w.key("kernel").value(a.kernel);
        if (a.flops)
            w.key("flops").value(*a.flops);
        if (a.bytes)
            w.key("bytes").value(*a.bytes);
        if (!a.roof.empty())
            w.key("roof").value(a.roof);
        if (!a.sourcePath.empty())
            w.key("source").value(a.sourcePath);
        w.endObject();
    }
    w.endArray().endObject();
    return w.text() + "\n";
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
