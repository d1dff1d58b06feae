// SPDX-License-Identifier: MIT
#include "comparedtimeline.h"

#include "timelineview.h"
#include "tracedocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

using namespace tilescope;

namespace {

const analysis::StepRow* stepNumbered(const TraceDocument& doc, int64_t number)
{
    for (const analysis::StepRow& s : doc.steps.steps)
        if (s.number == number)
            return &s;
    return nullptr;
}

} // namespace

ComparedTimeline::ComparedTimeline(TimelineView* before, QWidget* parent)
    : QWidget(parent)
    , m_before(before)
    , m_after(new TimelineView(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 2, 8, 0);
    m_title = new QLabel(this);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true); // two long file names must not widen the window past the screen
    m_align = new QComboBox(this);
    m_align->setObjectName(QStringLiteral("alignAtStep"));
    m_align->setToolTip(tr("The step of both traces that lines up: zoom and pan follow from either timeline"));
    auto* close = new QPushButton(tr("Close Comparison"), this);
    m_diffStepOnly = new QCheckBox(tr("Diff this step only"), this);
    m_diffStepOnly->setToolTip(tr("The key averages compare the aligned step of each trace (tilescope-cli diff --step N) "
                                  "instead of the whole traces"));
    bar->addWidget(m_title, 1);
    bar->addWidget(new QLabel(tr("Align at"), this));
    bar->addWidget(m_align);
    bar->addWidget(m_diffStepOnly);
    bar->addWidget(close);
    layout->addLayout(bar);
    layout->addWidget(m_after, 1);
    connect(close, &QPushButton::clicked, this, &ComparedTimeline::closeRequested);
    connect(m_align, &QComboBox::activated, this, [this](int index) {
        const QVariant number = m_align->itemData(index);
        alignAt(number.isValid() ? std::optional<int64_t>(number.toLongLong()) : std::nullopt);
    });
    connect(m_diffStepOnly, &QCheckBox::toggled, this, &ComparedTimeline::announceDiffStep);
    connect(m_before, &TimelineView::viewChanged, this, [this] { follow(m_before, m_after, m_offset); });
    connect(m_after, &TimelineView::viewChanged, this, [this] { follow(m_after, m_before, -m_offset); });
    hide();
}

void ComparedTimeline::follow(TimelineView* from, TimelineView* to, int64_t shift)
{
    if (!m_afterDoc || m_following)
        return;
    m_following = true;
    to->zoomToRange(from->viewStart() + shift, from->viewEnd() + shift);
    m_following = false;
}

void ComparedTimeline::setDocuments(std::shared_ptr<const TraceDocument> before, std::shared_ptr<const TraceDocument> after)
{
    m_beforeDoc = after ? std::move(before) : nullptr;
    m_afterDoc = m_beforeDoc ? std::move(after) : nullptr;
    m_align->clear();
    // Equal canvases in both timelines: one scroll bar shown or hidden must not shift one of them.
    const auto scrollBars = m_afterDoc ? Qt::ScrollBarAlwaysOn : Qt::ScrollBarAsNeeded;
    m_before->setVerticalScrollBarPolicy(scrollBars);
    m_after->setVerticalScrollBarPolicy(scrollBars);
    if (!m_afterDoc) {
        const QSignalBlocker quiet(m_diffStepOnly); // the comparison is over: nothing to diff
        m_diffStepOnly->setChecked(false);
        m_after->setDocument(nullptr);
        m_step.reset();
        m_offset = 0;
        const auto [first, last] = m_before->traceExtent();
        m_before->setExtentIncluding(first, last); // back to its own trace's extent
        hide();
        return;
    }
    // Two files of one name (each run's trace.json) are told apart by as many of their folders as it takes
    // (run1/out/trace.json against run2/out/trace.json).
    const QFileInfo afterFile(m_afterDoc->path), beforeFile(m_beforeDoc->path);
    const QStringList afterParts = afterFile.absoluteFilePath().split(u'/', Qt::SkipEmptyParts),
                      beforeParts = beforeFile.absoluteFilePath().split(u'/', Qt::SkipEmptyParts);
    qsizetype keep = 1;
    while (keep < std::min(afterParts.size(), beforeParts.size()) && afterParts.last(keep) == beforeParts.last(keep))
        ++keep;
    const auto shown = [keep](const QStringList& parts) { return parts.last(std::min(keep, parts.size())).join(u'/').toHtmlEscaped(); };
    m_title->setText(tr("<b>after</b> %1 (under <b>before</b> %2)").arg(shown(afterParts), shown(beforeParts)));
    m_title->setToolTip(tr("after: %1\nbefore: %2").arg(afterFile.absoluteFilePath(), beforeFile.absoluteFilePath()));
    m_after->setDocument(m_afterDoc);
    m_align->addItem(tr("trace start"));
    std::optional<int64_t> first;
    for (const analysis::StepRow& s : m_beforeDoc->steps.steps)
        if (stepNumbered(*m_afterDoc, s.number)) {
            m_align->addItem(tr("step %1").arg(s.number), QVariant::fromValue(qlonglong(s.number)));
            if (!first)
                first = s.number;
        }
    if (isHidden()) {
        show();
        // In the main window's splitter: before and after share the room the before timeline had.
        if (auto* split = qobject_cast<QSplitter*>(parentWidget()); split && split->indexOf(m_before) >= 0) {
            QList<int> sizes = split->sizes();
            const int b = int(split->indexOf(m_before)), a = int(split->indexOf(this));
            const int room = sizes[b] + sizes[a];
            sizes[b] = room / 2;
            sizes[a] = room - room / 2;
            split->setSizes(sizes);
        }
    }
    alignAt(first);
}

bool ComparedTimeline::alignAt(std::optional<int64_t> number)
{
    if (!m_afterDoc)
        return false;
    const analysis::StepRow* before = number ? stepNumbered(*m_beforeDoc, *number) : nullptr;
    const analysis::StepRow* after = number ? stepNumbered(*m_afterDoc, *number) : nullptr;
    if (number && (!before || !after))
        return false;
    m_step = number;
    m_offset = number ? after->start - before->start : m_afterDoc->contentStart - m_beforeDoc->contentStart;
    m_align->setCurrentIndex(std::max(0, number ? m_align->findData(QVariant::fromValue(qlonglong(*number))) : 0));
    m_diffStepOnly->setEnabled(number.has_value());
    if (m_diffStepOnly->isChecked())
        announceDiffStep();
    // Each timeline may show the other's whole extent, shifted: neither stops panning where the other goes on.
    const auto [beforeFirst, beforeLast] = m_before->traceExtent();
    const auto [afterFirst, afterLast] = m_after->traceExtent();
    m_before->setExtentIncluding(afterFirst - m_offset, afterLast - m_offset);
    m_after->setExtentIncluding(beforeFirst + m_offset, beforeLast + m_offset);
    if (before)
        m_before->zoomToRange(before->start, before->end); // the step, with after's step under it (follow)
    else
        follow(m_before, m_after, m_offset);
    return true;
}

void ComparedTimeline::announceDiffStep()
{
    emit diffStepChanged(m_diffStepOnly->isChecked() && m_diffStepOnly->isEnabled() ? m_step : std::nullopt);
}

QString ComparedTimeline::titleText() const { return m_title->text(); }
