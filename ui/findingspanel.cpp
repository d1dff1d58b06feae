// SPDX-License-Identifier: MIT
#include "findingspanel.h"

#include "analysis/overlap.h"
#include "findings/diagnose.h"
#include "findingsmodel.h"
#include "rowfitsplitter.h"
#include "stats/keyaverages.h"
#include "stats/timetext.h"
#include "tracedocument.h"

#include <QApplication>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

using namespace tilescope;

namespace {

QString duration(int64_t ns) { return QString::fromStdString(stats::formatDuration(ns)); }

// The strength as a coloured pill with its name, so a strong finding stands out down the column.
class StrengthBadgeDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem background = option;
        initStyleOption(&background, index);
        background.text.clear();
        background.icon = QIcon();
        background.features &= ~QStyleOptionViewItem::HasDecoration;
        QStyle* style = option.widget ? option.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &background, painter, option.widget);

        const QColor color = index.data(Qt::DecorationRole).value<QColor>();
        const QString text = index.data(Qt::DisplayRole).toString();
        QFont font = option.font;
        font.setBold(true);
        const QFontMetrics metrics(font);
        const int width = std::min(option.rect.width() - 6, metrics.horizontalAdvance(text) + 14);
        const int height = std::min(option.rect.height() - 4, metrics.height() + 2);
        const QRect pill(option.rect.left() + 3, option.rect.center().y() - height / 2, width, height);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(Qt::NoPen);
        painter->setBrush(color);
        painter->drawRoundedRect(pill, height / 2.0, height / 2.0);
        painter->setFont(font);
        painter->setPen(Qt::white);
        painter->drawText(pill, Qt::AlignCenter, text);
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QFont font = option.font;
        font.setBold(true);
        const QFontMetrics metrics(font);
        return {metrics.horizontalAdvance(index.data(Qt::DisplayRole).toString()) + 20, metrics.height() + 6};
    }
};

} // namespace

FindingsPanel::FindingsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new FindingsModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_header = new QLabel(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);

    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setItemDelegateForColumn(FindingsModel::StrengthColumn, new StrengthBadgeDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    // The title is what a user reads: it comes after the strength and takes the width; the id goes last and,
    // where the dock is too narrow for both (the right column at 1366x768), is hidden (the evidence below
    // names it).
    QHeaderView* header = m_table->horizontalHeader();
    header->moveSection(header->visualIndex(FindingsModel::TitleColumn), 1);
    header->setStretchLastSection(false);
    header->setSectionResizeMode(FindingsModel::TitleColumn, QHeaderView::Stretch);
    m_table->setColumnWidth(FindingsModel::StrengthColumn, 96);
    m_table->setColumnWidth(FindingsModel::IdColumn, idColumnWidth());
    m_table->viewport()->installEventFilter(this); // resized after the table has set its new width
    m_details = new QTextBrowser(this);
    m_details->setOpenLinks(false);
    m_details->setLineWrapMode(QTextEdit::WidgetWidth);
    // Small minimums: the dock shares the right column with Details and the roofline, and the window must
    // fit a 1080p screen with every dock shown (tst_mainwindow).
    m_table->setMinimumHeight(44);
    m_details->setMinimumHeight(72);                           // a finding's title and the first line of its evidence
    m_split = new RowFitSplitter(m_table, m_details, 3, this); // the table as tall as its findings, the evidence the rest
    layout->addWidget(m_split, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        showDetails();
        if (const findings::Finding* f = selectedFinding())
            emit findingSelected(*f, 0);
    });
    connect(m_details, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const findings::Finding* f = selectedFinding();
        bool ok = false;
        const int place = url.path().toInt(&ok);
        if (f && url.scheme() == QLatin1String("place") && ok && place >= 0 && size_t(place) < f->where.size())
            emit findingSelected(*f, place);
    });
    show(nullptr, std::nullopt);
}

int FindingsPanel::idColumnWidth() const { return m_table->fontMetrics().horizontalAdvance(QStringLiteral("warmup-in-window")) + 16; }

bool FindingsPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) {
        const int titleRoom = m_table->fontMetrics().horizontalAdvance(QStringLiteral("The GPU is idle for most of"));
        const int both = m_table->columnWidth(FindingsModel::StrengthColumn) + idColumnWidth()
            + titleRoom; // the id's width even when hidden
        m_table->setColumnHidden(FindingsModel::IdColumn, m_table->viewport()->width() < both);
    }
    return QWidget::eventFilter(watched, event);
}

std::vector<findings::Finding> FindingsPanel::diagnoseRange(const TraceDocument& doc, analysis::Interval window,
                                                            const roofline::ClassifyReport* classification)
{
    stats::KeyAveragesOptions options;
    options.window = std::make_pair(window.start, window.end);
    const stats::KeyAverages averages = stats::computeKeyAverages(*doc.trace, options);
    const analysis::OverlapReport overlap = analysis::computeOverlap(*doc.trace, window);
    findings::DiagnoseInputs inputs;
    inputs.averages = &averages;
    inputs.overlap = &overlap;
    inputs.memory = &doc.memory;
    inputs.classification = classification ? classification : &doc.classification;
    inputs.window = window;
    return findings::diagnose(*doc.trace, inputs);
}

void FindingsPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_classification.reset();
    m_job.drop();
    show(m_doc ? std::shared_ptr<const std::vector<findings::Finding>>(m_doc, &m_doc->findings) : nullptr, std::nullopt);
}

void FindingsPanel::setRange(std::optional<std::pair<int64_t, int64_t>> range)
{
    if (!m_doc)
        return;
    if (range && range->second <= range->first)
        range.reset();
    if (range == m_shownRange && !m_job.isRunning())
        return; // shown already: the selected finding stays selected
    if (!range) {
        m_job.drop();
        if (m_classification)
            computeWholeTrace();
        else
            show(std::shared_ptr<const std::vector<findings::Finding>>(m_doc, &m_doc->findings), std::nullopt);
        return;
    }
    m_header->setText(tr("Computing the findings for %1 selected…").arg(duration(range->second - range->first)));
    // The worker gets the document (shared, read-only) and the range by value; its result lands on the
    // GUI thread only while it is still the newest request for this document.
    m_job.start([this, doc = m_doc, classification = m_classification, window = *range](const WorkerJob::Run& run) {
        auto result = std::make_shared<const std::vector<findings::Finding>>(
            diagnoseRange(*doc, {window.first, window.second}, classification.get()));
        run.finish([this, doc, result, window] {
            if (m_doc == doc)
                show(result, window);
        });
    });
}

void FindingsPanel::setClassification(const roofline::ClassifyReport& report)
{
    if (!m_doc)
        return;
    m_classification = std::make_shared<const roofline::ClassifyReport>(report);
    if (m_shownRange) {
        const auto range = m_shownRange;
        m_shownRange.reset(); // computed again, not "shown already"
        setRange(range);
    } else {
        computeWholeTrace();
    }
}

void FindingsPanel::computeWholeTrace()
{
    m_header->setText(tr("Computing the findings again with the roofline's classification…"));
    // As the document's own (TraceDocument's analyses), with the roofline dock's classification; the worker owns
    // shared, read-only copies of both.
    m_job.start([this, doc = m_doc, classification = m_classification](const WorkerJob::Run& run) {
        findings::DiagnoseInputs inputs;
        inputs.averages = &doc->averages;
        inputs.overlap = &doc->overlap;
        inputs.memory = &doc->memory;
        inputs.classification = classification.get();
        auto result = std::make_shared<const std::vector<findings::Finding>>(findings::diagnose(*doc->trace, inputs));
        run.finish([this, doc, result] {
            if (m_doc == doc)
                show(result, std::nullopt);
        });
    });
}

void FindingsPanel::show(std::shared_ptr<const std::vector<findings::Finding>> list, std::optional<std::pair<int64_t, int64_t>> range)
{
    m_shownRange = range;
    m_model->setFindings(std::move(list));
    m_split->fitToRows();
    m_header->setText(shownText());
    showDetails();
    emit findingsShown();
}

QString FindingsPanel::headerText() const { return m_header->text(); }

QString FindingsPanel::shownText() const
{
    if (!m_doc)
        return tr("No trace open");
    const QString about = m_shownRange ? tr("Findings for %1 selected").arg(duration(m_shownRange->second - m_shownRange->first))
                                       : tr("Findings for the whole trace");
    const int n = m_model->rowCount();
    return about + QStringLiteral(": ") + (n == 0 ? tr("none") : n == 1 ? tr("1 finding") : tr("%1 findings").arg(n));
}

const findings::Finding* FindingsPanel::selectedFinding() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? nullptr : m_model->finding(rows.first().row());
}

void FindingsPanel::selectRow(int row)
{
    m_table->selectionModel()->select(m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(m_model->index(row, 0));
}

QString FindingsPanel::detailsText() const { return m_details->toPlainText(); }

void FindingsPanel::showDetails()
{
    if (const findings::Finding* f = selectedFinding()) {
        m_details->setHtml(findingHtml(*f));
        return;
    }
    QString text;
    if (!m_doc)
        text = tr("Open a trace: its findings (what limits the run, how sure, what to do next) are listed here.");
    else if (m_model->rowCount() == 0)
        text = m_shownRange ? tr("No rule found its problem in the selected range.") : tr("No rule found its problem in this trace.");
    else
        text = tr("Select a finding to see its evidence, the columns it rests on and the next step; the timeline, the key "
                  "averages and the roofline go to its place.");
    m_details->setHtml(QStringLiteral("<p style='color:#666'>%1</p>").arg(text.toHtmlEscaped()));
}

QString FindingsPanel::findingHtml(const findings::Finding& f) const
{
    const auto esc = [](const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); };
    QString html = QStringLiteral("<p><span style='background-color:%1; color:white; font-weight:bold'>&nbsp;%2&nbsp;</span> "
                                  "<b>%3</b> <span style='color:#666'>(%4)</span></p>")
                       .arg(FindingsModel::strengthColor(f.strength).name(), QString::fromUtf8(findings::strengthName(f.strength)),
                            esc(f.title), esc(f.id));
    html += QStringLiteral("<p style='color:#666'>%1</p>").arg(FindingsModel::strengthToolTip(f.strength).toHtmlEscaped());
    if (!f.evidence.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Evidence"));
        for (const std::string& sentence : f.evidence)
            html += QStringLiteral("<li>%1</li>").arg(esc(sentence));
        html += QStringLiteral("</ul>");
    }
    html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Next step:"), esc(f.nextStep));
    if (!f.columns.empty()) {
        QStringList columns;
        for (const std::string& c : f.columns)
            columns << QStringLiteral("<code>%1</code>").arg(esc(c));
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Columns:"), columns.join(QStringLiteral(", ")));
    }
    if (!f.where.empty() && m_doc) {
        const trace::Trace& t = *m_doc->trace;
        // Numbered: a next step may name "the second range".
        html += QStringLiteral("<p><b>%1</b></p><ol>").arg(tr("Where (click to go there):"));
        for (size_t k = 0; k < f.where.size(); ++k) {
            const findings::Where& w = f.where[k];
            QString place = w.end > w.start
                ? tr("%1 after the trace start, for %2").arg(duration(w.start - t.originTime()), duration(w.end - w.start))
                : tr("at %1 after the trace start").arg(duration(w.start - t.originTime()));
            if (w.event < t.events.size())
                place += QStringLiteral(": ")
                    + QString::fromUtf8(t.name(t.events[w.event]).data(), qsizetype(t.name(t.events[w.event]).size())).toHtmlEscaped();
            html += QStringLiteral("<li><a href='place:%1'>%2</a></li>").arg(qulonglong(k)).arg(place);
        }
        html += QStringLiteral("</ol>");
    }
    return html;
}
