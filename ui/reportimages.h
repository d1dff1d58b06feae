// SPDX-License-Identifier: MIT
#pragma once

#include "answer/answerreport.h"

#include <QSize>

#include <memory>
#include <string>
#include <vector>

class QImage;
struct TraceDocument;

// The report's pictures (answer::ReportImage), drawn by the app's own widgets offscreen: the timeline over
// the whole trace (TimelineView), the roofline (RooflinePanel's plot) and, when the trace has [memory]
// records, the memory graph (MemoryPanel). Widgets are made, drawn and deleted here, never shown on screen;
// call on the GUI thread (a QApplication must exist: `tilescope --report-images` makes one on the offscreen
// platform).
struct ReportImageSizes
{
    QSize timeline{1400, 640};
    QSize roofline{1100, 640};
    QSize memory{1400, 320};
};
std::vector<tilescope::answer::ReportImage> renderReportImages(const std::shared_ptr<const TraceDocument>& document,
                                                               const ReportImageSizes& sizes = {});

// `tilescope --report-images DIR TRACE` (what `tilescope-cli report` runs for its pictures): loads TRACE as
// the CLI's commands do (raw args not kept; `partial` as --partial), draws the pictures and writes them into
// DIR with answer::writeReportImageFiles; `gpu` as tilescope-cli's --gpu (the roofline's roofs for a trace without
// deviceProperties). Throws TraceFileError as loading and writing do, std::invalid_argument for a `gpu` classify refuses.
void writeReportImagesOf(const std::string& tracePath, const std::string& dir, bool partial, const std::string& gpu = {});

// True when every pixel has one colour: a picture that shows nothing.
bool isBlankImage(const QImage& image);
