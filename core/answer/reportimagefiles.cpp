// SPDX-License-Identifier: MIT
#include "answer/reportimagefiles.h"

#include "io/textfile.h"
#include "io/tracefileerror.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace tilescope::answer {

namespace {

std::string fileFor(const std::string& key) { return key + ".png"; }

bool isReportImageKey(const std::string& key) { return key == kTimelineImage || key == kRooflineImage || key == kMemoryImage; }

} // namespace

void writeReportImageFiles(const std::string& dir, const std::vector<ReportImage>& images)
{
    nlohmann::json list = nlohmann::json::array();
    for (const ReportImage& image : images) {
        const std::string file = fileFor(image.key);
        io::writeTextFile((std::filesystem::path(dir) / file).string(), image.png, "the report's " + image.key + " picture");
        list.push_back({{"key", image.key}, {"caption", image.caption}});
    }
    const nlohmann::json manifest = {{"images", list}};
    io::writeTextFile((std::filesystem::path(dir) / kReportImagesManifest).string(), manifest.dump(1) + "\n", "the report pictures' list");
}

std::vector<ReportImage> readReportImageFiles(const std::string& dir)
{
    const std::string manifestPath = (std::filesystem::path(dir) / kReportImagesManifest).string();
    const std::string text = io::readTextFile(manifestPath, "the report pictures' list");
    const nlohmann::json manifest = nlohmann::json::parse(text, nullptr, false);
    const auto bad = [&](const std::string& what) { return io::TraceFileError(manifestPath, std::nullopt, what); };
    if (!manifest.is_object() || !manifest.contains("images") || !manifest["images"].is_array())
        throw bad("not a list of report pictures (expected {\"images\": [...]})");
    std::vector<ReportImage> images;
    for (const nlohmann::json& entry : manifest["images"]) {
        if (!entry.is_object() || !entry.value("key", nlohmann::json()).is_string()
            || !entry.value("caption", nlohmann::json()).is_string())
            throw bad("a picture without a key or caption");
        ReportImage image;
        image.key = entry["key"].get<std::string>();
        image.caption = entry["caption"].get<std::string>();
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
