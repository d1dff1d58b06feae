// SPDX-License-Identifier: MIT
// QCustomPlot's header predates the strict Qt defines the ui library sets: include it first without them.
#undef QT_NO_FOREACH
#undef QT_NO_CAST_TO_ASCII
#include <qcustomplot.h>

#include "rooflinepanel.h"

#include "io/tracefileerror.h"
#include "report/verdicttext.h"
#include "roofline/sourceinspect.h"
#include "stats/torchtable.h"
#include "annotationeditor.h"
#include "sessionjob.h"
#include "tracedocument.h"

#include <QActionGroup>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QToolButton>
#include <QToolTip>

#include <set>

#include <QFileDialog>
#include <QPushButton>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

using namespace tilescope;

namespace {

QColor classColour(roofline::RooflineClass cls) { return QColor(QString::fromLatin1(report::classColour(cls))); }

QString classLabel(roofline::RooflineClass cls) { return QString::fromLatin1(roofline::className(cls)); }

} // namespace

RooflinePanel::RooflinePanel(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_attach(new QPushButton(tr("Attach generated source..."), this))
    , m_editAnnotations(new QPushButton(tr("Annotations..."), this))
    , m_ceilings(new QToolButton(this))
    , m_ceilingsLabel(new QLabel(this))
    , m_calibration(new SessionJob(this))
    , m_card(new QTextBrowser(this))
    , m_plotStack(new QStackedWidget(this))
    , m_empty(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* controls = new QHBoxLayout;
    m_ceilings->setText(tr("Ceilings"));
    m_ceilings->setPopupMode(QToolButton::InstantPopup);
    // Room for the text beside the menu arrow, which otherwise overlays its last letter ("Ceilings.").
    m_ceilings->setMinimumWidth(m_ceilings->fontMetrics().horizontalAdvance(m_ceilings->text()) + 28);
    auto* menu = new QMenu(m_ceilings);
    // Which roofs hold, checked: the datasheet's, or the measured file's (named once chosen).
    auto* roofs = new QActionGroup(menu);
    m_datasheetAction = menu->addAction(tr("Datasheet"), this, [this] { setCeilingsFile(QString()); });
    m_measuredAction = menu->addAction(tr("Measured, from File..."), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Measured ceilings (calibration.json)"), m_ceilingsFile,
                                                          tr("JSON (*.json);;All files (*)"));
        if (!path.isEmpty())
            setCeilingsFile(path);
        updateCeilingsMenu(); // a cancelled dialog: the group checked this action, the roofs that held stay
    });
    for (QAction* action : {m_datasheetAction, m_measuredAction}) {
        action->setCheckable(true);
        roofs->addAction(action);
    }
    menu->addAction(tr("Calibrate This GPU..."), this, [this] { calibrate(); });
    // A trace without deviceProperties (or with a GPU the table does not know) has no roofs until its GPU is
    // chosen: the datasheet's rows, one checked.
    m_gpuMenu = menu->addMenu(tr("GPU"));
    auto* gpus = new QActionGroup(m_gpuMenu);
    const auto addGpu = [&](const QString& text, const QString& row) {
        QAction* action = m_gpuMenu->addAction(text, this, [this, row] { setGpu(row); });
        action->setCheckable(true);
        action->setData(row);
        gpus->addAction(action);
    };
    addGpu(tr("The Trace's Own"), QString()); // named by updateCeilingsMenu for the trace open
    m_gpuMenu->addSeparator();
    for (const roofline::DeviceEntry& row : roofline::builtinDeviceDatabase())
        addGpu(QString::fromStdString(row.id), QString::fromStdString(row.id));
    menu->setToolTipsVisible(true);
    updateCeilingsMenu();
    m_ceilings->setMenu(menu);
    m_ceilings->setToolTip(tr("Which roofs: the datasheet's, or ceilings measured on a machine (tilescope-cli calibrate)"));
    m_editAnnotations->setToolTip(tr("FLOPs and bytes per call for custom kernels and regions (TRACE.annotations.json)"));
    connect(m_editAnnotations, &QPushButton::clicked, this, &RooflinePanel::editAnnotations);
    m_editAnnotations->setEnabled(false);
    controls->addWidget(m_ceilings);
    // Wraps: a measured file's name and GPU must not widen the right-hand docks (the timeline lost their room).
    m_ceilingsLabel->setWordWrap(true);
    controls->addWidget(m_ceilingsLabel, 1);
    layout->addLayout(controls);
    // The buttons on a row of their own: beside the ceilings they made the dock 420 px wide at least, and the
    // window too wide for a 1024 px screen.
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_editAnnotations);
    buttons->addWidget(m_attach);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setMargin(12);
    m_plotStack->addWidget(m_plot);
    m_plotStack->addWidget(m_empty);
    layout->addWidget(m_plotStack, 3);
    layout->addWidget(m_card, 1); // the plot first: the card scrolls
    // A verdict without an estimate offers its fix as a link in the card: a button that came and went with
    // the selection moved the plot up and down.
    m_card->setOpenLinks(false);
    connect(m_card, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url == QUrl(QString::fromLatin1(kAnnotateLink)))
            editAnnotations();
    });
    m_attach->setToolTip(tr("Pick the TileLang generated .cu of the selected kernel (kernel.get_kernel_source(), "
                            "~/.tilelang/cache/*/device_kernel.cu): its MMA, TMA and cp.async call sites join the verdict"));
    m_attach->setEnabled(false);
    connect(m_attach, &QPushButton::clicked, this, &RooflinePanel::chooseSource);
    m_plot->setMinimumHeight(170); // with the legend's two rows under them, the axes keep ~90 px
    // Not as wide as the legend's four columns (over 500 px with regions): the legend takes fewer columns
    // as the dock narrows (below), and the window fits a 1024 px screen.
    m_plot->setMinimumWidth(220);
    // Fewer decades labelled when the axes are short, so the labels never overlap; as many legend columns as
    // the width holds.
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        const int ticks = std::clamp(m_plot->axisRect()->height() / 28, 2, 8);
        bool again = false;
        if (auto ticker = m_plot->yAxis->ticker(); ticker->tickCount() != ticks) {
            ticker->setTickCount(ticks);
            again = true;
        }
        if (const int columns = legendColumnsThatFit(); columns != m_plot->legend->wrap()) {
            m_plot->legend->setWrap(columns);
            m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true); // the items laid out again
            again = true;
        }
        // A short plot keeps its axes, not its legend: under kLeastAxesWithLegend px of axes the legend goes (the
        // hover and the card name each point's class), and comes back when the dock grows.
        const bool inLayout = m_plot->plotLayout()->hasElement(1, 0);
        const int legendHeight = m_plot->legend->minimumOuterSizeHint().height();
        // (A picture drawn off screen, toPixmap at the report's size, keeps it: its viewport is the picture's.)
        const bool fits = !m_plot->isVisible() || m_plot->viewport().height() - legendHeight >= kLeastAxesWithLegend;
        if (fits != inLayout) {
            if (fits) {
                m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
                m_plot->plotLayout()->setRowStretchFactor(1, 0.001); // as tall as its rows, the axes the rest
            } else
                m_plot->plotLayout()->take(m_plot->legend);
            m_plot->plotLayout()->simplify();
            m_plot->legend->setVisible(fits);
            again = true;
        }
        if (again)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(tr("achieved FLOP/s"));
    // The legend sits below the axes, in its own layout row, so it never covers a point.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(QFont(font().family(), 7));
    m_plot->legend->setIconSize(14, 10); // QCustomPlot's 32 px wide icons left room for one column in a narrow dock
    m_plot->legend->setIconTextPadding(4);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(kMostLegendColumns); // two rows for the usual eight entries: the axes keep the height
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        if (event->button() != Qt::LeftButton)
            return;
        // The main window is the selection hub: it selects the kernel everywhere, this panel included.
        if (const QString name = pointNameAt(event->position()); !name.isEmpty())
            emit kernelClicked(name);
    });
    m_card->setHtml(tr("<i>Click a kernel (here, in the timeline or in the table) to see its classification.</i>"));
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const QString text = hoverText(event->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    });
    connect(m_calibration, &SessionJob::phase, this, [this](const QString& phase, int step, int of, const QString& message) {
        m_ceilingsLabel->setText(
            tr("calibrating: %1 %2").arg(phase, step >= 0 && of > 0 ? QStringLiteral("%1/%2").arg(step).arg(of) : message));
    });
    connect(m_calibration, &SessionJob::finished, this, [this](std::shared_ptr<const tilescope::session::SessionResult> r) {
        m_ceilings->setEnabled(true);
        if (r->status == tilescope::session::SessionResult::Status::Ok && setCeilingsFile(QString::fromStdString(r->calibrationPath))) {
            emit calibrationFinished(true, QString::fromStdString(r->calibrationPath));
            return;
        }
        QString why = QString::fromStdString(r->error);
        for (const std::string& line : r->stderrTail)
            why += QStringLiteral("\n") + QString::fromStdString(line);
        m_ceilingsLabel->setText(ceilingsText());
        m_card->setHtml(tr("<b>Calibration failed:</b> %1").arg(why.toHtmlEscaped().replace(QStringLiteral("\n"), QStringLiteral("<br>"))));
        emit calibrationFinished(false, why);
    });
    const QString saved = QSettings().value(QStringLiteral("roofline/ceilings")).toString();
    if (!saved.isEmpty())
        setCeilingsFile(saved);
    m_ceilingsLabel->setText(ceilingsText());
    rebuild();
}

QString RooflinePanel::ceilingsText() const
{
    const QString row = QString::fromStdString(m_report.deviceRow);
    const bool chosen = !m_report.chosenGpu.empty();
    // The measured ceilings are kept for the next trace, but used only for one of the GPU they were measured on
    // (core's rule, as the report it classified will have applied it).
    if (m_measured && m_doc) {
        static const auto database = roofline::builtinDeviceDatabase();
        const auto rows = chosen ? roofline::deviceRowsNamed(database, m_report.deviceRow) : std::vector<const roofline::DeviceEntry*>{};
        if (!roofline::measuredApplies(*m_measured, m_report.deviceName, rows.size() == 1 ? rows.front() : nullptr, database))
            return (row.isEmpty() ? tr("no ceilings") : tr("datasheet: %1%2").arg(row, chosen ? tr(" (chosen)") : QString()))
                + tr(" (%1 is for %2)").arg(QFileInfo(m_ceilingsFile).fileName(), QString::fromStdString(m_measured->gpu));
    }
    if (m_measured)
        return tr("measured: %1%2")
            .arg(QFileInfo(m_ceilingsFile).fileName(),
                 m_measured->gpu.empty() ? QString() : QStringLiteral(" (") + QString::fromStdString(m_measured->gpu) + u')');
    if (chosen)
        return tr("datasheet: %1 (chosen)").arg(row);
    if (m_doc && row.isEmpty() && !m_report.kernels.empty())
        return m_report.deviceName.empty()
            ? tr("no GPU named in the trace: choose one under Ceilings > GPU")
            : tr("no datasheet row for %1: choose one under Ceilings > GPU").arg(QString::fromStdString(m_report.deviceName));
    return row.isEmpty() ? tr("datasheet") : tr("datasheet: %1").arg(row);
}

bool RooflinePanel::setCeilingsFile(const QString& path)
{
    if (path.isEmpty()) {
        m_measured.reset();
        m_ceilingsFile.clear();
    } else {
        try {
            m_measured = roofline::loadMeasuredCeilings(path.toStdString());
            m_ceilingsFile = path;
        } catch (const io::TraceFileError& e) {
            m_card->setHtml(tr("<b>Cannot use these ceilings:</b> %1").arg(QString::fromStdString(e.what()).toHtmlEscaped()));
            updateCeilingsMenu();
            return false;
        }
    }
    QSettings().setValue(QStringLiteral("roofline/ceilings"), m_ceilingsFile);
    updateCeilingsMenu();
    reclassify();
    return true;
}

void RooflinePanel::setAnnotations(const std::vector<roofline::Annotation>& annotations)
{
    m_annotations = annotations;
    reclassify();
}

const std::vector<roofline::Annotation>& RooflinePanel::activeAnnotations() const
{
    static const std::vector<roofline::Annotation> none;
    return m_annotations ? *m_annotations : m_doc ? m_doc->classifyOptions.annotations : none;
}

QMenu* RooflinePanel::ceilingsMenu() const { return m_ceilings->menu(); }

bool RooflinePanel::canChooseGpu() const { return m_doc && m_doc->classification.deviceRow.empty(); }

void RooflinePanel::setGpu(const QString& row)
{
    if (row.isEmpty() || canChooseGpu()) { // a trace that names its GPU keeps it: classify would refuse another
        m_gpu = row.toStdString();
        reclassify();
    }
    updateCeilingsMenu(); // the menu's group checked what was clicked: show what holds
}

void RooflinePanel::updateCeilingsMenu()
{
    m_datasheetAction->setChecked(!m_measured);
    m_measuredAction->setChecked(m_measured.has_value());
    // '&' in a file's or a GPU's name is a menu's shortcut marker: doubled, it reads as itself.
    const auto literal = [](QString text) { return text.replace(u'&', QStringLiteral("&&")); };
    m_measuredAction->setText(m_measured ? tr("Measured: %1 (Another File...)").arg(literal(QFileInfo(m_ceilingsFile).fileName()))
                                         : tr("Measured, from File..."));
    const bool choose = canChooseGpu();
    for (QAction* action : m_gpuMenu->actions()) {
        if (action->isSeparator())
            continue;
        const QString row = action->data().toString();
        action->setChecked(row.toStdString() == m_gpu);
        action->setEnabled(row.isEmpty() || choose);
        if (row.isEmpty()) // what "no choice" means for this trace: its own row, or none at all
            action->setText(!m_doc        ? tr("The Trace's Own")
                                : !choose ? tr("The Trace's Own: %1").arg(literal(QString::fromStdString(m_doc->classification.deviceRow)))
                                : m_doc->classification.deviceName.empty()
                                ? tr("None (the trace names no GPU)")
                                : tr("None (no row for %1)").arg(literal(QString::fromStdString(m_doc->classification.deviceName))));
    }
    m_gpuMenu->menuAction()->setToolTip(
        !m_doc       ? tr("Open a trace first")
            : choose ? tr("The datasheet row to grade this trace against: it names no GPU the table knows")
                     : tr("The trace names its GPU (%1)").arg(QString::fromStdString(m_doc->classification.deviceRow)));
}

roofline::ClassifyOptions RooflinePanel::currentOptions() const
{
    roofline::ClassifyOptions options = m_doc ? m_doc->classifyOptions : roofline::ClassifyOptions{};
    options.gpu = m_gpu;
    options.annotations = activeAnnotations();
    options.sources = m_sources;
    options.measured = m_measured;
    return options;
}

void RooflinePanel::reclassify()
{
    if (!m_doc) {
        m_classification.drop();
        m_ceilingsLabel->setText(ceilingsText());
        rebuild();
        showCard();
        return;
    }
    // classify() reads the immutable trace only; the document and the options travel by value, so the
    // worker owns everything it touches. The report replaces m_report on the GUI thread only.
    m_ceilingsLabel->setText(ceilingsText() + tr(" (reclassifying...)"));
    m_classification.start([this, doc = m_doc, options = currentOptions()](const WorkerJob::Run& run) {
        auto report = std::make_shared<roofline::ClassifyReport>();
        std::string error;
        try {
            *report = roofline::classify(*doc->trace, options);
        } catch (const std::exception& e) {
            error = e.what();
        }
        run.finish([this, report, error] {
            if (error.empty())
                m_report = std::move(*report);
            else if (m_gpu != m_report.chosenGpu) { // the choice failed: the menu shows the one the report holds
                m_gpu = m_report.chosenGpu;
                updateCeilingsMenu();
            }
            m_ceilingsLabel->setText(ceilingsText());
            rebuild();
            showCard();
            if (!error.empty())
                m_card->setHtml(tr("<b>Classification failed:</b> %1").arg(QString::fromStdString(error).toHtmlEscaped()));
            emit reclassified();
        });
    });
}

void RooflinePanel::editAnnotations()
{
    if (!m_doc)
        return;
    const bool isFile = QFileInfo(m_doc->path).isFile();
    const std::vector<roofline::Annotation>& annotations = activeAnnotations();
    AnnotationEditor editor(annotations, isFile ? m_doc->path + QStringLiteral(".annotations.json") : QString(), this);
    if (!m_selected.empty()) {
        bool isRegion = false;
        for (const auto& region : m_report.regions)
            isRegion = isRegion || region.name == m_selected;
        bool known = false;
        for (const auto& a : annotations)
            known = known || a.region == m_selected || a.kernel == m_selected;
        if (!known)
            editor.addTarget(m_selected, isRegion);
    }
    if (editor.exec() != QDialog::Accepted)
        return;
    setAnnotations(editor.result());
    const QString saved = editor.savedTo();
    const size_t count = editor.result().size();
    const QString what = count == 1 ? tr("1 annotation") : tr("%1 annotations").arg(count);
    emit statusMessage(saved.isEmpty() ? tr("%1 applied, not saved: the roofline is classified again").arg(what)
                                       : tr("Saved %1 to %2: the roofline is classified again").arg(what, saved));
}

void RooflinePanel::calibrate(const QString& device)
{
    if (m_calibration->isRunning())
        return;
    tilescope::session::SessionConfig c;
    c.mode = tilescope::session::SessionMode::Calibrate;
    c.device = device.toStdString();
    const QString base = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    c.outputDirectory = QDir(base.isEmpty() ? QDir::homePath() : base)
                            .filePath(QStringLiteral("calibration/")
                                      + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                            .toStdString();
    m_ceilings->setEnabled(false);
    m_ceilingsLabel->setText(tr("calibrating %1...").arg(device));
    m_calibration->start(c, SessionJob::applicationTools());
}

void RooflinePanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_selected.clear();
    m_sources.clear();
    m_annotations.reset();
    // A chosen GPU holds for the next trace that names none either (a rank set's other ranks, the same run
    // again); one that names its own GPU drops it.
    if (!m_gpu.empty() && m_doc && !canChooseGpu())
        m_gpu.clear();
    updateCeilingsMenu();
    m_report = m_doc ? m_doc->classification : tilescope::roofline::ClassifyReport{};
    m_attach->setEnabled(false);
    m_editAnnotations->setEnabled(m_doc != nullptr);
    m_classification.drop();
    m_ceilingsLabel->setText(ceilingsText());
    rebuild();
    m_card->setHtml(tr("<i>Click a kernel (here, in the timeline or in the table) to see its classification.</i>"));
    // The document was classified against the trace's own datasheet row while loading; measured ceilings and a
    // chosen GPU need a rerun.
    if ((m_measured || !m_gpu.empty()) && m_doc)
        reclassify();
}

void RooflinePanel::rebuild()
{
    ++m_rebuildCount;
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_pointCount = 0;
    m_points.clear();
    const auto& r = m_report;
    const auto& c = r.ceilings;
    // The axes cover the roofs' usual span and every point, with room for the selection ring.
    double x0 = 1e-2, x1 = 1e5, y0 = 1e6, y1 = std::max({c.bf16, c.fp16, c.fp32, 1e12}) * 2;
    for (const auto* list : {&r.kernels, &r.regions})
        for (const auto& k : *list)
            if (k.flops && k.bytes && *k.flops > 0 && *k.bytes > 0) {
                x0 = std::min(x0, *k.flops / *k.bytes / 4);
                x1 = std::max(x1, *k.flops / *k.bytes * 4);
                y0 = std::min(y0, k.achievedFlopsPerS / 4);
                y1 = std::max(y1, k.achievedFlopsPerS * 4);
            }
    // Roofs: bandwidth line meeting each compute roof at its ridge point.
    auto roof = [&](double peak, const QString& label, const QColor& colour) {
        if (peak <= 0 || c.memoryBytesPerS <= 0)
            return;
        QCPGraph* g = m_plot->addGraph();
        g->setName(label);
        g->setPen(QPen(colour, 1.5, r.measured ? Qt::DashLine : Qt::SolidLine));
        const double ridge = peak / c.memoryBytesPerS;
        g->setData({x0, ridge, x1}, {c.memoryBytesPerS * x0, peak, peak}, true);
    };
    roof(c.fp32, tr("FP32 roof"), QColor(230, 140, 20));
    roof(c.bf16 > 0 ? c.bf16 : c.fp16, c.bf16 > 0 ? tr("BF16 tensor roof") : tr("FP16 tensor roof"), QColor(40, 160, 70));
    roof(c.tf32, tr("TF32 tensor roof"), QColor(120, 190, 120));
    // One graph per point, so each is sized by its total time; one empty graph per class for the legend.
    double maxTime = 1;
    for (const auto* list : {&r.kernels, &r.regions})
        for (const auto& k : *list)
            maxTime = std::max(maxTime, k.totalUs);
    std::set<std::string> legendDone;
    // Regions first, underneath: a kernel and the region around it often sit on the same spot, where
    // hover and click (pointAt) pick the kernel.
    for (const auto* list : {&r.regions, &r.kernels}) {
        const bool region = list == &r.regions;
        for (const auto& k : *list) {
            if (!k.flops || !k.bytes || *k.flops <= 0 || *k.bytes <= 0)
                continue;
            const double size = 6 + 12 * std::sqrt(k.totalUs / maxTime);
            const QColor colour = classColour(k.cls);
            const auto shape = region ? QCPScatterStyle::ssDiamond : QCPScatterStyle::ssDisc;
            QCPGraph* g = m_plot->addGraph();
            g->setLineStyle(QCPGraph::lsNone);
            // A see-through fill inside a solid outline: a point under another still shows its edge.
            QColor fill = colour;
            fill.setAlpha(150);
            g->setScatterStyle(QCPScatterStyle(shape, region ? colour : colour.darker(130), region ? QColor(Qt::white) : fill, size));
            g->setData({*k.flops / *k.bytes}, {k.achievedFlopsPerS});
            g->setSelectable(QCP::stSingleData);
            g->removeFromLegend();
            m_points.push_back({*k.flops / *k.bytes, k.achievedFlopsPerS, &k, region});
            ++m_pointCount;
            const std::string legendKey = std::string(roofline::className(k.cls)) + (region ? " (region)" : "");
            if (legendDone.insert(legendKey).second) {
                QCPGraph* legend = m_plot->addGraph();
                legend->setName(QString::fromStdString(legendKey));
                legend->setLineStyle(QCPGraph::lsNone);
                legend->setScatterStyle(QCPScatterStyle(shape, colour, region ? QColor(Qt::white) : colour, 8));
            }
        }
    }
    if (!m_selected.empty()) {
        for (const auto* list : {&r.kernels, &r.regions})
            for (const auto& k : *list)
                if (k.name == m_selected && k.flops && k.bytes && *k.bytes > 0 && *k.flops > 0) {
                    // An item, not a graph: items may draw past the axis rect, so a point at the edge keeps its whole ring.
                    auto* ring = new QCPItemTracer(m_plot);
                    ring->setObjectName(QStringLiteral("selection ring"));
                    ring->setStyle(QCPItemTracer::tsCircle);
                    ring->setSize(20);
                    ring->setPen(QPen(Qt::black, 2));
                    ring->setBrush(Qt::NoBrush);
                    ring->position->setCoords(*k.flops / *k.bytes, k.achievedFlopsPerS);
                    ring->setClipToAxisRect(false);
                    ring->setSelectable(false);
                }
    }
    m_plot->xAxis->setRange(x0, x1);
    m_plot->yAxis->setRange(y0, y1);
    const QString empty = emptyMessage();
    m_empty->setText(empty);
    m_plotStack->setCurrentWidget(empty.isEmpty() ? static_cast<QWidget*>(m_plot) : m_empty);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString RooflinePanel::emptyMessage() const
{
    if (m_pointCount > 0)
        return {};
    if (!m_doc)
        return tr("Open a trace to see its kernels on the roofline.");
    const auto& r = m_report;
    if (const std::string none = trace::noEventsSentence(*m_doc->trace); !none.empty())
        return QString::fromStdString(none);
    if (r.kernels.empty()) {
        if (const std::string ranges = trace::profilerRangeText(*m_doc->trace); !ranges.empty())
            return tr("This trace has no timed GPU activity to place on a roofline: %1.").arg(QString::fromStdString(ranges));
        return tr("This trace has no GPU activity (a CPU-only trace), so there is nothing to place on a roofline.");
    }
    const bool allCommunication = std::all_of(r.kernels.begin(), r.kernels.end(),
                                              [](const auto& k) { return k.cls == roofline::RooflineClass::Communication; });
    if (allCommunication)
        return tr("This trace's GPU work is all NCCL communication, which has no point on a roofline: select a kernel to see its "
                  "algorithm and bus bandwidth.");
    const QString annotate = tr("This trace has no GPU kernels with known work (FLOPs and bytes), so there is nothing to plot. Select a "
                                "kernel in the timeline or the table and give its FLOPs and bytes per call with Annotations...");
    // Shapes recorded already: its ops (random fills, copies, custom kernels) have no known FLOP formula.
    if (m_doc->trace->meta.recordShapes)
        return annotate + tr(": no FLOP formula is known for these kernels' ops, though the trace has their shapes (record_shapes=True).");
    return annotate + tr(", or record the trace with record_shapes=True so torch's ops give them.");
}

bool RooflinePanel::plotVisible() const { return m_plotStack->currentWidget() == m_plot; }

void RooflinePanel::showKernel(const std::string& name)
{
    // The same selection arriving again (the panel's own click comes back through the main window, a
    // deselect when nothing is selected): nothing to redraw.
    if (name == m_selected)
        return;
    m_selected = m_doc ? name : std::string();
    rebuild();
    showCard();
}

void RooflinePanel::showCard()
{
    if (m_selected.empty()) {
        m_attach->setEnabled(false);
        m_card->setHtml(tr("<i>Click a kernel (here, in the timeline or in the table) to see its classification.</i>"));
        return;
    }
    const roofline::Classification* found = nullptr;
    for (const auto& list : {&m_report.kernels, &m_report.regions})
        for (const auto& k : *list)
            if (k.name == m_selected && !found)
                found = &k;
    m_attach->setEnabled(found != nullptr);
    if (!found) {
        m_card->setHtml(
            tr("<i>%1 has no classification (not a GPU activity or region).</i>").arg(QString::fromStdString(m_selected).toHtmlEscaped()));
        return;
    }
    QString html = QString::fromStdString(report::toHtml(report::verdictOf(*found)));
    if (m_rangeActive)
        html.prepend(tr("<i style='color:#666'>These figures are the whole trace's; the key-averages table has the range's.</i><br>"));
    if (!found->flops && !found->bytes && found->cls != roofline::RooflineClass::Communication)
        html += tr("<p><a href=\"%1\">Annotations...</a>: give this kernel's FLOPs and bytes per call</p>")
                    .arg(QLatin1String(kAnnotateLink));
    m_card->setHtml(html);
}

void RooflinePanel::setRangeActive(bool active)
{
    if (m_rangeActive == active)
        return;
    m_rangeActive = active;
    showCard();
}

QString RooflinePanel::pointText(const roofline::Classification& k, bool region)
{
    const double ai = k.flops && k.bytes && *k.bytes > 0 ? *k.flops / *k.bytes : 0;
    // A region's time is its spans' (the GPU may idle in them), not its kernels' (Kernel vs Reference's "GPU time").
    const QString calls = k.calls == 1 ? tr("1 call") : tr("%1 calls").arg(k.calls);
    const QString time = QString::fromStdString(stats::formatTorchTime(k.totalUs));
    return tr("%1%2\n%3 (%4)\n%5 TFLOP/s, %6 GB/s, %7 FLOP/B\n%8")
        .arg(region ? tr("region ") : QString(), QString::fromStdString(k.name), classLabel(k.cls), QString::fromStdString(k.strength))
        .arg(k.achievedFlopsPerS / 1e12, 0, 'f', 2)
        .arg(k.achievedBytesPerS / 1e9, 0, 'f', 1)
        .arg(ai, 0, 'f', 1)
        .arg(region ? tr("%1 spanning %2 in all").arg(calls, time) : tr("%1, %2 total").arg(calls, time));
}

const RooflinePanel::PlotPoint* RooflinePanel::pointAt(const QPointF& pixel) const
{
    const PlotPoint* best = nullptr;
    double bestDistance = 12; // px
    for (const PlotPoint& p : m_points) {
        const double dx = m_plot->xAxis->coordToPixel(p.x) - pixel.x(), dy = m_plot->yAxis->coordToPixel(p.y) - pixel.y();
        const double d = std::sqrt(dx * dx + dy * dy);
        if (d < bestDistance || (best && d == bestDistance && best->region && !p.region)) {
            bestDistance = d;
            best = &p;
        }
    }
    return best;
}

QString RooflinePanel::hoverText(const QPointF& pixel) const
{
    const PlotPoint* p = pointAt(pixel);
    if (!p)
        return {};
    // Points drawn on the same spot hide each other: the others there are named under the nearest one's text.
    const QPointF centre(m_plot->xAxis->coordToPixel(p->x), m_plot->yAxis->coordToPixel(p->y));
    QStringList others;
    for (const PlotPoint& q : m_points) {
        const double dx = m_plot->xAxis->coordToPixel(q.x) - centre.x(), dy = m_plot->yAxis->coordToPixel(q.y) - centre.y();
        if (&q != p && dx * dx + dy * dy <= kSameSpotPx * kSameSpotPx)
            others << (q.region ? tr("region ") : QString()) + QString::fromStdString(q.item->name);
    }
    QString text = pointText(*p->item, p->region);
    if (!others.isEmpty()) {
        const qsizetype listed = std::min<qsizetype>(others.size(), 4);
        text += tr("\n\n%n more on this spot (select them in the table):", nullptr, int(others.size()));
        for (qsizetype i = 0; i < listed; ++i)
            text += QStringLiteral("\n  ") + others[i];
        if (others.size() > listed)
            text += tr("\n  and %n more", nullptr, int(others.size() - listed));
    }
    return text;
}

QString RooflinePanel::pointNameAt(const QPointF& pixel) const
{
    const PlotPoint* p = pointAt(pixel);
    return p ? QString::fromStdString(p->item->name) : QString();
}

void RooflinePanel::chooseSource()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Generated source of %1").arg(QString::fromStdString(m_selected)), QString(),
                                                      tr("CUDA sources (*.cu *.cuh *.c *.cpp);;All files (*)"));
    if (!path.isEmpty())
        attachSource(path);
}

bool RooflinePanel::attachSource(const QString& path)
{
    if (!m_doc || m_selected.empty())
        return false;
    try {
        auto inspection = roofline::inspectGeneratedSourceFile(path.toStdString());
        // One source per kernel: a new pick replaces the old one.
        std::erase_if(m_sources, [&](const roofline::SourceAttachment& s) { return s.target == m_selected; });
        m_sources.push_back({m_selected, std::move(inspection)});
    } catch (const io::TraceFileError& e) {
        m_card->setHtml(tr("<b>Cannot use this source:</b> %1").arg(QString::fromStdString(e.what()).toHtmlEscaped()));
        return false;
    }
    reclassify();
    return true;
}

bool RooflinePanel::legendShown() const { return m_plot->legend->visible() && m_plot->plotLayout()->hasElement(1, 0); }

int RooflinePanel::legendColumnsThatFit() const
{
    // The items fill rows of `columns`: each column as wide as its widest item. Up to four (two rows for the
    // usual eight), one at the least.
    const QCPLegend* legend = m_plot->legend;
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem* item = legend->item(i)) // a grid's empty cell has none
            widths.push_back(item->minimumOuterSizeHint().width());
    const QMargins margins = legend->margins();
    const int room = m_plot->width() - margins.left() - margins.right();
    for (int columns = kMostLegendColumns; columns > 1; --columns) {
        std::vector<int> columnWidth(static_cast<size_t>(columns), 0);
        for (size_t i = 0; i < widths.size(); ++i)
            columnWidth[i % static_cast<size_t>(columns)] = std::max(columnWidth[i % static_cast<size_t>(columns)], widths[i]);
        int total = legend->columnSpacing() * (columns - 1);
        for (const int w : columnWidth)
            total += w;
        if (total <= room)
            return columns;
    }
    return 1;
}

QString RooflinePanel::verdictText() const { return m_card->toPlainText(); }
