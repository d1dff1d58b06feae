// SPDX-License-Identifier: MIT
#include "rankspanel.h"

#include "analysis/ranks.h"
#include "ranksmodel.h"
#include "rankstimelines.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <QHeaderView>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

RanksPanel::RanksPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new RanksModel(this))
    , m_verdict(new QLabel(this))
    , m_table(new QTableView(this))
    , m_allTimelines(new QPushButton(tr("All Ranks' Timelines…"), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setText(introText());
    auto* top = new QHBoxLayout;
    top->addWidget(m_verdict, 1);
    m_allTimelines->setEnabled(false);
    m_allTimelines->setToolTip(tr("Every rank's timeline one under the other, on one time axis"));
    top->addWidget(m_allTimelines, 0, Qt::AlignTop);
    layout->addLayout(top);
    connect(m_allTimelines, &QPushButton::clicked, this, [this] {
        const auto* report = m_model->report();
        if (!report)
            return;
        std::vector<RanksTimelines::Rank> ranks;
        for (size_t i = 0; i < report->ranks.size(); ++i) {
            const auto& evidence = report->verdict.evidence[i];
            QString figure = tr("in collectives %1/step")
                                 .arg(QString::fromStdString(tilescope::stats::formatDuration(report->ranks[i].collectiveNsPerStep)));
            if (report->verdict.applicable)
                figure += tr(", %1x the others'").arg(QString::fromStdString(tilescope::stats::formatFixed(evidence.waitRatio, 2)));
            ranks.push_back({report->ranks[i].rank, QString::fromStdString(report->ranks[i].file), evidence.straggler, figure});
        }
        if (!m_timelinesWindow) {
            m_timelinesWindow = new RanksTimelines(this);
            m_timelinesWindow->setWindowFlag(Qt::Window);
        }
        m_timelinesWindow->setRanks(ranks);
        m_timelinesWindow->show();
        m_timelinesWindow->raise();
    });
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->resizeColumnsToContents(); // the headers whole before any rank is in (they were cut at 100 px)
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        const auto* report = m_model->report();
        if (report && index.isValid())
            emit rankActivated(index.siblingAtColumn(0).data(RanksModel::FileRole).toString(), report->ranks[size_t(index.row())].rank);
    });
}

QString RanksPanel::introText() { return tr("File > Open Folder… opens the per-rank traces of one run."); }

void RanksPanel::setReport(std::shared_ptr<const tilescope::analysis::RanksReport> report)
{
    m_model->setReport(std::move(report));
    m_verdict->setText(m_model->report() ? m_model->verdictText() : introText());
    m_allTimelines->setEnabled(m_model->rowCount() > 0);
    m_table->resizeColumnsToContents();
}

qint64 RanksPanel::markShown(const QString& file)
{
    // One file by any path to it (relative, absolute, through a link): a mismatch clears the folder's ranks.
    const auto* report = m_model->report();
    const QString shown = QFileInfo(file).canonicalFilePath();
    for (int row = 0; report && row < m_model->rowCount(); ++row)
        if (const QString rankFile = m_model->index(row, 0).data(RanksModel::FileRole).toString();
            rankFile == file || (!shown.isEmpty() && QFileInfo(rankFile).canonicalFilePath() == shown)) {
            m_table->selectRow(row);
            return report->ranks[size_t(row)].rank;
        }
    m_table->clearSelection();
    return -1;
}
