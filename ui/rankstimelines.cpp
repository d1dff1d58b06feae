// SPDX-License-Identifier: MIT
#include "rankstimelines.h"

#include "detailspanel.h"
#include "screenfit.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

RanksTimelines::RanksTimelines(QWidget* parent)
    : QWidget(parent)
    , m_status(new QLabel(this))
    , m_timeline(new TimelineView(this))
    , m_details(new DetailsPanel(this))
{
    setWindowTitle(tr("TileScope - all ranks"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_status->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_status);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_timeline);
    split->addWidget(m_details);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    m_details->showTraceEvent(tilescope::trace::kNoIndex);
    connect(m_timeline, &TimelineView::eventSelected, this, [this](uint32_t event) {
        const int group = m_timeline->selectedGroup(); // the details read the selected rank's trace
        if (group != m_detailsGroup && size_t(group) < m_documents.size()) {
            m_detailsGroup = group;
            m_details->setDocument(m_documents[size_t(group)]);
        }
        m_details->showTraceEvent(event);
        if (size_t(group) < m_ranks.size())
            m_status->setText(event == tilescope::trace::kNoIndex ? m_hint
                                                                  : tr("Selected in rank %1 (%2); the details below are its trace's.")
                                                                        .arg(m_ranks[size_t(group)].rank)
                                                                        .arg(QFileInfo(m_ranks[size_t(group)].file).fileName()));
    });
    connect(m_details, &DetailsPanel::jumpTo, this, [this](uint32_t e) { m_timeline->selectEvent(e, true, m_timeline->selectedGroup()); });
    resize(sizeWithinScreen(*this, {1500, 950}));
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
    m_ranks = ranks;
    m_documents = documents;
    std::vector<TimelineView::Group> groups;
    for (size_t i = 0; i < ranks.size(); ++i) {
        QString title = ranks[i].straggler ? tr("rank %1 — straggler — %2") : tr("rank %1 — %2");
        title = title.arg(ranks[i].rank).arg(QFileInfo(ranks[i].file).fileName());
        if (!ranks[i].evidence.isEmpty())
            title += QStringLiteral(" — ") + ranks[i].evidence;
        groups.push_back({documents[i], title, ranks[i].straggler});
    }
    m_details->setDocument(nullptr);
    m_detailsGroup = -1;
    m_details->showTraceEvent(tilescope::trace::kNoIndex);
    m_timeline->setDocuments(std::move(groups));
    m_hint
        = tr("%1 ranks on one time axis; click a rank's header to fold its lanes, right-click a stream for its queue.").arg(ranks.size());
    m_status->setText(m_hint);
    emit loaded();
}
