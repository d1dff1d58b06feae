// SPDX-License-Identifier: MIT
#include "rankstimelines.h"

#include "io/tracefileerror.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QColor>
#include <QLabel>
#include <QPalette>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

namespace {
constexpr int kViewHeight = 280; // a rank's busy lanes, its GPU streams and its main thread's top rows
} // namespace

RanksTimelines::RanksTimelines(QWidget* parent)
    : QWidget(parent)
{
    setWindowTitle(tr("TileScope - all ranks"));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_status = new QLabel(this);
    m_status->setContentsMargins(8, 4, 8, 4);
    outer->addWidget(m_status);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    auto* inner = new QWidget(scroll);
    m_layout = new QVBoxLayout(inner);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->addStretch(1);
    scroll->setWidget(inner);
    outer->addWidget(scroll, 1);
    resize(1500, 950);
}

void RanksTimelines::setRanks(const std::vector<Rank>& ranks)
{
    m_status->setText(tr("Loading %1 ranks…").arg(ranks.size()));
    m_job.start([this, ranks](const WorkerJob::Run& run) {
        std::vector<std::shared_ptr<const TraceDocument>> documents(ranks.size());
        std::vector<std::exception_ptr> errors(ranks.size());
        std::atomic<size_t> next{0};
        const auto worker = [&] {
            for (size_t i = next++; i < ranks.size(); i = next++) {
                try {
                    tilescope::trace::LoadOptions options;
                    options.cancel = run.cancelFlag();
                    documents[i] = TraceDocument::build(ranks[i].file, {}, options);
                } catch (...) {
                    errors[i] = std::current_exception();
                }
            }
        };
        const unsigned threads = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), unsigned(ranks.size()));
        std::vector<std::thread> pool;
        for (unsigned k = 1; k < threads; ++k)
            pool.emplace_back(worker);
        worker();
        for (std::thread& t : pool)
            t.join();
        for (const std::exception_ptr& e : errors) {
            if (!e)
                continue;
            QString message;
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& error) {
                message = QString::fromUtf8(error.what());
            }
            run.finish([this, message] {
                m_status->setText(message);
                emit failed(message);
            });
            return;
        }
        run.finish([this, ranks, documents] { showDocuments(ranks, documents); });
    });
}

void RanksTimelines::showDocuments(const std::vector<Rank>& ranks, const std::vector<std::shared_ptr<const TraceDocument>>& documents)
{
    for (QWidget* row : m_rows)
        delete row;
    m_rows.clear();
    m_views.clear();
    for (size_t i = 0; i < ranks.size(); ++i) {
        auto* row = new QWidget(this);
        auto* rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 6);
        auto* header = new QLabel(ranks[i].straggler
                                      ? tr("<b>rank %1</b> — straggler — %2").arg(ranks[i].rank).arg(ranks[i].file.toHtmlEscaped())
                                      : tr("<b>rank %1</b> — %2").arg(ranks[i].rank).arg(ranks[i].file.toHtmlEscaped()),
                                  row);
        header->setContentsMargins(6, 2, 6, 2);
        header->setAutoFillBackground(true);
        QPalette palette = header->palette();
        palette.setColor(QPalette::Window, ranks[i].straggler ? QColor(255, 214, 102) : QColor(220, 226, 236));
        header->setPalette(palette);
        rowLayout->addWidget(header);
        auto* view = new TimelineView(row);
        view->setFixedHeight(kViewHeight);
        view->setDocument(documents[i]);
        rowLayout->addWidget(view);
        m_layout->insertWidget(m_layout->count() - 1, row);
        m_rows.push_back(row);
        m_views.push_back(view);
    }
    // One time axis: the first rank's whole content, then every view follows the one moved.
    if (!m_views.empty()) {
        int64_t start = documents.front()->contentStart, end = documents.front()->contentEnd;
        for (const auto& d : documents) {
            start = std::min(start, d->contentStart);
            end = std::max(end, d->contentEnd);
        }
        for (TimelineView* view : m_views)
            view->zoomToRange(start, end);
    }
    for (TimelineView* view : m_views)
        connect(view, &TimelineView::viewChanged, this, [this, view](int64_t start, int64_t end) {
            if (m_syncing)
                return;
            m_syncing = true;
            for (TimelineView* other : m_views)
                if (other != view)
                    other->zoomToRange(start, end);
            m_syncing = false;
        });
    m_status->setText(tr("%1 ranks on one time axis: zoom or pan any of them.").arg(ranks.size()));
    emit loaded();
}
