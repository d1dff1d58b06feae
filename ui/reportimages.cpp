// SPDX-License-Identifier: MIT
#undef QT_NO_FOREACH
#undef QT_NO_CAST_TO_ASCII
#include <qcustomplot.h>

#include "reportimages.h"

#include "answer/reportimagefiles.h"

#include "memorypanel.h"
#include "rooflinepanel.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QBuffer>
#include <QImage>
#include <QPixmap>

#include <algorithm>

using tilescope::answer::ReportImage;

namespace {

QByteArray pngOf(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

std::string toStd(const QByteArray& bytes) { return std::string(bytes.constData(), size_t(bytes.size())); }

// Shown with WA_DontShowOnScreen, a widget gets its layout and resize events (a scroll area sizes its
// viewport, a plot its axes) exactly as on screen, yet no window appears. `ready` runs once it has its size.
template <typename Ready> std::string grabAt(QWidget& widget, QSize size, Ready ready)
{
    widget.setAttribute(Qt::WA_DontShowOnScreen);
    widget.resize(size);
    widget.show();
    ready();
    const QImage image = widget.grab().toImage();
    widget.hide();
    return toStd(pngOf(image));
}

} // namespace

bool isBlankImage(const QImage& image)
{
    if (image.isNull())
        return true;
    const QRgb first = image.pixel(0, 0);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (image.pixel(x, y) != first)
                return false;
    return true;
}

std::vector<ReportImage> renderReportImages(const std::shared_ptr<const TraceDocument>& document, const ReportImageSizes& sizes)
{
    std::vector<ReportImage> images;
    if (!document)
        return images;
    {
        TimelineView timeline;
        timeline.setDocument(document);
        const std::string png = grabAt(timeline, sizes.timeline, [&] {
            // No empty band under the last lane: as tall as the lanes need, up to the size asked for.
            int bottom = 0;
            for (const TimelineView::Lane& lane : timeline.lanes())
                bottom = std::max(bottom, lane.y + lane.height);
            const int needed = timeline.axisHeight() + bottom + 2 * timeline.frameWidth() + 8;
            if (needed < sizes.timeline.height())
                timeline.resize(sizes.timeline.width(), std::max(needed, 160));
            timeline.fitAll(); // again, now that the canvas has its width
        });
        images.push_back({tilescope::answer::kTimelineImage, "The timeline over the whole trace (TileScope's timeline view)", png});
    }
    {
        RooflinePanel roofline;
        roofline.setDocument(document);
        // The plot alone: the panel's buttons and card say nothing in a file.
        QCustomPlot* plot = roofline.plot();
        const QPixmap pixmap = plot->toPixmap(sizes.roofline.width(), sizes.roofline.height());
        images.push_back({tilescope::answer::kRooflineImage,
                          "The roofline: each kernel and region at its arithmetic intensity and achieved rate",
                          toStd(pngOf(pixmap.toImage()))});
    }
    if (!document->trace->memory.empty()) {
        MemoryPanel memory;
        memory.setDocument(document);
        if (memory.hasData()) {
            const std::string png = grabAt(memory, sizes.memory, [&] {
                memory.setCanvas(70, 0); // room for the axis label; the rest of the width is the plot's
                memory.setView(document->contentStart, std::max(document->contentEnd, document->contentStart + 1000));
                memory.plot()->replot(); // the panel queues its replots for the event loop; a picture needs it now
            });
            images.push_back({tilescope::answer::kMemoryImage,
                              "Device memory over the trace: allocated (filled) and reserved (line), the peak marked", png});
        }
    }
    return images;
}

void writeReportImagesOf(const std::string& tracePath, const std::string& dir, bool partial, const std::string& gpu)
{
    tilescope::trace::LoadOptions options;
    options.partial = partial;
    options.keepRawArgs = false; // as the CLI's commands load
    std::shared_ptr<const TraceDocument> document = TraceDocument::build(QString::fromStdString(tracePath), {}, options);
    if (!gpu.empty()) { // the report's text grades against the chosen GPU: so does its roofline
        auto graded = std::make_shared<TraceDocument>(*document);
        graded->classifyOptions.gpu = gpu;
        graded->classification = tilescope::roofline::classify(*graded->trace, graded->classifyOptions);
        document = std::move(graded);
    }
    tilescope::answer::writeReportImageFiles(dir, renderReportImages(document));
}
