// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "comparedtimeline.h"
#include "comparepanel.h"
#include "keyaveragesmodel.h"
#include "memoryeventspanel.h"
#include "memorypanel.h"
#include "snapshotview.h"
#include "stepspanel.h"
#include "memory/allocatorsnapshot.h"
#include "memory/memorytimeline.h"

#include "analysis/overlap.h"
#include "detailspanel.h"
#include "findingspanel.h"
#include "launchespanel.h"
#include "keyaveragespanel.h"
#include "profiledialog.h"
#include "analysis/ranks.h"
#include "ranksloadjob.h"
#include "ranksmodel.h"
#include "rankspanel.h"
#include "reportexport.h"
#include "io/tracefileerror.h"
#include "session/sessionmanifest.h"
#include "rooflinepanel.h"
#include "report/overlapreport.h"
#include "report/snapshotreport.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/eventsearch.h"
#include "trace/traceloader.h"
#include "version.h"
#include "timelineview.h"
#include "traceloadjob.h"
#include "tracedocument.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QSplitter>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QThread>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

using namespace tilescope;

namespace {

// A load error's text for a dialog whose heading is the file: without the "path: " it starts with (the CLI's form,
// TraceFileError), so the path is not said twice.
QString failureText(const QString& path, const QString& message)
{
    const QString prefix = path + QStringLiteral(": ");
    return message.startsWith(prefix) ? message.mid(prefix.size()) : message;
}
const char* kSample = ":/samples/train_scheduled.pt.trace.json.gz";
QString fmt(int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); }
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_job(new TraceLoadJob(this))
    , m_timeline(new TimelineView(this))
    , m_details(new DetailsPanel(this))
    , m_roofline(new RooflinePanel(this))
    , m_memory(new MemoryPanel(this))
    , m_memoryEvents(new MemoryEventsPanel(this))
    , m_snapshotView(new SnapshotView(this))
    , m_keyAverages(new KeyAveragesPanel(this))
    , m_findings(new FindingsPanel(this))
    , m_figuresTimer(new QTimer(this))
{
    setWindowTitle(tr("TileScope"));
    setAcceptDrops(true);
    resize(kDefaultSize);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    m_figures = new QLabel(central);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures->setWordWrap(true);
    m_figures->setContentsMargins(8, 4, 8, 4);
    // Room for three lines from the start: the text wraps to two or three as the view's figures change while
    // zooming, and every track under it moved up and down with it.
    m_figures->setMinimumHeight(3 * m_figures->fontMetrics().lineSpacing() + 8);
    m_figures->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    layout->addWidget(m_figures);
    // The memory graph under the timeline, on its time axis; the splitter lets either take the room.
    auto* split = new QSplitter(Qt::Vertical, central);
    split->setObjectName(QStringLiteral("timelineSplit"));
    split->addWidget(m_timeline);
    m_comparedTimeline = new ComparedTimeline(m_timeline, split); // File > Compare With…: after, under before
    split->addWidget(m_comparedTimeline);
    split->addWidget(m_memory);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    setCentralWidget(central);

    m_keyAveragesDock = new QDockWidget(tr("Key averages"), this);
    m_keyAveragesDock->setObjectName(QStringLiteral("keyAverages"));
    m_keyAveragesDock->setWidget(m_keyAverages);
    addDockWidget(Qt::BottomDockWidgetArea, m_keyAveragesDock);

    auto* detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName(QStringLiteral("details"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);
    auto* memoryDock = new QDockWidget(tr("Memory events"), this);
    memoryDock->setObjectName(QStringLiteral("memoryEvents"));
    memoryDock->setWidget(m_memoryEvents);
    addDockWidget(Qt::BottomDockWidgetArea, memoryDock);
    tabifyDockWidget(m_keyAveragesDock, memoryDock);
    m_keyAveragesDock->raise();
    connect(m_memoryEvents, &MemoryEventsPanel::eventClicked, this, [this](uint32_t e) { m_timeline->selectEvent(e, true); });
    connect(m_memoryEvents, &MemoryEventsPanel::opNameClicked, this, [this](const QString& name) {
        if (!m_doc)
            return;
        const uint32_t first = trace::firstEventNamed(*m_doc->trace, name.toStdString(),
                                                      [](const trace::Event& e) { return trace::isHostOp(e); });
        if (first != trace::kNoIndex)
            m_timeline->selectEvent(first, true);
    });
    auto* snapshotDock = new QDockWidget(tr("Memory snapshot"), this);
    snapshotDock->setObjectName(QStringLiteral("memorySnapshot"));
    snapshotDock->setWidget(m_snapshotView);
    addDockWidget(Qt::BottomDockWidgetArea, snapshotDock);
    tabifyDockWidget(memoryDock, snapshotDock);
    m_keyAveragesDock->raise();
    m_snapshotDock = snapshotDock;
    QDockWidget* compareDock = addCompareDock(snapshotDock);
    // Launch statistics of the whole trace, a tab beside the table; an outlier's double-click shows its kernel.
    auto* launches = new LaunchesPanel(this);
    auto* launchesDock = new QDockWidget(tr("Launches"), this);
    launchesDock->setObjectName(QStringLiteral("launches"));
    launchesDock->setWidget(launches);
    addDockWidget(Qt::BottomDockWidgetArea, launchesDock);
    tabifyDockWidget(compareDock, launchesDock);
    connect(this, &MainWindow::documentChanged, launches, [this, launches] { launches->setDocument(m_doc); });
    connect(launches, &LaunchesPanel::eventActivated, this, [this](uint32_t event) { m_timeline->selectEvent(event, true); });
    QDockWidget* stepsDock = addStepsDock(compareDock);
    QDockWidget* ranksDock = addRanksDock(compareDock);
    m_keyAveragesDock->raise(); // the table stays the visible tab
    auto* rooflineDock = new QDockWidget(tr("Roofline"), this);
    rooflineDock->setObjectName(QStringLiteral("roofline"));
    rooflineDock->setWidget(m_roofline);
    addDockWidget(Qt::RightDockWidgetArea, rooflineDock);
    connect(m_roofline, &RooflinePanel::statusMessage, this, [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(m_roofline, &RooflinePanel::kernelClicked, this, [this](const QString& name) {
        if (!m_doc)
            return;
        const uint32_t first = trace::firstEventNamed(*m_doc->trace, name.toStdString(),
                                                      [](const trace::Event& e) { return trace::isGpuSide(e.kind); });
        if (first != trace::kNoIndex)
            m_timeline->selectEvent(first, true); // the panel follows through onEventSelected
        else
            m_roofline->showKernel(name.toStdString());
    });
    m_details->showTraceEvent(trace::kNoIndex);
    // Findings between Details and the roofline (beside the table they would take the width its kernel names
    // need to read apart): selecting one goes to its place in every view.
    auto* findingsDock = new QDockWidget(tr("Findings"), this);
    findingsDock->setObjectName(QStringLiteral("findings"));
    findingsDock->setWidget(m_findings);
    splitDockWidget(detailsDock, findingsDock, Qt::Vertical);
    // The answer gets room for several findings and their evidence; Details needs a few lines until clicked.
    // (once the window is laid out: before it is shown the docks have no heights to share). The heights are
    // for the default window, in proportion on a smaller screen's.
    QTimer::singleShot(0, this, [this] {
        applyDefaultDockSizes();
        m_defaultLayout = saveState(); // where View > Reset Layout puts the docks back
    });
    connect(m_findings, &FindingsPanel::findingSelected, this, &MainWindow::showFindingPlace);
    // The roofline reclassified (annotations, ceilings, a chosen GPU): the findings rest on its classification.
    connect(m_roofline, &RooflinePanel::reclassified, m_findings, [this] { m_findings->setClassification(m_roofline->report()); });

    // Menus and toolbar.
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), dialogFolder(),
                                                          tr("Chrome traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Reopen &Last"), this, [this] { reopenLast(); });
    file->addAction(tr("Open Bundled &Sample"), this, [this] { openBundledSample(); });
    file->addAction(tr("Open Memory S&napshot…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a CUDA allocator snapshot (torch.cuda.memory._dump_snapshot)"),
                                                          dialogFolder(), tr("Allocator snapshots (*.pickle *.pickle.gz);;All files (*)"));
        if (!path.isEmpty())
            openMemorySnapshot(path);
    });
    file->addAction(tr("Open Memory &Timeline…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a memory timeline (prof.export_memory_timeline)"), dialogFolder(),
                                                          tr("Memory timelines (*.json *.json.gz);;All files (*)"));
        if (!path.isEmpty())
            openMemoryTimeline(path);
    });
    file->addAction(tr("Open F&older…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a folder of per-rank traces of one run, or a session folder"),
                                                              dialogFolder());
        if (!dir.isEmpty())
            openFile(dir);
    });
    file->addAction(tr("Open Session &Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a session folder (holds tilescope-session.json)"),
                                                              dialogFolder());
        if (!dir.isEmpty())
            openFile(dir);
    });
    file->addAction(tr("&Compare With…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Compare with a trace (after; the open trace is before)"),
                                                          dialogFolder(), tr("Chrome traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty())
            compareWith(path);
    });
    m_closeComparison = file->addAction(tr("Close Co&mparison"), this, [this] { closeComparison(); });
    m_closeComparison->setEnabled(false);
    file->addSeparator();
    file->addAction(tr("Export &Report…"), this, [this] {
        if (!m_doc) {
            statusBar()->showMessage(tr("Open a trace first: the report is about it"), 5000);
            return;
        }
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export report"),
            QDir(dialogFolder()).filePath(QFileInfo(m_doc->path).completeBaseName() + QStringLiteral(".report.html")),
            tr("Report (*.html *.md)"));
        if (path.isEmpty())
            return;
        statusBar()->showMessage(tr("Writing %1…").arg(path));
        // The roofline as the dock shows it (edited annotations, measured ceilings, a chosen GPU): the report's
        // classification, findings and picture say what the window says.
        std::shared_ptr<const TraceDocument> reported = m_doc;
        if (m_doc->analysed && m_roofline->reportIsThePanels()) {
            auto copy = std::make_shared<TraceDocument>(*m_doc);
            copy->classification = m_roofline->report();
            reported = std::move(copy);
        }
        exportReport(reported, path, m_reportJob, [this](bool ok, const QString& message) {
            if (ok) {
                statusBar()->showMessage(message, 10000);
            } else {
                statusBar()->clearMessage();
                QMessageBox::warning(this, tr("Export report"), message);
            }
        });
    });
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    QMenu* profile = menuBar()->addMenu(tr("&Profile"));
    profile->addAction(tr("&New Session…"), QKeySequence(Qt::CTRL | Qt::Key_P), this, [this] { showProfileDialog(); });
    QMenu* recentSessions = profile->addMenu(tr("&Recent Sessions"));
    connect(recentSessions, &QMenu::aboutToShow, this, [this, recentSessions] {
        recentSessions->clear();
        const auto sessions = ProfileDialog::recentSessions();
        if (sessions.isEmpty())
            recentSessions->addAction(tr("(none)"))->setEnabled(false);
        for (const auto& config : sessions)
            recentSessions->addAction(ProfileDialog::describe(config), this, [this, config] {
                showProfileDialog();
                m_profileDialog->setConfig(config);
            });
    });
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit All"), this, [this] { m_timeline->fitAll(); });
    view->addAction(m_keyAveragesDock->toggleViewAction());
    view->addAction(detailsDock->toggleViewAction());
    view->addAction(rooflineDock->toggleViewAction());
    view->addAction(memoryDock->toggleViewAction());
    view->addAction(snapshotDock->toggleViewAction());
    view->addAction(findingsDock->toggleViewAction());
    view->addAction(compareDock->toggleViewAction());
    view->addAction(stepsDock->toggleViewAction());
    view->addAction(launchesDock->toggleViewAction());
    view->addAction(ranksDock->toggleViewAction());
    view->addSeparator();
    QAction* idleGpus = view->addAction(tr("Show &Idle GPUs"));
    idleGpus->setCheckable(true);
    idleGpus->setToolTip(tr("Show busy lanes for GPUs with no kernels, copies or memsets in the trace"));
    connect(idleGpus, &QAction::toggled, m_timeline, &TimelineView::setShowIdleDevices);
    QAction* queueLanes = view->addAction(tr("Show &Queue Lanes"));
    queueLanes->setCheckable(true);
    queueLanes->setToolTip(tr("Show each GPU stream's launch queue (launched, not yet started) under its lane"));
    connect(queueLanes, &QAction::toggled, m_timeline, &TimelineView::setShowQueueLanes);
    // A stream's own Show/Hide Queue Lane (its context menu): checked while every stream's is shown.
    connect(m_timeline, &TimelineView::queueLanesChanged, queueLanes, [queueLanes](bool allShown) {
        const QSignalBlocker quiet(queueLanes); // unchecking must not hide the streams still shown
        queueLanes->setChecked(allShown);
    });
    view->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout)
        ->setToolTip(tr("Every dock back where it was when the window opened: closed ones shown, floating ones docked"));
    view->addAction(tr("&Legend"), this, [this] {
        QMessageBox box(QMessageBox::NoIcon, tr("Timeline legend"), TimelineView::legendHtml(), QMessageBox::Close, this);
        box.setTextFormat(Qt::RichText);
        box.exec();
    });
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence::HelpContents, this,
                    [this] { QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsHtml()); });
    help->addAction(tr("&About TileScope"), this, [this] { QMessageBox::about(this, tr("About TileScope"), aboutHtml()); });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    rebuildRecentMenu();

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("main"));
    bar->addAction(tr("Open"), this, [file] { file->actions().first()->trigger(); })->setToolTip(tr("Open a trace (Ctrl+O)"));
    bar->addAction(tr("Fit"), this, [this] { m_timeline->fitAll(); })
        ->setToolTip(tr("Show the whole trace (F, with the timeline focused)"));
    m_search = new QLineEdit(bar);
    m_search->setPlaceholderText(tr("Search events (Ctrl+F; Enter: next, Shift+Enter: previous)"));
    m_search->setMaximumWidth(360);
    bar->addWidget(m_search);
    bar->addAction(tr("Previous"), this, [this] { search(false); });
    bar->addAction(tr("Next"), this, [this] { search(true); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] { search(!(QApplication::keyboardModifiers() & Qt::ShiftModifier)); });
    // Ctrl+F: to the search box from anywhere in the window, its text selected to be typed over.
    auto* find = new QAction(tr("Find Events"), this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    addAction(find);

    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(300);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, m_job, &TraceLoadJob::cancel);

    connect(m_job, &TraceLoadJob::progress, this, &MainWindow::showLoadProgress);
    // The timeline draws as soon as the events are in; the docks fill as the analyses come in.
    connect(m_job, &TraceLoadJob::firstFrame, this, [this](std::shared_ptr<const TraceDocument> doc) {
        statusBar()->showMessage(tr("Loaded %1: %2 events; analysing…").arg(doc->path).arg(doc->trace->events.size()));
        m_progress->setRange(0, 0);
        m_progress->setFormat(tr("analysing"));
        setDocument(std::move(doc));
        emit firstFrameShown();
    });
    connect(m_job, &TraceLoadJob::analysisProgress, this, [this](int done, int total, const QString& what) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
        m_progress->setFormat(what.isEmpty() ? tr("analysed") : tr("analysing: %1 (%2/%3)").arg(what).arg(done + 1).arg(total));
    });
    connect(m_job, &TraceLoadJob::analysed, this, &MainWindow::updateAnalyses);
    connect(m_job, &TraceLoadJob::finished, this, [this](std::shared_ptr<const TraceDocument> doc) {
        m_progress->hide();
        m_cancel->hide();
        QString message = tr("Loaded %1: %2 events").arg(doc->path).arg(doc->trace->events.size());
        for (const std::string& warning : doc->trace->stats.warnings)
            message += QStringLiteral("; ") + QString::fromStdString(warning);
        if (doc->memoryTimeline)
            message += tr("; memory timeline %1").arg(QString::fromStdString(doc->memoryTimeline->path));
        if (doc->memorySnapshot)
            message += tr("; allocator snapshot %1 (Memory snapshot dock)").arg(QString::fromStdString(doc->memorySnapshot->path));
        for (const std::string& problem : doc->memoryFileProblems)
            message += tr("; not opened: %1").arg(QString::fromStdString(problem));
        // Kept until the next message where a part is missing or a file beside the trace was left out.
        statusBar()->showMessage(message, doc->trace->stats.partial || !doc->memoryFileProblems.empty() ? 0 : 8000);
        updateAnalyses(std::move(doc));
    });
    connect(m_job, &TraceLoadJob::failed, this, &MainWindow::onLoadFailed);
    connect(m_job, &TraceLoadJob::cancelled, this, [this] {
        m_progress->hide();
        m_cancel->hide();
        // Cancelled after the first frame: the timeline stays, the docks it had no analyses for stay empty.
        statusBar()->showMessage(m_doc && !m_doc->analysed ? tr("Analyses cancelled: the docks stay empty") : tr("Loading cancelled"),
                                 5000);
    });

    connect(m_timeline, &TimelineView::eventSelected, this, &MainWindow::onEventSelected);
    connect(m_details, &DetailsPanel::jumpTo, this, [this](uint32_t e) { m_timeline->selectEvent(e, true); });
    connect(m_timeline, &TimelineView::viewChanged, this, [this](int64_t start, int64_t end) {
        m_figuresTimer->start();
        alignMemoryPanel();
        m_memory->setView(start, end);
    });
    connect(m_timeline, &TimelineView::cursorMoved, m_memory, &MemoryPanel::setCursorTime);
    connect(m_memory, &MemoryPanel::cursorMoved, m_timeline, &TimelineView::setCursorTime);
    connect(m_memory, &MemoryPanel::zoomRequested, this, [this](double factor, int64_t anchor) {
        m_timeline->zoomBy(
            factor, int(std::lround(m_timeline->canvasLeft() + double(anchor - m_timeline->viewStart()) / m_timeline->nsPerPixel())));
    });
    connect(m_memory, &MemoryPanel::panRequested, m_timeline, [this](double dx) { m_timeline->panByPixels(dx); });
    connect(m_memory, &MemoryPanel::opClicked, this, [this](uint32_t event) { m_timeline->selectEvent(event, false); });
    connect(m_memory, &MemoryPanel::rangeSelected, this, [this](std::optional<std::pair<int64_t, int64_t>> range) {
        m_timeline->setRange(range); // the timeline announces it as if selected there
    });
    connect(m_timeline, &TimelineView::rangeSelected, this, [this](std::optional<std::pair<int64_t, int64_t>> range) {
        m_memory->setRange(range);
        updateFigures();
        m_keyAverages->setRange(range);
        m_roofline->setRangeActive(range.has_value());
        if (!m_rangeFromFinding)
            m_findings->setRange(range);
    });
    connect(m_keyAverages, &KeyAveragesPanel::rangeAggregated, this, &MainWindow::rangeAggregated);
    connect(m_keyAverages, &KeyAveragesPanel::keySelected, this, &MainWindow::onKeySelected);
    connect(m_keyAverages, &KeyAveragesPanel::selectionCleared, this, [this] {
        m_timeline->highlightName(std::nullopt);
        m_roofline->clearSelection();
    });
    m_figuresTimer->setSingleShot(true);
    m_figuresTimer->setInterval(80);
    connect(m_figuresTimer, &QTimer::timeout, this, &MainWindow::updateFigures);
}

MainWindow::~MainWindow() = default;

// The Kernel vs Reference dock (issue #12), tabbed with `neighbour`: it follows the document and the roofline panel's
// reclassifications, a call clicked there is shown in the timeline, and the key-averages table offers
// "Compare with..." on a row.
QDockWidget* MainWindow::addCompareDock(QDockWidget* neighbour)
{
    auto* panel = new ComparePanel(this);
    // Not "Compare": File > Compare With… compares two traces; this dock, two kernels or regions of one.
    auto* dock = new QDockWidget(tr("Kernel vs Reference"), this);
    dock->setObjectName(QStringLiteral("compare"));
    dock->setWidget(panel);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    tabifyDockWidget(neighbour, dock);
    connect(this, &MainWindow::documentChanged, panel, [this, panel] { panel->setDocument(m_doc); });
    connect(m_roofline, &RooflinePanel::reclassified, panel, [this, panel] { panel->setClassification(m_roofline->report()); });
    connect(panel, &ComparePanel::callActivated, this, [this](int64_t start, int64_t end) {
        const int64_t margin = std::max<int64_t>((end - start) / 4, 1000);
        m_timeline->zoomToRange(start - margin, end + margin);
        m_timeline->setRange(std::pair{start, end});
    });
    QTableView* table = m_keyAverages->table();
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table, &QWidget::customContextMenuRequested, this, [this, table, panel, dock](const QPoint& pos) {
        const QModelIndex index = table->indexAt(pos);
        if (!index.isValid())
            return;
        const QString key = index.siblingAtColumn(KeyAveragesModel::NameColumn).data().toString();
        QMenu menu(table);
        QAction* with = menu.addAction(tr("Compare with..."));
        // Only names compare knows: a record_function region or a GPU activity of the trace.
        with->setEnabled(panel->canCompare(key));
        if (menu.exec(table->viewport()->mapToGlobal(pos)) != with)
            return;
        dock->show();
        dock->raise();
        panel->compareWith(key);
    });
    return dock;
}

// The Steps dock (issue #13), tabbed with `neighbour`: it follows the document; double-clicking a step
// zooms the timeline to it.
QDockWidget* MainWindow::addStepsDock(QDockWidget* neighbour)
{
    m_steps = new StepsPanel(this);
    auto* dock = new QDockWidget(tr("Steps"), this);
    dock->setObjectName(QStringLiteral("steps"));
    dock->setWidget(m_steps);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    tabifyDockWidget(neighbour, dock);
    connect(this, &MainWindow::documentChanged, m_steps, [this] { m_steps->setDocument(m_doc); });
    connect(m_steps, &StepsPanel::stepActivated, m_timeline, &TimelineView::zoomToRange);
    // Compare With… (issue #13): the second trace loads on its own worker, as a trace opened normally.
    m_compareJob = new TraceLoadJob(this);
    connect(m_compareJob, &TraceLoadJob::progress, this, &MainWindow::showLoadProgress);
    connect(m_compareJob, &TraceLoadJob::finished, this, [this](std::shared_ptr<const TraceDocument> after) {
        m_progress->hide();
        m_cancel->hide();
        if (!m_doc)
            return;
        m_compared = std::move(after);
        m_keyAverages->setComparison(m_compared);
        m_comparedTimeline->setDocuments(m_doc, m_compared);
        m_closeComparison->setEnabled(true);
        m_keyAveragesDock->show();
        m_keyAveragesDock->raise(); // where the diff is
        statusBar()->showMessage(tr("Comparing %1 (before) with %2 (after)").arg(m_doc->path, m_compared->path), 8000);
        emit comparisonChanged();
    });
    connect(m_compareJob, &TraceLoadJob::failed, this, [this](const QString& path, const QString& message) {
        m_progress->hide();
        m_cancel->hide();
        QMessageBox::warning(this, tr("Cannot compare"),
                             tr("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), failureText(path, message).toHtmlEscaped()));
    });
    connect(m_compareJob, &TraceLoadJob::cancelled, this, [this] {
        m_progress->hide();
        m_cancel->hide();
    });
    connect(m_comparedTimeline, &ComparedTimeline::closeRequested, this, &MainWindow::closeComparison);
    connect(m_comparedTimeline, &ComparedTimeline::diffStepChanged, m_keyAverages, &KeyAveragesPanel::setComparisonStep);
    // A diff row highlights its occurrences in the after timeline too (the before one follows onKeySelected).
    connect(m_keyAverages, &KeyAveragesPanel::keySelected, this, [this](const QString& key, stats::DeviceType device) {
        const trace::StringId id = m_compared ? m_compared->trace->strings.find(key.toStdString()) : trace::kNoIndex;
        m_comparedTimeline->afterTimeline()->highlightName(
            id == trace::kNoIndex ? std::nullopt : std::optional(std::pair(id, device == stats::DeviceType::CPU)));
    });
    connect(m_keyAverages, &KeyAveragesPanel::selectionCleared, this,
            [this] { m_comparedTimeline->afterTimeline()->highlightName(std::nullopt); });
    return dock;
}

void MainWindow::showLoadProgress(qint64 read, qint64 total, qint64 events)
{
    m_progress->setRange(0, 1000);
    m_progress->setValue(total > 0 ? int(1000 * read / total) : 0);
    m_progress->setFormat(tr("%1 / %2 MB, %3 events").arg(read / 1e6, 0, 'f', 1).arg(total / 1e6, 0, 'f', 1).arg(events));
}

void MainWindow::compareWith(const QString& path)
{
    if (!m_doc) {
        QMessageBox::information(this, tr("Compare With"),
                                 tr("Open the trace to compare first (before); then compare it with another (after)."));
        return;
    }
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("opening %1 to compare").arg(QFileInfo(path).fileName()));
    m_progress->show();
    m_cancel->show();
    connect(m_cancel, &QPushButton::clicked, m_compareJob, &TraceLoadJob::cancel, Qt::UniqueConnection);
    m_compareJob->start(path);
}

void MainWindow::closeComparison()
{
    m_compareJob->cancel();
    const bool was = m_compared != nullptr;
    m_compared.reset();
    m_keyAverages->setComparison(nullptr);
    m_comparedTimeline->setDocuments(m_doc, nullptr);
    if (m_closeComparison)
        m_closeComparison->setEnabled(false);
    if (was)
        emit comparisonChanged();
}

// The Ranks dock (issue #13), tabbed with `neighbour`: a folder's per-rank figures and stragglers; activating
// a rank opens its timeline.
QDockWidget* MainWindow::addRanksDock(QDockWidget* neighbour)
{
    m_ranks = new RanksPanel(this);
    m_ranksJob = new RanksLoadJob(this);
    m_ranksDock = new QDockWidget(tr("Ranks"), this);
    m_ranksDock->setObjectName(QStringLiteral("ranks"));
    m_ranksDock->setWidget(m_ranks);
    addDockWidget(Qt::BottomDockWidgetArea, m_ranksDock);
    tabifyDockWidget(neighbour, m_ranksDock);
    connect(m_ranks, &RanksPanel::rankActivated, this, [this](const QString& file) { openFile(file, false, false); });
    // Which rank the timeline shows: its row selected, the dock's and the window's titles name it.
    connect(this, &MainWindow::documentChanged, m_ranks, [this] {
        const qint64 rank = m_doc ? m_ranks->markShown(m_doc->path) : -1;
        // A trace of none of the folder's ranks: the ranks no longer go with the timeline (a double-click on
        // one swapped the trace opened for a rank of the old folder).
        if (m_doc && rank < 0 && m_ranks->model()->report()) {
            m_ranks->setReport(nullptr);
            // Its tab, empty now, gives way to the table's (the folder's ranks had raised it). A tab behind another
            // is "visible" to Qt; only the one in front has a visible region.
            if (!m_ranksDock->visibleRegion().isEmpty() && !m_ranksDock->isFloating()
                && tabifiedDockWidgets(m_ranksDock).contains(m_keyAveragesDock))
                m_keyAveragesDock->raise();
        }
        const auto* report = m_ranks->model()->report();
        m_ranksDock->setWindowTitle(rank < 0 ? tr("Ranks") : tr("Ranks (timeline: rank %1)").arg(rank));
        if (rank >= 0 && report)
            setWindowTitle(windowTitle() + tr(" - rank %1 of %2").arg(rank).arg(report->worldSize));
    });
    connect(m_ranksJob, &RanksLoadJob::progress, this, [this](qint64 read, qint64 total) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(total > 0 ? int(1000 * read / total) : 0);
        m_progress->setFormat(tr("ranks: %1 / %2 MB").arg(read / 1e6, 0, 'f', 1).arg(total / 1e6, 0, 'f', 1));
    });
    connect(m_ranksJob, &RanksLoadJob::finished, this,
            [this](const QString& folder, std::shared_ptr<const tilescope::analysis::RanksReport> report) {
                m_progress->hide();
                m_cancel->hide();
                m_ranks->setReport(report);
                m_ranksDock->show();
                m_ranksDock->raise();
                if (report->ranks.empty())
                    return;
                // The timeline of the rank asked for, else the first straggler, else the lowest rank.
                const auto& verdict = report->verdict;
                qint64 rank = m_rankToShow >= 0  ? m_rankToShow
                    : verdict.stragglers.empty() ? report->ranks.front().rank
                                                 : verdict.stragglers.front();
                QString file = QString::fromStdString(report->ranks.front().file);
                for (const auto& r : report->ranks)
                    if (r.rank == rank)
                        file = QString::fromStdString(r.file);
                statusBar()->showMessage(tr("Ranks of %1: %2").arg(folder, m_ranks->verdict()->text()), 8000);
                rememberRecent(folder); // reopened as the folder, every rank
                openFile(file, false, false);
            });
    connect(m_ranksJob, &RanksLoadJob::failed, this, [this](const QString& folder, const QString& message) {
        m_progress->hide();
        m_cancel->hide();
        forgetRecent(folder); // Open Recent offers only what opens
        QMessageBox::warning(this, tr("Open folder"), message);
    });
    connect(m_ranksJob, &RanksLoadJob::cancelled, this, [this] {
        m_progress->hide();
        m_cancel->hide();
    });
    return m_ranksDock;
}

void MainWindow::openRankFolder(const QString& folder, qint64 showRank)
{
    m_rankToShow = showRank;
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("opening the ranks of %1").arg(QFileInfo(folder).fileName()));
    m_progress->show();
    m_cancel->show();
    connect(m_cancel, &QPushButton::clicked, m_ranksJob, &RanksLoadJob::cancel, Qt::UniqueConnection); // made after the docks
    m_ranksJob->start(folder);
}

QTableView* MainWindow::table() const { return m_keyAverages->table(); }
QLineEdit* MainWindow::tableFilter() const { return m_keyAverages->filter(); }
QCheckBox* MainWindow::groupByShape() const { return m_keyAverages->groupByShape(); }

void MainWindow::showProfileDialog()
{
    if (!m_profileDialog) {
        m_profileDialog = new ProfileDialog(this);
        connect(m_profileDialog, &ProfileDialog::sessionFinished, this,
                [this](std::shared_ptr<const tilescope::session::SessionResult> result) {
                    if (result->tracePath.empty())
                        return;
                    statusBar()->showMessage(tr("Session finished: opening %1").arg(QString::fromStdString(result->tracePath)), 10000);
                    openFile(QString::fromStdString(result->tracePath));
                });
    }
    m_profileDialog->show();
    m_profileDialog->raise();
    m_profileDialog->activateWindow();
}

void MainWindow::openFile(const QString& givenPath, bool partial, bool remember)
{
    QString path = givenPath;
    if (QFileInfo(path).isDir()) {
        // A session folder opens its trace (the manifest names it); annotations sit beside it.
        const auto manifest = tilescope::session::manifestInFolder(path.toStdString());
        QString trace;
        try {
            if (manifest)
                trace = QString::fromStdString(tilescope::session::readSessionManifest(*manifest).trace);
        } catch (const tilescope::io::TraceFileError& e) {
            QMessageBox::warning(this, tr("Open session"), QString::fromStdString(e.what()));
            return;
        }
        if (!manifest) { // no session: the per-rank traces of one run
            openRankFolder(path);
            return;
        }
        if (trace.isEmpty()) {
            QMessageBox::warning(this, tr("Open session"),
                                 tr("%1: not a TileScope session folder with a trace (no tilescope-session.json naming one)").arg(path));
            return;
        }
        path = trace;
    }
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("opening %1").arg(QFileInfo(path).fileName()));
    m_progress->show();
    m_cancel->show();
    m_job->start(path, {}, partial);
    if (remember && path != QLatin1String(kSample))
        rememberRecent(path);
}

void MainWindow::openBundledSample()
{
    QFile sample(QString::fromLatin1(kSample));
    if (!sample.open(QIODevice::ReadOnly))
        return;
    m_progress->setRange(0, 0);
    m_progress->show();
    m_cancel->show();
    m_job->start(QStringLiteral("bundled sample: train_scheduled (H200)"), sample.readAll());
}

void MainWindow::reopenLast()
{
    const QString last = QSettings().value(QStringLiteral("lastFile")).toString();
    if (!last.isEmpty())
        openFile(last);
}

void MainWindow::screenshotWhenLoaded(const QString& path) { m_screenshotPath = path; }

void MainWindow::openMemorySnapshot(const QString& path)
{
    statusBar()->showMessage(tr("Reading %1…").arg(path));
    m_memoryFileJob.start([this, path](const WorkerJob::Run& run) {
        std::shared_ptr<const memory::AllocatorSnapshot> snapshot;
        QString error;
        try {
            snapshot = std::make_shared<const memory::AllocatorSnapshot>(memory::loadAllocatorSnapshot(path.toStdString()));
        } catch (const io::TraceFileError& e) {
            error = QString::fromStdString(e.what());
        }
        run.finish([this, snapshot, error] {
            if (!snapshot) {
                statusBar()->clearMessage();
                QMessageBox::warning(this, tr("Open memory snapshot"), error);
                return;
            }
            m_snapshotView->setSnapshot(snapshot);
            m_snapshotDock->show();
            m_snapshotDock->raise();
            statusBar()->showMessage(tr("Opened %1").arg(QString::fromStdString(snapshot->path)), 8000);
        });
    });
}

void MainWindow::openMemoryTimeline(const QString& path)
{
    try {
        auto timeline = std::make_shared<const memory::MemoryTimeline>(memory::loadMemoryTimeline(path.toStdString()));
        if (!m_doc) {
            QMessageBox::information(this, tr("Open memory timeline"),
                                     tr("Open the trace it belongs to first: the timeline is drawn on its time axis."));
            return;
        }
        const trace::Trace& t = *m_doc->trace;
        if (const std::string apart = memory::timelineOutsideTraceText(*timeline, t.firstTime(), t.lastTime(), t.meta.baseTimeNs);
            !apart.empty()) {
            QMessageBox::warning(this, tr("Open memory timeline"), QString::fromStdString(apart));
            return;
        }
        m_memory->setMemoryTimeline(std::move(timeline));
        statusBar()->showMessage(tr("Memory timeline %1 stacked under the memory graph").arg(path), 8000);
    } catch (const io::TraceFileError& e) {
        QMessageBox::warning(this, tr("Open memory timeline"), QString::fromStdString(e.what()));
    }
}

// The memory graph's data area starts at the timeline canvas's x, so one time is one x in both.
void MainWindow::alignMemoryPanel()
{
    const int canvasX = m_timeline->viewport()->mapTo(this, QPoint(m_timeline->canvasLeft(), 0)).x();
    m_memory->setCanvas(canvasX - m_memory->mapTo(this, QPoint(0, 0)).x(), m_timeline->canvasWidth());
}

void MainWindow::setDocument(std::shared_ptr<const TraceDocument> document)
{
    closeComparison(); // the comparison was with the trace this one replaces
    m_doc = std::move(document);
    m_profilerRangeText.reset();
    m_roofline->setRangeActive(false); // the timeline drops its range with the old trace, without announcing it
    setWindowTitle(m_doc->trace->stats.partial ? tr("TileScope - %1 (partial: the readable part)").arg(m_doc->path)
                                               : tr("TileScope - %1").arg(m_doc->path));
    // Nothing typed for the last trace carries over to this one.
    m_search->clear();
    m_details->setDocument(m_doc);
    m_timeline->setDocument(m_doc);
    showAnalyses();
    m_details->showTraceEvent(trace::kNoIndex);
    if (m_doc->analysed)
        documentComplete();
}

void MainWindow::updateAnalyses(std::shared_ptr<const TraceDocument> document)
{
    if (!m_doc || m_doc->trace != document->trace) {
        setDocument(std::move(document));
        return;
    }
    // The same trace with more analyses: the view, the selection and what was typed stay.
    m_doc = std::move(document);
    m_details->setDocument(m_doc);
    m_timeline->updateAnalyses(m_doc);
    showAnalyses();
    m_details->showTraceEvent(m_timeline->selectedEvent());
    if (m_doc->analysed)
        documentComplete();
}

void MainWindow::showAnalyses()
{
    // Docks whose analyses come last stay empty until then, rather than say "none found" (no GPU work,
    // no findings, no allocated bytes) about a trace that is still being analysed.
    const std::shared_ptr<const TraceDocument> complete = m_doc->analysed ? m_doc : nullptr;
    m_roofline->setDocument(complete);
    m_memory->setDocument(complete);
    m_memoryEvents->setDocument(complete);
    m_snapshotView->setSnapshot(m_doc->memorySnapshot);
    alignMemoryPanel();
    m_memory->setView(m_timeline->viewStart(), m_timeline->viewEnd());
    m_keyAverages->setDocument(m_doc);
    m_findings->setDocument(complete);
    updateFigures();
}

void MainWindow::documentComplete()
{
    emit documentChanged();
    if (!m_screenshotPath.isEmpty()) {
        QTimer::singleShot(300, this, [this] {
            const bool ok = grab().save(m_screenshotPath, "PNG");
            if (!ok)
                qCritical("tilescope: cannot write %s", qPrintable(m_screenshotPath));
            QApplication::exit(ok ? 0 : 2);
        });
    }
}

void MainWindow::onLoadFailed(const QString& path, const QString& message, qint64 completeEventsBefore)
{
    m_progress->hide();
    m_cancel->hide();
    forgetRecent(path); // Open Recent and Reopen Last offer only files that open
    if (!m_screenshotPath.isEmpty()) {
        qCritical("tilescope: %s", qPrintable(message));
        QApplication::exit(2);
        return;
    }
    // Memory data opened as a trace: the app's own way in for it (not the CLI's the loader names).
    report::MemoryFileKind memoryKind = report::MemoryFileKind::Other;
    try {
        memoryKind = report::detectMemoryFile(path.toStdString());
    } catch (const io::TraceFileError&) { // unreadable: the message says so
    }
    const QString shown = failureText(path, message);
    QMessageBox box(QMessageBox::Critical, tr("Cannot open trace"),
                    tr("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), shown.toHtmlEscaped()), QMessageBox::Close, this);
    QPushButton* asMemory = nullptr;
    if (memoryKind == report::MemoryFileKind::AllocatorSnapshot) {
        asMemory = box.addButton(tr("Open as Memory Snapshot"), QMessageBox::AcceptRole);
    } else if (memoryKind == report::MemoryFileKind::MemoryTimeline) {
        if (m_doc)
            asMemory = box.addButton(tr("Open as Memory Timeline"), QMessageBox::AcceptRole);
        else
            box.setInformativeText(tr("Open the trace it belongs to, then File > Open Memory Timeline… draws it under the "
                                      "trace's memory graph."));
    }
    if (asMemory)
        box.setDefaultButton(asMemory);
    QPushButton* partial = nullptr;
    if (completeEventsBefore > 0) {
        // A crashed or interrupted run leaves a trace cut short: what came before the damage is still whole.
        box.setInformativeText(tr("The %n complete event(s) before the problem can still be opened.", nullptr,
                                  int(std::min<qint64>(completeEventsBefore, INT_MAX))));
        partial = box.addButton(tr("Open Readable Part"), QMessageBox::AcceptRole);
        box.setDefaultButton(partial);
    }
    box.exec();
    if (partial && box.clickedButton() == partial)
        openFile(path, true);
    if (asMemory && box.clickedButton() == asMemory) {
        if (memoryKind == report::MemoryFileKind::AllocatorSnapshot)
            openMemorySnapshot(path);
        else
            openMemoryTimeline(path);
    }
}

void MainWindow::applyDefaultDockSizes()
{
    auto* details = findChild<QDockWidget*>(QStringLiteral("details"));
    auto* findings = findChild<QDockWidget*>(QStringLiteral("findings"));
    auto* roofline = findChild<QDockWidget*>(QStringLiteral("roofline"));
    const double scale = std::min(1.0, double(height()) / kDefaultSize.height());
    const auto px = [scale](int height) { return int(height * scale); };
    resizeDocks({m_keyAveragesDock}, {px(230)}, Qt::Vertical);
    resizeDocks({details, findings, roofline}, {px(150), px(210), px(330)}, Qt::Vertical);
}

void MainWindow::resetLayout()
{
    if (m_defaultLayout.isEmpty())
        return;
    restoreState(m_defaultLayout);
    // The docks' places come back from the saved state; their heights are shared out again for the window's
    // size now (the state's were for the size it had when it was taken, before a maximized window grew).
    QTimer::singleShot(0, this, [this] { applyDefaultDockSizes(); });
}

void MainWindow::useShortScreenLayout()
{
    // Beneath all the docks the table would have room for three rows: the roofline's plot and the findings set
    // the right column's least height.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
}

QString MainWindow::figuresText() const { return m_figures->text(); }

void MainWindow::updateFigures()
{
    if (!m_doc)
        return;
    // A partial load (the readable part of a damaged file) says so first: every figure is of that part only.
    const bool partial = m_doc->trace->stats.partial;
    const QString partialNote = partial
        ? QStringLiteral("<b style='color:#c00'>%1</b>; ").arg(tr("Partial load: only the events before the damage"))
        : QString();
    if (const std::string none = trace::noEventsSentence(*m_doc->trace); !none.empty()) {
        m_figures->setText(partialNote + QString::fromStdString(none).toHtmlEscaped());
        return;
    }
    if (!m_doc->overlapIndex) {
        m_figures->setText(partialNote + tr("Analysing the trace: the view's figures follow."));
        return;
    }
    const auto range = m_timeline->selectedRange();
    analysis::Interval window = range ? analysis::Interval{range->first, range->second}
                                      : analysis::Interval{m_timeline->viewStart(), m_timeline->viewEnd()};
    // The view's margins before the first and after the last activity are no idle time of the run: the view is
    // cut to overlap's window there, so a fitted view gives `tilescope-cli overlap`'s figures.
    const analysis::Interval activity = m_doc->overlap.window;
    bool cut = false;
    if (!range && activity.end > activity.start && window.start < activity.end && window.end > activity.start
        && (window.start < activity.start || window.end > activity.end)) {
        window = {std::max(window.start, activity.start), std::min(window.end, activity.end)};
        cut = true;
    }
    const auto r = m_doc->overlapIndex->figures(window);
    const bool fromFirst = cut && window.start == activity.start, toLast = cut && window.end == activity.end;
    QString text = partialNote;
    text += range             ? tr("Range %1: ").arg(fmt(window.end - window.start))
        : fromFirst && toLast ? tr("View, first to last activity %1: ").arg(fmt(window.end - window.start))
        : fromFirst           ? tr("View from the first activity %1: ").arg(fmt(window.end - window.start))
        : toLast              ? tr("View to the last activity %1: ").arg(fmt(window.end - window.start))
                              : tr("View %1: ").arg(fmt(window.end - window.start));
    auto count = [](uint64_t n) { return QString::fromStdString(stats::formatCount(n)); };
    if (r.activeDevices() == 0) {
        // A CPU-only trace: GPU idle figures would only restate that there is no GPU.
        if (!m_profilerRangeText) // counted once a trace, not at each view
            m_profilerRangeText = QString::fromStdString(trace::profilerRangeText(*m_doc->trace));
        if (!m_profilerRangeText->isEmpty())
            text += (partial ? tr("no timed GPU activity in the part read, as %1; CPU busy %2")
                             : tr("no timed GPU activity in this trace, as %1; CPU busy %2"))
                        .arg(*m_profilerRangeText, fmt(r.cpuBusyNs));
        else
            text += (partial ? tr("no GPU activity in the part read; CPU busy %1") : tr("no GPU activity in this trace; CPU busy %1"))
                        .arg(fmt(r.cpuBusyNs));
        m_figures->setText(text);
        return;
    }
    for (const auto& d : r.devices) {
        if (!d.hasActivity)
            continue;
        text += tr("GPU %1 utilization %2%, idle %3, ").arg(d.device).arg(100 * d.utilization, 0, 'f', 1).arg(fmt(d.idleNs));
        text += (d.kernels == 1 ? tr("%1 kernel") : tr("%1 kernels")).arg(count(d.kernels));
        if (d.memcpys)
            text += (d.memcpys == 1 ? tr(", %1 memcpy") : tr(", %1 memcpys")).arg(count(d.memcpys));
        if (d.memsets)
            text += (d.memsets == 1 ? tr(", %1 memset") : tr(", %1 memsets")).arg(count(d.memsets));
        text += QStringLiteral("; ");
    }
    text += tr("CPU busy %1, CPU+GPU overlap %2, GPU idle while CPU works %3; ")
                .arg(fmt(r.cpuBusyNs), fmt(r.overlapNs), fmt(r.gpuIdleWhileCpuBusyNs));
    // A view cut to the activity of a trace that is mostly empty (a JIT compile before the first op), at either
    // end: as overlap says it.
    if (const std::string unrecorded = report::mostlyUnrecordedText(*m_doc->trace, activity); (fromFirst || toLast) && !unrecorded.empty())
        text += QString::fromStdString(unrecorded).toHtmlEscaped() + QStringLiteral("; ");
    const QString launches = QString::fromStdString(report::launchCostText(r)).toHtmlEscaped();
    text += r.launchBound() ? QStringLiteral("<b style='color:#c00'>%1</b>").arg(launches) : launches;
    // Memory problems concern the whole trace, whatever the view: said once, in red, like a launch-bound run.
    if (const memory::SuspectedLeak* leak = m_doc->memory.worstLeak())
        text += QStringLiteral("; <b style='color:#c00'>%1</b>").arg(m_memory->leakText(*leak).toHtmlEscaped());
    if (!m_doc->memory.ooms.empty()) {
        const auto& largest = *std::max_element(m_doc->memory.ooms.begin(), m_doc->memory.ooms.end(),
                                                [](const auto& a, const auto& b) { return a.requestedBytes < b.requestedBytes; });
        text += QStringLiteral("; <b style='color:#c00'>%1</b>")
                    .arg((m_doc->memory.ooms.size() == 1
                              ? tr("an out-of-memory request of %1 on %2")
                              : tr("%1 out-of-memory requests, the largest %2 on %3").arg(m_doc->memory.ooms.size()))
                             .arg(QString::fromStdString(stats::formatBytes(largest.requestedBytes)),
                                  QString::fromStdString(m_doc->memory.devices[largest.device].name)));
    }
    m_figures->setText(text);
}

void MainWindow::onEventSelected(uint32_t event)
{
    m_details->showTraceEvent(event);
    // A click replaces a table row's highlight: nothing stays dimmed behind the new selection.
    m_timeline->highlightName(std::nullopt);
    if (!m_doc || event >= m_doc->trace->events.size()) {
        m_keyAverages->clearSelection();
        m_roofline->clearSelection();
        return;
    }
    const auto& e = m_doc->trace->events[event];
    std::string name(m_doc->trace->strings.view(e.name));
    m_roofline->showKernel(trace::isGpuSide(e.kind) ? name : std::string());
    if (name.starts_with("ProfilerStep#"))
        name = "ProfilerStep*";
    m_keyAverages->selectKey(name, trace::isGpuSide(e.kind) ? stats::DeviceType::CUDA : stats::DeviceType::CPU);
}

void MainWindow::onKeySelected(const QString& key, stats::DeviceType device)
{
    if (!m_doc)
        return;
    m_roofline->showKernel(device == stats::DeviceType::CUDA ? key.toStdString() : std::string());
    const trace::StringId id = m_doc->trace->strings.find(key.toStdString());
    if (id == trace::kNoIndex) {
        m_timeline->highlightName(std::nullopt);
        return;
    }
    m_timeline->highlightName(std::make_pair(id, device == stats::DeviceType::CPU));
}

// A finding's place: its range selected and in view (the figures and the table aggregate it, its findings
// stay), its event selected (Details, the table row and the roofline point follow), else the first event
// among its places (a tiny-kernels finding's first kernel).
void MainWindow::showFindingPlace(const findings::Finding& finding, int place)
{
    if (!m_doc || place < 0 || size_t(place) >= finding.where.size())
        return;
    const findings::Where& where = finding.where[size_t(place)];
    uint32_t event = where.event;
    for (size_t k = 0; place == 0 && event == trace::kNoIndex && k < finding.where.size(); ++k)
        event = finding.where[k].event;
    m_rangeFromFinding = true;
    m_timeline->setRange(where.end > where.start ? std::optional(std::make_pair(where.start, where.end)) : std::nullopt);
    m_rangeFromFinding = false;
    m_timeline->selectEvent(event < m_doc->trace->events.size() ? event : trace::kNoIndex, true);
    if (where.end > where.start) {
        const int64_t margin = std::max<int64_t>((where.end - where.start) / 10, 1000);
        m_timeline->zoomToRange(where.start - margin, where.end + margin);
    }
}

void MainWindow::search(bool forward)
{
    if (!m_doc || m_search->text().isEmpty())
        return;
    const trace::EventSearch matches(*m_doc->trace, m_search->text().toStdString());
    const uint32_t hit = matches.next(m_timeline->selectedEvent(), forward);
    if (hit == trace::kNoIndex) {
        statusBar()->showMessage(matches.empty() ? tr("No event matches '%1'").arg(m_search->text())
                                                 : tr("No more events matching '%1' (%L2 in all)")
                                                       .arg(m_search->text())
                                                       .arg(qulonglong(matches.positionOf(trace::kNoIndex).count)),
                                 4000);
        return;
    }
    m_timeline->selectEvent(hit, true);
    const trace::EventSearch::Position at = matches.positionOf(hit);
    statusBar()->showMessage(tr("Match %L1 of %L2 for '%3'").arg(qulonglong(at.index + 1)).arg(qulonglong(at.count)).arg(m_search->text()));
}

QString MainWindow::dialogFolder() const
{
    // The open trace's folder (a folder of ranks itself), else the last one opened's: where the files that go
    // with it are.
    const QString path = m_doc && !m_doc->fromBytes ? m_doc->path : QSettings().value(QStringLiteral("lastFile")).toString();
    if (path.isEmpty())
        return {};
    const QFileInfo info(path);
    return info.isDir() ? info.absoluteFilePath() : info.absolutePath();
}

void MainWindow::rememberRecent(const QString& givenPath)
{
    const QString path = QDir::cleanPath(QFileInfo(givenPath).absoluteFilePath()); // opens from any working directory
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    settings.setValue(QStringLiteral("lastFile"), path);
    rebuildRecentMenu();
}

void MainWindow::forgetRecent(const QString& givenPath)
{
    const QString path = QDir::cleanPath(QFileInfo(givenPath).absoluteFilePath()); // as rememberRecent keeps it
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    if (recent.removeAll(path) > 0)
        settings.setValue(QStringLiteral("recentFiles"), recent);
    if (settings.value(QStringLiteral("lastFile")).toString() == path)
        settings.setValue(QStringLiteral("lastFile"), recent.value(0));
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& path : QSettings().value(QStringLiteral("recentFiles")).toStringList())
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

QString MainWindow::shortcutsHtml()
{
    const QList<std::pair<QString, QString>> keys = {
        {tr("W / S, Ctrl+wheel or wheel"), tr("zoom in / out around the mouse or the centre")},
        {tr("A / D, drag"), tr("pan left / right")},
        {tr("F"), tr("fit the whole trace")},
        {tr("Z"), tr("zoom to the range, or to the selected event")},
        {tr("Ctrl+drag"), tr("zoom to a box")},
        {tr("Shift+drag"), tr("select a time range: the figures and the table aggregate it")},
        {tr("Esc"), tr("clear the range and the selected event")},
        {tr("Click"), tr("select an event: Details, the table row and the roofline follow")},
        {QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText), tr("to the search box")},
        {tr("Enter / Shift+Enter in Search"), tr("next / previous event matching the search")},
        {QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText), tr("open a trace")},
        {tr("Ctrl+P"), tr("new profiling session")},
    };
    QString html = tr("<p>The timeline keys work wherever no text field has focus.</p><table cellpadding='3'>");
    for (const auto& [key, what] : keys)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key.toHtmlEscaped(), what.toHtmlEscaped());
    return html + QStringLiteral("</table>");
}

QString MainWindow::aboutHtml()
{
    return tr("<h3>TileScope %1</h3><p>commit %2</p><p>A profiler and trace viewer for GPU programs written with TileLang "
              "and PyTorch: torch's own key averages, CPU/GPU overlap, the roofline with its evidence.</p>")
        .arg(QString::fromLatin1(tilescope::kVersion), QString::fromLatin1(tilescope::kCommit));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        openFile(urls.first().toLocalFile());
}
