// SPDX-License-Identifier: MIT
#pragma once

#include "compare/compare.h"
#include "roofline/classify.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QSplitter;
class QTableWidget;
class QTreeWidget;
struct TraceDocument;

// The kernel-vs-reference question (issue #12): two regions or kernels of the open trace side by side, with
// the figures, the verdict, the kernels inside each region and each call, a click on a call jumps there.
// The figures are compare::compareSides over the document's trace, on the GUI thread: it walks the events
// once per side.
class ComparePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);
    // Fills the pickers (regions, then kernels by GPU time) and compares compare's default pair; without one
    // nothing is picked and the verdict line says how to pick.
    void setDocument(std::shared_ptr<const TraceDocument> document);
    // A newer classification of the same trace (the roofline panel's, after annotations or ceilings change).
    void setClassification(const tilescope::roofline::ClassifyReport& report);
    // Picks a side by name (a region label or kernel name of the trace) and compares again.
    void setSide(bool sideA, const QString& name);
    // Whether `name` is a region or kernel of the open trace.
    bool canCompare(const QString& name) const;
    // "Compare with...": `name` becomes a, and b's picker opens for the reference.
    void compareWith(const QString& name);

    QComboBox* picker(bool sideA) const { return sideA ? m_pickA : m_pickB; }
    QTableWidget* figures() const { return m_figures; }
    QTreeWidget* details(bool sideA) const { return sideA ? m_detailsA : m_detailsB; }
    QLabel* verdict() const { return m_verdict; }
    QSplitter* figuresAndCalls() const { return m_split; }
    const std::optional<tilescope::compare::Comparison>& comparison() const { return m_comparison; }

protected:
    // Short and wide (a 768 px screen's bottom dock): the figures beside the calls, not above them.
    void resizeEvent(QResizeEvent* event) override;

signals:
    // A call of a side was clicked: its first span's start to its last span's end, trace ns.
    void callActivated(int64_t start, int64_t end);

private:
    void recompute();
    void showComparison();
    void fillDetails(QTreeWidget* tree, const tilescope::compare::Side& side);

    std::shared_ptr<const TraceDocument> m_doc;
    tilescope::roofline::ClassifyReport m_report;
    std::optional<tilescope::compare::Comparison> m_comparison;
    QComboBox* m_pickA;
    QComboBox* m_pickB;
    QTableWidget* m_figures;
    QLabel* m_verdict;
    QTreeWidget* m_detailsA;
    QTreeWidget* m_detailsB;
    QSplitter* m_split; // the figures, then the two sides' calls
};
