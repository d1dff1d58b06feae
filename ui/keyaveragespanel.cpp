// SPDX-License-Identifier: MIT
#include "keyaveragespanel.h"

#include "analysis/steps.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"
#include "keyaveragesdiffmodel.h"
#include "keyaveragesmodel.h"
#include "namedelegate.h"
#include "report/diffreport.h"
#include "tracedocument.h"

#include <QApplication>

#include <algorithm>
#include <QCheckBox>
#include <QClipboard>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <utility>

using namespace tilescope;

KeyAveragesPanel::KeyAveragesPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new KeyAveragesModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_diffModel(new KeyAveragesDiffModel(this))
    , m_diffProxy(new QSortFilterProxyModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* controls = m_controls = new QHBoxLayout;
    m_title = new QLabel(this);
    // The compare mode's title is long: it wraps rather than widen the window past a laptop's screen.
    m_title->setWordWrap(true);
    m_filter = new QLineEdit(this);
    m_filter->setMinimumWidth(90);
    m_filter->setPlaceholderText(tr("Filter by name"));
    m_filter->setClearButtonEnabled(true);
    m_byShape = new QCheckBox(tr("By input shape"), this);
    m_byShape->setToolTip(tr("Group rows by input shapes as well as by name (tilescope-cli summary --group-by-input-shape)"));
    m_rowLimit = new QSpinBox(this);
    m_rowLimit->setRange(0, 1000000);
    m_rowLimit->setSpecialValueText(tr("all rows"));
    m_rowLimit->setPrefix(tr("limit "));
    auto* copy = new QPushButton(tr("Copy"), this);
    copy->setToolTip(tr("Copy the selected rows (or all shown rows) as CSV"));
    auto* exportButton = new QPushButton(tr("Export CSV…"), this);
    controls->addWidget(m_title);
    controls->addWidget(m_filter, 1);
    controls->addWidget(m_byShape);
    controls->addWidget(m_rowLimit);
    controls->addWidget(copy);
    controls->addWidget(exportButton);
    layout->addLayout(controls);
    m_rowsOnlyControls = {m_rowLimit};

    m_table = new QTableView(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(KeyAveragesModel::SortRole);
    m_proxy->setFilterKeyColumn(KeyAveragesModel::NameColumn);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setItemDelegateForColumn(KeyAveragesModel::NameColumn, new NameDelegate(m_table));
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // The device columns shown first (torch's table has them after the CPU ones): what a kernel author looks at
    // first, and the default sort column, stay in view in a narrow dock. Copy and export keep torch's order.
    for (const int column : {KeyAveragesModel::SelfDeviceColumn, KeyAveragesModel::SelfDevicePercentColumn,
                             KeyAveragesModel::DeviceTotalColumn, KeyAveragesModel::DeviceAvgColumn})
        m_table->horizontalHeader()->moveSection(m_table->horizontalHeader()->visualIndex(column),
                                                 KeyAveragesModel::SelfCpuPercentColumn + (column - KeyAveragesModel::SelfDeviceColumn));
    m_table->sortByColumn(KeyAveragesModel::SelfDeviceColumn, Qt::DescendingOrder);
    layout->addWidget(m_table);
    // Compare mode's table, in the diff's order (largest device-time change first) until a header is clicked.
    m_diffTable = new QTableView(this);
    m_diffProxy->setSourceModel(m_diffModel);
    m_diffProxy->setSortRole(KeyAveragesDiffModel::SortRole);
    m_diffProxy->setFilterKeyColumn(KeyAveragesDiffModel::NameColumn);
    m_diffProxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_diffTable->setModel(m_diffProxy);
    m_diffTable->setItemDelegateForColumn(KeyAveragesDiffModel::NameColumn, new NameDelegate(m_diffTable));
    m_diffTable->setSortingEnabled(true);
    m_diffTable->sortByColumn(-1, Qt::AscendingOrder);
    m_diffTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_diffTable->setWordWrap(false);
    m_diffTable->verticalHeader()->hide();
    m_diffTable->verticalHeader()->setDefaultSectionSize(20);
    m_diffTable->horizontalHeader()->setStretchLastSection(true);
    m_diffTable->hide();
    layout->addWidget(m_diffTable);
    connect(m_diffTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QModelIndexList rows = m_diffTable->selectionModel()->selectedRows();
        const stats::KeyAverageDiffRow* row = rows.isEmpty() ? nullptr : m_diffModel->row(m_diffProxy->mapToSource(rows.first()).row());
        if (row)
            emit keySelected(QString::fromStdString(row->key), row->deviceType);
        else
            emit selectionCleared();
    });

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterFixedString(text);
        m_diffProxy->setFilterFixedString(text);
        applyRowLimit();
        m_table->scrollToTop();
    });
    connect(m_byShape, &QCheckBox::toggled, this, [this] {
        m_table->setColumnHidden(KeyAveragesModel::ShapesColumn, !m_byShape->isChecked());
        m_fittedShapesWidth = -1; // fitted afresh
        if (m_after)
            showDiff();
        if (m_range)
            aggregate();
        else if (m_doc)
            showAverages(wholeTraceAverages(), false);
    });
    connect(m_rowLimit, &QSpinBox::valueChanged, this, &KeyAveragesPanel::applyRowLimit);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &KeyAveragesPanel::applyRowLimit);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &KeyAveragesPanel::applyRowLimit);
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [this](int column, Qt::SortOrder order) {
        if (m_sortingForUser) // a header click (or a caller's sortByColumn): kept across ranges and analyses
            m_userSort = std::pair{column, order};
        m_table->scrollToTop();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &KeyAveragesPanel::onSelectionChanged);
    connect(copy, &QPushButton::clicked, this, &KeyAveragesPanel::copyRows);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, m_after ? tr("Export the comparison") : tr("Export key averages"),
                                                          !m_after         ? QStringLiteral("key_averages.csv")
                                                              : m_diffStep ? QStringLiteral("key_averages_diff_step%1.csv").arg(*m_diffStep)
                                                                           : QStringLiteral("key_averages_diff.csv"),
                                                          tr("CSV (*.csv)"));
        if (!path.isEmpty())
            exportCsv(path);
    });
    m_table->setColumnHidden(KeyAveragesModel::ShapesColumn, true);
    // By input shape, the rows of one name differ only by their shapes: the shapes come right after the name, not
    // at the far end where torch's table has them (off the view, the rows read as repeats). CSV keeps torch's order.
    for (QTableView* table : {m_table, m_diffTable}) {
        QHeaderView* header = table->horizontalHeader();
        const int shapes = table == m_table ? int(KeyAveragesModel::ShapesColumn) : int(KeyAveragesDiffModel::ShapesColumn);
        header->moveSection(header->visualIndex(shapes), 1);
    }
    m_table->viewport()->installEventFilter(this);
}

void KeyAveragesPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    // The same trace comes again as its analyses land (the first frame's document, then each publish): the
    // filter, the sort the user chose, the range and the comparison stay. A new trace starts afresh.
    const bool sameTrace = document && m_doc && document->trace == m_doc->trace;
    m_doc = std::move(document);
    if (sameTrace) {
        if (m_after)
            showDiff();
        else if (!m_range) // a range's rows are of the same events: kept
            showAverages(wholeTraceAverages(), false);
        return;
    }
    setComparison(nullptr); // the comparison was with the trace this one replaces
    m_range.reset();
    m_aggregation.drop();
    m_pendingKey.reset();
    m_userSort.reset();
    {
        const QSignalBlocker block(m_filter); // showAverages() below resets the view once
        m_filter->clear();
        m_proxy->setFilterFixedString(QString());
    }
    showAverages(m_doc ? wholeTraceAverages() : nullptr, false);
}

void KeyAveragesPanel::setRange(std::optional<std::pair<int64_t, int64_t>> range)
{
    m_range = range;
    if (!m_doc)
        return;
    if (m_range) {
        aggregate();
        return;
    }
    m_aggregation.drop();
    m_pendingKey.reset();
    showAverages(wholeTraceAverages(), false);
}

void KeyAveragesPanel::aggregate()
{
    // Aggregating can take a while on a large trace: off the GUI thread, newest request wins. The rows
    // shown stay owned by the model until the result replaces them.
    stats::KeyAveragesOptions options = stats::KeyAveragesOptions::byInputShape(m_byShape->isChecked());
    options.window = m_range;
    if (!m_after) // compare mode keeps its title: the diff is of the whole traces
        m_title->setText(tr("aggregating the range…"));
    m_aggregation.start([this, doc = m_doc, options](const WorkerJob::Run& run) {
        auto result = std::make_shared<const stats::KeyAverages>(stats::computeKeyAverages(*doc->trace, options));
        run.finish([this, doc, result] {
            if (!m_doc || m_doc->trace != doc->trace) // a newer document of the same trace keeps the range
                return;
            showAverages(result, true);
            if (const auto pending = std::exchange(m_pendingKey, std::nullopt))
                selectKey(pending->first, pending->second);
            emit rangeAggregated();
        });
    });
}

std::shared_ptr<const stats::KeyAverages> KeyAveragesPanel::wholeTraceAverages() const
{
    return {m_doc, m_byShape->isChecked() ? &m_doc->averagesByShape : &m_doc->averages}; // shares the document's ownership
}

void KeyAveragesPanel::showAverages(std::shared_ptr<const stats::KeyAverages> averages, bool range)
{
    // The columns torch's table has for these rows (stats::torchTableColumnsOf), as summary's table: the others
    // would be all zeros, and the room is the counts'.
    const stats::TorchTableColumns columns = averages ? stats::torchTableColumnsOf(*averages) : stats::TorchTableColumns{};
    m_model->setAverages(std::move(averages));
    m_table->setColumnHidden(KeyAveragesModel::ShapesColumn, !m_byShape->isChecked());
    for (const int column : {KeyAveragesModel::CpuMemColumn, KeyAveragesModel::SelfCpuMemColumn})
        m_table->setColumnHidden(column, !columns.memory);
    for (const int column : {KeyAveragesModel::DeviceMemColumn, KeyAveragesModel::SelfDeviceMemColumn})
        m_table->setColumnHidden(column, !columns.deviceMemory);
    m_table->setColumnHidden(KeyAveragesModel::FlopsColumn, columns.flops.header.empty());
    for (const int column : {KeyAveragesModel::SelfDeviceColumn, KeyAveragesModel::SelfDevicePercentColumn,
                             KeyAveragesModel::DeviceTotalColumn, KeyAveragesModel::DeviceAvgColumn})
        m_table->setColumnHidden(column, !columns.deviceTime); // a CPU-only trace: torch's table has no CUDA columns
    // The user's sort where its column shows, else torch's: by Self CUDA, or by Self CPU without device time.
    const auto [column, order] = m_userSort && !m_table->isColumnHidden(m_userSort->first)
        ? *m_userSort
        : std::pair{int(columns.deviceTime ? KeyAveragesModel::SelfDeviceColumn : KeyAveragesModel::SelfCpuColumn), Qt::DescendingOrder};
    if (const QHeaderView* header = m_table->horizontalHeader();
        header->sortIndicatorSection() != column || header->sortIndicatorOrder() != order) {
        const QScopedValueRollback ours(m_sortingForUser, false);
        m_table->sortByColumn(column, order);
    }
    fitColumns();
    m_table->scrollToTop();
    if (!m_after)
        showScope(range);
}

// What the rows are of. A range's rows are the events that start in it, each with its whole duration (an event is
// not cut); the figures line clips busy time to the range, so a kernel running past its end counts more here.
void KeyAveragesPanel::showScope(bool range)
{
    m_controls->setStretchFactor(m_title, 0); // a short title: the room is the filter's
    m_title->setText(!m_doc ? QString() : range ? tr("started in the range") : tr("whole trace"));
    m_title->setToolTip(range ? tr("The ops and GPU activities that start in the selected range, each with its whole duration "
                                   "(the figures line above the timeline clips busy time to the range)")
                              : QString());
}

// The input shapes' column beside the name: at most 240 px, and a fifth of a narrow table, so that the sort
// column stays in view.
int KeyAveragesPanel::shapesWidthCap(int viewport) { return std::clamp(viewport / 5, 80, 240); }

void KeyAveragesPanel::fitColumns()
{
    // Figures as wide as their text; names get what is left up to the sort column, so the column the rows
    // are sorted by is in view without scrolling (kernel signatures are long: the delegate shortens the
    // rest), but never under kMinNameWidth nor over half the table.
    constexpr int kMinNameWidth = 160;
    const QHeaderView* header = m_table->horizontalHeader();
    for (int column = KeyAveragesModel::DeviceColumn; column < KeyAveragesModel::NUM_COLUMNS; ++column)
        if (!m_table->isColumnHidden(column) && column != KeyAveragesModel::ShapesColumn)
            m_table->resizeColumnToContents(column);
    const int viewport = m_table->viewport()->width();
    // Beside the name: long shape lists are cut (tooltip whole), unless the user has set the width by hand.
    if (!m_table->isColumnHidden(KeyAveragesModel::ShapesColumn)
        && (m_fittedShapesWidth < 0 || m_table->columnWidth(KeyAveragesModel::ShapesColumn) == m_fittedShapesWidth)) {
        m_table->resizeColumnToContents(KeyAveragesModel::ShapesColumn);
        m_table->setColumnWidth(KeyAveragesModel::ShapesColumn,
                                std::min(m_table->columnWidth(KeyAveragesModel::ShapesColumn), shapesWidthCap(viewport)));
        m_fittedShapesWidth = m_table->columnWidth(KeyAveragesModel::ShapesColumn);
    }
    const int sortColumn = header->sortIndicatorSection();
    int untilSort = 0; // the columns after the name, up to and with the sort column, in the order shown
    if (sortColumn > KeyAveragesModel::NameColumn && !m_table->isColumnHidden(sortColumn))
        for (int visual = 0; visual <= header->visualIndex(sortColumn); ++visual)
            if (const int column = header->logicalIndex(visual); column != KeyAveragesModel::NameColumn && !m_table->isColumnHidden(column))
                untilSort += header->sectionSize(column);
    m_table->resizeColumnToContents(KeyAveragesModel::NameColumn);
    const int room = std::clamp(viewport - untilSort, kMinNameWidth, std::max(kMinNameWidth, viewport / 2));
    m_table->setColumnWidth(KeyAveragesModel::NameColumn, std::min(m_table->columnWidth(KeyAveragesModel::NameColumn), room));
    m_fittedNameWidth = m_table->columnWidth(KeyAveragesModel::NameColumn);
}

bool KeyAveragesPanel::eventFilter(QObject* watched, QEvent* event)
{
    // Fitted again as the table gets its width (a dock laid out or shown after the rows came, or resized),
    // unless the user has set the names' width by hand.
    if (watched == m_table->viewport() && event->type() == QEvent::Resize && m_model->averages()
        && m_table->columnWidth(KeyAveragesModel::NameColumn) == m_fittedNameWidth)
        fitColumns();
    return QWidget::eventFilter(watched, event);
}

void KeyAveragesPanel::setComparison(std::shared_ptr<const TraceDocument> after)
{
    m_after = m_doc ? std::move(after) : nullptr;
    m_table->setVisible(!m_after);
    m_diffTable->setVisible(m_after != nullptr);
    for (QWidget* control : m_rowsOnlyControls)
        control->setEnabled(!m_after);
    if (m_after) {
        showDiff();
        return;
    }
    m_diffJob.drop();
    m_diffStep.reset();
    m_diffModel->setDiff(nullptr);
    showScope(m_range.has_value());
}

void KeyAveragesPanel::setComparisonStep(std::optional<int64_t> number)
{
    m_diffStep = number;
    if (m_after)
        showDiff();
}

// The diff of the two whole traces, or of one step of each, grouped as the checkbox says (`tilescope-cli
// diff [--by-shape] [--step N]`).
void KeyAveragesPanel::showDiff()
{
    const bool byShape = m_byShape->isChecked();
    auto present = [this, byShape](std::shared_ptr<const stats::KeyAveragesDiff> diff, const QString& title) {
        m_diffModel->setDiff(std::move(diff));
        m_diffTable->setColumnHidden(KeyAveragesDiffModel::ShapesColumn, !byShape);
        m_diffTable->resizeColumnsToContents();
        if (byShape)
            m_diffTable->setColumnWidth(
                KeyAveragesDiffModel::ShapesColumn,
                std::min(m_diffTable->columnWidth(KeyAveragesDiffModel::ShapesColumn), shapesWidthCap(m_diffTable->viewport()->width())));
        m_diffTable->setColumnWidth(
            KeyAveragesDiffModel::NameColumn,
            std::min(m_diffTable->columnWidth(KeyAveragesDiffModel::NameColumn), std::max(360, m_diffTable->viewport()->width() / 3)));
        m_diffTable->scrollToTop();
        // The whole first (summary's footers of each side), as the CLI's diff: self CUDA time, or self CPU
        // time where neither side ran on the GPU.
        const stats::KeyAveragesDiff& d = *m_diffModel->diff();
        const QString total = d.before.useDevice || d.after.useDevice
            ? tr("self CUDA %1").arg(QString::fromStdString(report::totalChange(d.before.selfDeviceTimeTotal, d.after.selfDeviceTimeTotal)))
            : tr("self CPU %1").arg(QString::fromStdString(report::totalChange(d.before.selfCpuTimeTotal, d.after.selfCpuTimeTotal)));
        // Another GPU or run size is said first: rows it adds and removes are not the code's.
        QString notes;
        for (const std::string& note : report::diffSetupNotes(*m_doc->trace, *m_after->trace))
            notes += QStringLiteral("Note: %1.\n").arg(QString::fromStdString(note));
        m_title->setText((notes.isEmpty() ? QString() : tr("⚠ setups differ (hover); ")) + title + QStringLiteral(": ") + total
                         + tr("; delta green: faster, red: slower"));
        // Two thirds of the row's room, the filter the rest: in a third (its own width) the title wrapped to four
        // lines at 1366x768 and left the table two rows.
        m_controls->setStretchFactor(m_title, 2);
        m_title->setToolTip(notes + QString::fromStdString(report::diffTotalsText(d)).trimmed());
        emit diffShown();
    };
    if (!m_diffStep) {
        m_diffJob.drop();
        present(std::make_shared<const stats::KeyAveragesDiff>(stats::diffKeyAverages(
                    byShape ? m_doc->averagesByShape : m_doc->averages, byShape ? m_after->averagesByShape : m_after->averages)),
                tr("before → after (whole traces)"));
        return;
    }
    // A step's rows are aggregated from the events (a large trace takes a while): off the GUI thread.
    m_title->setText(tr("aggregating step %1 of both traces…").arg(*m_diffStep));
    m_title->setToolTip(QString()); // the totals of the diff shown until now
    m_diffModel->setDiff(nullptr);  // and its rows: no copy or export of them under this step's title
    m_diffJob.start([this, before = m_doc, after = m_after, step = *m_diffStep, byShape, present](const WorkerJob::Run& run) {
        std::shared_ptr<const stats::KeyAveragesDiff> diff;
        QString problem;
        try {
            auto averagesOf = [&](const TraceDocument& doc) {
                const std::optional<analysis::Interval> window = analysis::stepWindow(*doc.trace, step, step);
                stats::KeyAveragesOptions options = stats::KeyAveragesOptions::byInputShape(byShape);
                if (!window)
                    throw analysis::StepSelectionError("the trace has no steps");
                options.window = std::pair{window->start, window->end};
                return stats::computeKeyAverages(*doc.trace, options);
            };
            diff = std::make_shared<const stats::KeyAveragesDiff>(stats::diffKeyAverages(averagesOf(*before), averagesOf(*after)));
        } catch (const analysis::StepSelectionError& e) {
            problem = QString::fromUtf8(e.what());
        }
        run.finish([this, before, after, step, diff, problem, present] {
            if (m_doc != before || m_after != after)
                return;
            if (!diff) {
                m_title->setText(tr("step %1: %2").arg(step).arg(problem));
                m_title->setToolTip(QString());
                return;
            }
            present(diff, tr("before → after (step %1 of each)").arg(step));
        });
    });
}

void KeyAveragesPanel::applyRowLimit()
{
    const int limit = m_rowLimit->value();
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        m_table->setRowHidden(r, limit > 0 && r >= limit);
}

void KeyAveragesPanel::selectKey(std::string_view key, stats::DeviceType device)
{
    if (m_aggregation.isRunning())
        m_pendingKey = std::make_pair(std::string(key), device);
    const int row = m_model->findRow(key, device);
    m_syncing = true;
    if (row < 0) {
        m_table->clearSelection();
    } else {
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        m_table->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(index);
    }
    m_syncing = false;
}

void KeyAveragesPanel::clearSelection()
{
    m_pendingKey.reset();
    m_syncing = true;
    m_table->clearSelection();
    m_syncing = false;
}

void KeyAveragesPanel::onSelectionChanged()
{
    if (m_syncing)
        return;
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const stats::KeyAverage* row = rows.isEmpty() ? nullptr : m_model->row(m_proxy->mapToSource(rows.first()).row());
    if (!row) {
        emit selectionCleared();
        return;
    }
    emit keySelected(QString::fromStdString(row->key), row->deviceType);
}

// The shown table's rows (the diff's in compare mode), in its order, as its model's rows.
QList<int> KeyAveragesPanel::visibleSourceRows() const
{
    const QTableView* table = shownTable();
    const QSortFilterProxyModel* proxy = shownProxy();
    QList<int> rows;
    for (int r = 0; r < proxy->rowCount(); ++r)
        if (!table->isRowHidden(r))
            rows << proxy->mapToSource(proxy->index(r, 0)).row();
    return rows;
}

QString KeyAveragesPanel::csvOf(const QList<int>& rows) const { return m_after ? m_diffModel->toCsv(rows) : m_model->toCsv(rows); }

void KeyAveragesPanel::copyRows() const
{
    QList<int> rows;
    for (const QModelIndex& index : shownTable()->selectionModel()->selectedRows())
        rows << shownProxy()->mapToSource(index).row();
    if (rows.isEmpty())
        rows = visibleSourceRows();
    QApplication::clipboard()->setText(csvOf(rows));
}

bool KeyAveragesPanel::exportCsv(const QString& path)
{
    try {
        io::writeTextFileAtomically(path.toStdString(), csvOf(visibleSourceRows()).toStdString(),
                                    m_after ? "the key averages' diff" : "the key averages");
    } catch (const io::TraceFileError& e) {
        QMessageBox::critical(this, tr("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
    return true;
}
