// SPDX-License-Identifier: MIT
#include "answer/reportimagefiles.h"

#include "io/smalljson.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"

#include <filesystem>

namespace tilescope::answer {

namespace {

std::string fileFor(const std::string& key) { return key + ".png"; }

bool isReportImageKey(const std::string& key) { return key == kTimelineImage || key == kRooflineImage || key == kMemoryImage; }

} // namespace

void writeReportImageFiles(const std::string& dir, const std::vector<ReportImage>& images)
{
    io::Json list = io::Json::array();
    for (const ReportImage& image : images) {
        const std::string file = fileFor(image.key);
        io::writeTextFile((std::filesystem::path(dir) / file).string(), image.png, "the report's " + image.key + " picture");
        list.push_back({{"key", image.key}, {"caption", image.caption}});
    }
    const io::Json manifest = {{"images", list}};
    io::writeTextFile((std::filesystem::path(dir) / kReportImagesManifest).string(), io::dumpJson(manifest, 1) + "\n",
                      "the report pictures' list");
}

std::vector<ReportImage> readReportImageFiles(const std::string& dir)
{
    const std::string manifestPath = (std::filesystem::path(dir) / kReportImagesManifest).string();
    const io::Json manifest = io::readSmallJsonFile(manifestPath); // a parse error names the file and the byte
    const auto bad = [&](const std::string& what) { return io::TraceFileError(manifestPath, std::nullopt, what); };
    const io::Json* list = io::jsonMember(manifest, "images");
    if (!list || !list->is_array())
        throw bad("not a list of report pictures (expected {\"images\": [...]})");
    std::vector<ReportImage> images;
    for (const io::Json& entry : *list) {
        const io::Json* key = io::jsonMember(entry, "key");
        const io::Json* caption = io::jsonMember(entry, "caption");
        if (!key || !key->is_string() || !caption || !caption->is_string())
            throw bad("a picture without a key or caption");
        ReportImage image;
        image.key = io::jsonString(*key);
        image.caption = io::jsonString(*caption);
        if (!isReportImageKey(image.key))
            throw bad("'" + image.key + "' is not one of the report's pictures (timeline, roofline, memory)");
        const std::string path = (std::filesystem::path(dir) / fileFor(image.key)).string();
        image.png = io::readTextFile(path, "the report's " + image.key + " picture");
        if (!image.png.starts_with("\x89PNG\r\n\x1a\n"))
            throw io::TraceFileError(path, std::nullopt, "not a PNG image");
        images.push_back(std::move(image));
    }
    return images;
}

} // namespace tilescope::answer
