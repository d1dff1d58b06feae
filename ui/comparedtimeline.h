// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class TimelineView;
struct TraceDocument;

// While two traces are compared (File > Compare With…): the after trace's timeline, stacked under the
// before one (the main timeline), aligned at a chosen step: step N of after sits under step N of before,
// and zoom and pan follow from either timeline to the other. Align at "trace start" lines up the starts
// of the two traces' content instead. Hidden while nothing is compared.
class ComparedTimeline : public QWidget
{
    Q_OBJECT
public:
    ComparedTimeline(TimelineView* before, QWidget* parent = nullptr);

    // Both set: stack `after` under `before`, aligned at the first step number both traces have (else at
    // the trace starts). `after` null: the comparison ends, the before timeline keeps its view.
    void setDocuments(std::shared_ptr<const TraceDocument> before, std::shared_ptr<const TraceDocument> after);
    // Aligns at step `number` (present in both traces) or, for nullopt, at the trace starts; false when a
    // trace has no such step.
    bool alignAt(std::optional<int64_t> number);
    std::optional<int64_t> alignedStep() const { return m_step; }
    QString titleText() const; // which trace is which, as the bar above the after timeline says it
    // after time = before time + offset.
    int64_t offset() const { return m_offset; }

    TimelineView* afterTimeline() const { return m_after; }
    QComboBox* alignCombo() const { return m_align; }
    // "Diff this step only": the key averages diff the aligned step of each trace instead of the whole traces.
    QCheckBox* diffStepOnly() const { return m_diffStepOnly; }

signals:
    void closeRequested();
    // The step the key averages should diff (the aligned one while "Diff this step only" is on), none for
    // the whole traces.
    void diffStepChanged(std::optional<int64_t> number);

private:
    void follow(TimelineView* from, TimelineView* to, int64_t shift);
    void announceDiffStep();

    TimelineView* m_before;
    TimelineView* m_after;
    QLabel* m_title;
    QComboBox* m_align;
    QCheckBox* m_diffStepOnly;
    std::shared_ptr<const TraceDocument> m_beforeDoc, m_afterDoc;
    std::optional<int64_t> m_step;
    int64_t m_offset = 0;
    bool m_following = false; // a view change being copied to the other timeline
};
