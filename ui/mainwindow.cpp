// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "analysis/overlap.h"
#include "detailspanel.h"
#include "keyaveragesmodel.h"
#include "profiledialog.h"
#include "io/tracefileerror.h"
#include "session/sessionmanifest.h"
#include "rooflinepanel.h"
#include "stats/torchtable.h"
#include "timelineview.h"
#include "traceloadjob.h"
#include "tracedocument.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QThread>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

using namespace tilescope;

namespace {
const char* kSample = ":/samples/train_scheduled.pt.trace.json.gz";
QString fmt(int64_t ns) { return QString::fromStdString(stats::formatTorchTime(double(ns) / 1000.0)); }
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_job(new TraceLoadJob(this))
    , m_timeline(new TimelineView(this))
    , m_details(new DetailsPanel(this))
    , m_roofline(new RooflinePanel(this))
    , m_model(new KeyAveragesModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_figuresTimer(new QTimer(this))
{
    setWindowTitle(tr("TileScope"));
    setAcceptDrops(true);
    resize(1500, 950);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    m_figures = new QLabel(central);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures->setWordWrap(true);
    m_figures->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_figures);
    layout->addWidget(m_timeline, 1);
    setCentralWidget(central);

    // Key averages dock.
    auto* tableDock = new QDockWidget(tr("Key averages"), this);
    tableDock->setObjectName(QStringLiteral("keyAverages"));
    auto* tableBox = new QWidget(tableDock);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(4, 4, 4, 4);
    auto* controls = new QHBoxLayout;
    m_tableTitle = new QLabel(tableBox);
    m_filter = new QLineEdit(tableBox);
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    m_byShape = new QCheckBox(tr("Group by input shape"), tableBox);
    m_rowLimit = new QSpinBox(tableBox);
    m_rowLimit->setRange(0, 1000000);
    m_rowLimit->setSpecialValueText(tr("all rows"));
    m_rowLimit->setPrefix(tr("limit "));
    auto* copy = new QPushButton(tr("Copy"), tableBox);
    auto* exportButton = new QPushButton(tr("Export CSV…"), tableBox);
    controls->addWidget(m_tableTitle);
    controls->addWidget(m_filter, 1);
    controls->addWidget(m_byShape);
    controls->addWidget(m_rowLimit);
    controls->addWidget(copy);
    controls->addWidget(exportButton);
    tableLayout->addLayout(controls);
    m_table = new QTableView(tableBox);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KeyAveragesModel::SortRole);
    m_proxy->setFilterKeyColumn(KeyAveragesModel::NameColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->sortByColumn(KeyAveragesModel::SelfDeviceColumn, Qt::DescendingOrder);
    tableLayout->addWidget(m_table);
    tableDock->setWidget(tableBox);
    addDockWidget(Qt::BottomDockWidgetArea, tableDock);

    auto* detailsDock = new QDockWidget(tr("Details"), this);
    detailsDock->setObjectName(QStringLiteral("details"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);
    auto* rooflineDock = new QDockWidget(tr("Roofline"), this);
    rooflineDock->setObjectName(QStringLiteral("roofline"));
    rooflineDock->setWidget(m_roofline);
    addDockWidget(Qt::RightDockWidgetArea, rooflineDock);
    connect(m_roofline, &RooflinePanel::kernelClicked, this, [this](const QString& name) {
        if (!m_doc)
            return;
        const trace::StringId id = m_doc->trace->strings.find(name.toStdString());
        for (uint32_t i = 0; i < m_doc->trace->events.size(); ++i)
            if (m_doc->trace->events[i].name == id && trace::isGpuSide(m_doc->trace->events[i].kind)) {
                m_timeline->selectEvent(i, true);
                return;
            }
    });
    m_details->showTraceEvent(trace::kNoIndex);

    // Menus and toolbar.
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open trace"), QString(), tr("Chrome traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Reopen &Last"), this, [this] { reopenLast(); });
    file->addAction(tr("Open Bundled &Sample"), this, [this] { openBundledSample(); });
    file->addAction(tr("Open Session &Folder…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a session folder (holds tilescope-session.json)"));
        if (!dir.isEmpty())
            openFile(dir);
    });
    file->addSeparator();
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
    view->addAction(tableDock->toggleViewAction());
    view->addAction(detailsDock->toggleViewAction());
    view->addAction(rooflineDock->toggleViewAction());
    rebuildRecentMenu();

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("main"));
    bar->addAction(tr("Open"), this, [file] { file->actions().first()->trigger(); });
    bar->addAction(tr("Fit"), this, [this] { m_timeline->fitAll(); });
    m_search = new QLineEdit(bar);
    m_search->setPlaceholderText(tr("Search events (Enter: next, Shift+Enter: previous)"));
    m_search->setMaximumWidth(360);
    bar->addWidget(m_search);
    bar->addAction(tr("Previous"), this, [this] { search(false); });
    bar->addAction(tr("Next"), this, [this] { search(true); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] { search(!(QApplication::keyboardModifiers() & Qt::ShiftModifier)); });

    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(300);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, m_job, &TraceLoadJob::cancel);

    connect(m_job, &TraceLoadJob::progress, this, [this](qint64 read, qint64 total, qint64 events) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(total > 0 ? int(1000 * read / total) : 0);
        m_progress->setFormat(tr("%1 / %2 MB, %3 events").arg(read / 1e6, 0, 'f', 1).arg(total / 1e6, 0, 'f', 1).arg(events));
    });
    connect(m_job, &TraceLoadJob::finished, this, [this](std::shared_ptr<const TraceDocument> doc) {
        m_progress->hide();
        m_cancel->hide();
        statusBar()->showMessage(tr("Loaded %1: %2 events").arg(doc->path).arg(doc->trace->events.size()), 8000);
        setDocument(std::move(doc));
    });
    connect(m_job, &TraceLoadJob::failed, this, [this](const QString& path, const QString& message) {
        m_progress->hide();
        m_cancel->hide();
        if (!m_screenshotPath.isEmpty()) {
            qCritical("tilescope: %s", qPrintable(message));
            QApplication::exit(2);
            return;
        }
        QMessageBox::critical(this, tr("Cannot open trace"), tr("<b>%1</b><br><br>%2").arg(path.toHtmlEscaped(), message.toHtmlEscaped()));
    });
    connect(m_job, &TraceLoadJob::cancelled, this, [this] {
        m_progress->hide();
        m_cancel->hide();
        statusBar()->showMessage(tr("Loading cancelled"), 5000);
    });

    connect(m_timeline, &TimelineView::eventSelected, this, &MainWindow::onEventSelected);
    connect(m_details, &DetailsPanel::jumpTo, this, [this](uint32_t e) { m_timeline->selectEvent(e, true); });
    connect(m_timeline, &TimelineView::viewChanged, this, [this] { m_figuresTimer->start(); });
    connect(m_timeline, &TimelineView::rangeSelected, this, [this](std::optional<std::pair<int64_t, int64_t>> range) {
        if (!m_doc)
            return;
        m_rangeAverages.reset();
        const quint64 generation = ++m_rangeGeneration;
        updateFigures();
        if (!range) {
            updateTable();
            return;
        }
        // Aggregating can take a while on a large trace: off the GUI thread, newest request wins.
        stats::KeyAveragesOptions options = stats::KeyAveragesOptions::byInputShape(m_byShape->isChecked());
        options.window = range;
        m_tableTitle->setText(tr("aggregating the range…"));
        QPointer<MainWindow> self(this);
        std::shared_ptr<const TraceDocument> doc = m_doc;
        QThread* worker = QThread::create([self, doc, options, generation] {
            auto result = std::make_shared<stats::KeyAverages>(stats::computeKeyAverages(*doc->trace, options));
            QMetaObject::invokeMethod(qApp, [self, doc, result, generation] {
                if (!self || self->m_rangeGeneration != generation || self->m_doc != doc)
                    return;
                self->m_rangeAverages = std::make_unique<stats::KeyAverages>(std::move(*result));
                self->updateTable();
                emit self->rangeAggregated();
            }, Qt::QueuedConnection);
        });
        connect(worker, &QThread::finished, worker, &QObject::deleteLater);
        worker->start();
    });
    m_figuresTimer->setSingleShot(true);
    m_figuresTimer->setInterval(80);
    connect(m_figuresTimer, &QTimer::timeout, this, &MainWindow::updateFigures);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_byShape, &QCheckBox::toggled, this, [this] {
        if (m_timeline->selectedRange())
            emit m_timeline->rangeSelected(m_timeline->selectedRange());
        else
            updateTable();
    });
    auto applyLimit = [this] {
        const int limit = m_rowLimit->value();
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            m_table->setRowHidden(r, limit > 0 && r >= limit);
    };
    connect(m_rowLimit, &QSpinBox::valueChanged, this, applyLimit);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, applyLimit);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, applyLimit);
    connect(m_filter, &QLineEdit::textChanged, this, applyLimit);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::onTableSelection);
    connect(copy, &QPushButton::clicked, this, &MainWindow::copyRows);
    connect(exportButton, &QPushButton::clicked, this, &MainWindow::exportCsv);
}

MainWindow::~MainWindow() = default;

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

void MainWindow::openFile(const QString& givenPath)
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
    m_job->start(path);
    if (path != QLatin1String(kSample))
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

void MainWindow::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_rangeAverages.reset();
    ++m_rangeGeneration;
    setWindowTitle(tr("TileScope - %1").arg(m_doc->path));
    m_details->setDocument(m_doc);
    m_roofline->setDocument(m_doc);
    m_timeline->setDocument(m_doc);
    updateTable();
    updateFigures();
    m_details->showTraceEvent(trace::kNoIndex);
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

void MainWindow::updateTable()
{
    const stats::KeyAverages* averages = nullptr;
    if (m_rangeAverages)
        averages = m_rangeAverages.get();
    else if (m_doc)
        averages = m_byShape->isChecked() ? &m_doc->averagesByShape : &m_doc->averages;
    m_model->setAverages(averages);
    m_table->setColumnHidden(KeyAveragesModel::ShapesColumn, !m_byShape->isChecked());
    m_table->resizeColumnToContents(KeyAveragesModel::NameColumn);
    m_table->setColumnWidth(KeyAveragesModel::NameColumn, std::min(m_table->columnWidth(KeyAveragesModel::NameColumn), 420));
    m_tableTitle->setText(m_rangeAverages ? tr("selected range") : tr("whole trace"));
}

QString MainWindow::figuresText() const { return m_figures->text(); }

void MainWindow::updateFigures()
{
    if (!m_doc)
        return;
    const auto range = m_timeline->selectedRange();
    const analysis::Interval window = range ? analysis::Interval{range->first, range->second}
                                            : analysis::Interval{m_timeline->viewStart(), m_timeline->viewEnd()};
    const auto r = m_doc->overlapIndex->figures(window);
    QString text = range ? tr("Range %1: ").arg(fmt(window.end - window.start)) : tr("View %1: ").arg(fmt(window.end - window.start));
    for (const auto& d : r.devices)
        text += tr("GPU %1 utilization %2%, idle %3, %4 kernels; ").arg(d.device).arg(100 * d.utilization, 0, 'f', 1).arg(fmt(d.idleNs)).arg(d.kernels);
    text += tr("CPU busy %1, CPU+GPU overlap %2, GPU idle while CPU works %3; launches %4 (CPU %5 vs kernels %6)")
                .arg(fmt(r.cpuBusyNs), fmt(r.overlapNs), fmt(r.gpuIdleWhileCpuBusyNs))
                .arg(r.launches.count)
                .arg(fmt(r.launches.cpuNs), fmt(r.launches.kernelNs));
    if (r.launches.launchBound())
        text += tr(" - <b style='color:#c00'>launch-bound: launches cost about as much CPU time as their kernels run</b>");
    m_figures->setText(text);
}

void MainWindow::onEventSelected(uint32_t event)
{
    m_details->showTraceEvent(event);
    if (!m_doc || event >= m_doc->trace->events.size() || m_syncing)
        return;
    const auto& e = m_doc->trace->events[event];
    if (trace::isGpuSide(e.kind))
        m_roofline->showKernel(std::string(m_doc->trace->strings.view(e.name)));
    std::string name(m_doc->trace->strings.view(e.name));
    if (name.starts_with("ProfilerStep#"))
        name = "ProfilerStep*";
    const int row = m_model->findRow(name, trace::isGpuSide(e.kind) ? stats::DeviceType::CUDA : stats::DeviceType::CPU);
    if (row < 0)
        return;
    m_syncing = true;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_table->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
    m_syncing = false;
}

void MainWindow::onTableSelection()
{
    if (!m_doc || m_syncing)
        return;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        m_timeline->highlightName(std::nullopt);
        return;
    }
    const stats::KeyAverage* row = m_model->row(m_proxy->mapToSource(rows.first()).row());
    if (row->deviceType == stats::DeviceType::CUDA)
        m_roofline->showKernel(row->key);
    const trace::StringId id = m_doc->trace->strings.find(row->key);
    if (id == UINT32_MAX) {
        m_timeline->highlightName(std::nullopt);
        return;
    }
    m_timeline->highlightName(std::make_pair(id, row->deviceType == stats::DeviceType::CPU));
}

void MainWindow::search(bool forward)
{
    if (!m_doc || m_search->text().isEmpty())
        return;
    const trace::Trace& t = *m_doc->trace;
    const std::string needle = m_search->text().toLower().toStdString();
    const uint32_t current = m_timeline->selectedEvent();
    const int64_t from = current < t.events.size() ? t.events[current].start : (forward ? INT64_MIN : INT64_MAX);
    uint32_t best = trace::kNoIndex;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const auto& e = t.events[i];
        if (i == current || (forward ? e.start < from : e.start > from) || (forward && e.start == from && i < current)
            || (!forward && e.start == from && i > current))
            continue;
        if (best != trace::kNoIndex && (forward ? e.start >= t.events[best].start : e.start <= t.events[best].start))
            continue;
        std::string name(t.strings.view(e.name));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (name.find(needle) != std::string::npos)
            best = i;
    }
    if (best == trace::kNoIndex) {
        statusBar()->showMessage(tr("No more events matching '%1'").arg(m_search->text()), 4000);
        return;
    }
    m_timeline->selectEvent(best, true);
}

void MainWindow::rememberRecent(const QString& path)
{
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

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& path : QSettings().value(QStringLiteral("recentFiles")).toStringList())
        m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::copyRows()
{
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << m_proxy->mapToSource(index).row();
    if (rows.isEmpty())
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            rows << m_proxy->mapToSource(m_proxy->index(r, 0)).row();
    QApplication::clipboard()->setText(m_model->toCsv(rows));
}

void MainWindow::exportCsv()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export key averages"), QStringLiteral("key_averages.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QList<int> rows;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows << m_proxy->mapToSource(m_proxy->index(r, 0)).row();
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        QMessageBox::critical(this, tr("Export failed"), tr("Cannot write %1: %2").arg(path, out.errorString()));
        return;
    }
    out.write(m_model->toCsv(rows).toUtf8());
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
