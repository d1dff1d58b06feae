// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"
#include "workerjob.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <string>

class QCustomPlot;
class QLabel;
class QMenu;
class QPushButton;
class QStackedWidget;
class QToolButton;
class SessionJob;
class QTextBrowser;
struct TraceDocument;

// Kernels and regions on the roofline (log-log: arithmetic intensity against FLOP/s), the memory roof
// and each compute roof, points coloured by class and sized by total time; a verdict card with the
// evidence for the selected kernel. Clicking a point selects that kernel. A generated TileLang source can be
// attached to the selected kernel or region; its findings join the verdict (classification reruns in core).
class RooflinePanel : public QWidget
{
    Q_OBJECT
public:
    explicit RooflinePanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);
    // Highlights its point and shows its verdict; an empty name clears the selection (the card and the ring).
    void showKernel(const std::string& name);
    void clearSelection() { showKernel({}); }
    // A time range is selected elsewhere: the card says its figures are the whole trace's (the classification is
    // of the whole trace; the range's own calls and times are in the key-averages table).
    void setRangeActive(bool active);
    const std::string& selectedKernel() const { return m_selected; } // empty when none
    QCustomPlot* plot() const { return m_plot; }
    QString verdictText() const;
    // Why the plot is empty (no trace, no GPU activity, no kernel with known work), shown instead of empty axes;
    // empty when there are points.
    QString emptyMessage() const;
    bool plotVisible() const;
    // The verdict card; when the selected verdict has no FLOP/byte estimate it links to the annotation editor
    // (kAnnotateLink).
    QTextBrowser* card() const { return m_card; }
    static constexpr const char* kAnnotateLink = "tilescope:annotations";
    int pointCount() const { return m_pointCount; }
    int rebuildCount() const { return m_rebuildCount; } // plot rebuilds so far (a selection costs one)
    bool legendShown() const;                           // false while the plot is too short for it
    // Inspects `path` for the selected kernel or region and reclassifies; false (and the reason on the card)
    // when nothing is selected or the file is unusable.
    bool attachSource(const QString& path);
    QPushButton* attachSourceButton() const { return m_attach; }

    // Measured ceilings (a calibration.json) replace the datasheet's for every trace; empty: the datasheet.
    // Kept in QSettings ("roofline/ceilings"). False, and why on the card, when the file is unusable.
    bool setCeilingsFile(const QString& path);
    QString ceilingsFile() const { return m_ceilingsFile; }
    QString ceilingsText() const;
    // The GPU to grade a trace against when it names none the datasheet table knows: a row's id (Ceilings > GPU);
    // empty: the trace's. Offered only for such a trace; kept for the next such trace (a rank set's other ranks),
    // dropped by one that names its GPU.
    void setGpu(const QString& row);
    QString gpu() const { return QString::fromStdString(m_gpu); }
    bool canChooseGpu() const; // the document's trace names no GPU the table knows
    QMenu* gpuMenu() const { return m_gpuMenu; }
    QMenu* ceilingsMenu() const;
    // Replaces the trace's annotations for this session of the panel (the editor's Apply and Save).
    void setAnnotations(const std::vector<tilescope::roofline::Annotation>& annotations);
    // The report shown. After setCeilingsFile, setAnnotations, attachSource (and a document with measured
    // ceilings) it is recomputed on a worker thread: isReclassifying() until reclassified() is emitted.
    const tilescope::roofline::ClassifyReport& report() const { return m_report; }
    bool isReclassifying() const { return m_classification.isRunning(); }
    // Whether report() is the panel's own (annotations edited, sources attached, measured ceilings, a chosen GPU)
    // rather than the document's classification.
    bool reportIsThePanels() const { return m_annotations || !m_sources.empty() || m_measured || !m_gpu.empty(); }
    // "Calibrate this GPU": measures ceilings with tilescope-torch in a child process and uses them.
    void calibrate(const QString& device = QStringLiteral("cuda"));
    SessionJob* calibrationJob() const { return m_calibration; }
    QPushButton* annotationsButton() const { return m_editAnnotations; }
    void editAnnotations(); // opens the editor, seeded with the selected kernel or region
    // What hovering shows: the point within 12 px of `pixel` (plot coordinates), else empty.
    QString hoverText(const QPointF& pixel) const;
    // What a click there selects: the same point's kernel or region name, else empty.
    QString pointNameAt(const QPointF& pixel) const;
    static QString pointText(const tilescope::roofline::Classification& item, bool region);

signals:
    void calibrationFinished(bool ok, const QString& message);

    void kernelClicked(const QString& name);
    void statusMessage(const QString& message); // for the window's status bar (the annotations saved, where)
    void reclassified();                        // m_report now reflects the latest ceilings, annotations and sources

private:
    static constexpr int kMostLegendColumns = 4;
    static constexpr int kLeastAxesWithLegend = 150; // px of plot left above the legend, else the legend is hidden
    static constexpr double kSameSpotPx = 4;         // points this close to the hovered one are named in its tooltip
    void rebuild();
    int legendColumnsThatFit() const; // the legend's columns the plot's width holds, 1 to kMostLegendColumns
    void showCard();                  // the verdict card of m_selected
    void chooseSource();
    void reclassify();
    tilescope::roofline::ClassifyOptions currentOptions() const;
    const std::vector<tilescope::roofline::Annotation>& activeAnnotations() const; // edited, else the trace's sidecar
    std::shared_ptr<const TraceDocument> m_doc;
    tilescope::roofline::ClassifyReport m_report; // the document's, or rerun with attached sources
    std::vector<tilescope::roofline::SourceAttachment> m_sources;
    QCustomPlot* m_plot;
    QPushButton* m_attach;
    QPushButton* m_editAnnotations;
    QToolButton* m_ceilings;
    QMenu* m_gpuMenu = nullptr;
    QAction* m_datasheetAction = nullptr;
    QAction* m_measuredAction = nullptr;
    std::string m_gpu;         // ClassifyOptions::gpu: the chosen row, empty for the trace's
    void updateCeilingsMenu(); // checks the roofs and the GPU that hold, names the trace's own
    QLabel* m_ceilingsLabel;
    SessionJob* m_calibration;
    QString m_ceilingsFile;
    std::optional<tilescope::roofline::MeasuredCeilings> m_measured;
    std::optional<std::vector<tilescope::roofline::Annotation>> m_annotations; // edited; else the document's
    QTextBrowser* m_card;
    QStackedWidget* m_plotStack; // the plot, or m_empty when there is nothing to plot
    QLabel* m_empty;
    struct PlotPoint
    {
        double x, y;                                     // arithmetic intensity, FLOP/s
        const tilescope::roofline::Classification* item; // into m_report, rebuilt with it
        bool region;
    };
    std::vector<PlotPoint> m_points;
    // The point hover and click both mean: the nearest centre within 12 px, a kernel before a region on the
    // same spot (a region sits around its kernels); nullptr when none.
    const PlotPoint* pointAt(const QPointF& pixel) const;
    std::string m_selected;
    bool m_rangeActive = false;
    int m_pointCount = 0;
    int m_rebuildCount = 0;
    WorkerJob m_classification; // newest request wins: a new document or setting drops the one in flight
};
