// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "findings/finding.h"
#include "roofline/classify.h"
#include "workerjob.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class FindingsModel;
class QLabel;
class RowFitSplitter;
class QTableView;
class QTextBrowser;
struct TraceDocument;

// The Findings dock: one row per finding of the whole trace or of a selected range (strength badge, id,
// title), and the selected finding's evidence, next step, columns and places in full below. A range's
// findings are computed on a worker thread from the document and the range alone (newest request wins);
// clearing the range shows the document's own findings again.
class FindingsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit FindingsPanel(QWidget* parent = nullptr);
    bool eventFilter(QObject* watched, QEvent* event) override; // the table's width: its id column shown or not

    // A new trace: its whole-trace findings (TraceDocument::findings).
    void setDocument(std::shared_ptr<const TraceDocument> document);
    // The findings of a time range (trace ns), or of the whole trace for nullopt.
    void setRange(std::optional<std::pair<int64_t, int64_t>> range);
    bool isComputing() const { return m_job.isRunning(); }
    // What the findings shown are about: the range they were computed for, nullopt for the whole trace.
    std::optional<std::pair<int64_t, int64_t>> shownRange() const { return m_shownRange; }

    // The roofline dock's classification after it reclassified (edited annotations, measured ceilings, a chosen
    // GPU): the findings are computed again with it, on the worker, for what is shown (the whole trace or the range).
    void setClassification(const tilescope::roofline::ClassifyReport& report);

    // What the panel shows for a range: findings::diagnose with the range's key averages and overlap, the
    // document's memory analysis, `classification` (null: the document's), and the window.
    static std::vector<tilescope::findings::Finding> diagnoseRange(const TraceDocument& document, tilescope::analysis::Interval window,
                                                                   const tilescope::roofline::ClassifyReport* classification = nullptr);

    FindingsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QTextBrowser* details() const { return m_details; } // its "place:K" links go to the finding's K-th place
    QString headerText() const;                         // what the findings are about, or that a range's are being computed
    QString detailsText() const;                        // the details as plain text
    const tilescope::findings::Finding* selectedFinding() const;
    void selectRow(int row); // as a click on the row does (findingSelected follows)

signals:
    // A row was selected (place 0) or one of its places in the details was clicked.
    void findingSelected(const tilescope::findings::Finding& finding, int place);
    // The model now holds the findings of the current range, or of the whole trace.
    void findingsShown();

private:
    void show(std::shared_ptr<const std::vector<tilescope::findings::Finding>> findings, std::optional<std::pair<int64_t, int64_t>> range);
    void showDetails();
    QString shownText() const; // "Findings for the whole trace: 3 findings"
    QString findingHtml(const tilescope::findings::Finding& finding) const;

    std::shared_ptr<const TraceDocument> m_doc;
    std::shared_ptr<const tilescope::roofline::ClassifyReport> m_classification; // set by setClassification; null: the document's
    std::optional<std::pair<int64_t, int64_t>> m_shownRange;
    void computeWholeTrace(); // with m_classification, on the worker
    WorkerJob m_job;          // newest request wins: a new range, trace or the whole trace drops the one in flight
    FindingsModel* m_model;
    QTableView* m_table;
    int idColumnWidth() const;
    RowFitSplitter* m_split;
    QLabel* m_header;
    QTextBrowser* m_details;
};
