// SPDX-License-Identifier: MIT
#include "stepspanel.h"

#include "report/stepsreport.h"
#include "stepsmodel.h"
#include "tracedocument.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

using namespace tilescope;

StepsPanel::StepsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new StepsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    layout->addWidget(m_title);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StepsModel::SortRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the steps in trace order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setToolTip(tr("Double-click a step to zoom the timeline to it"));
    layout->addWidget(m_table, 1);
    connect(m_table, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
        const auto [start, end] = m_model->stepWindow(m_proxy->mapToSource(index).row());
        if (end > start)
            emit stepActivated(start, end);
    });
    setDocument(nullptr);
}

void StepsPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    if (!document)
        m_title->setText(tr("Open a trace to see its steps"));
    else if (document->steps.steps.empty())
        m_title->setText(QString::fromUtf8(report::kNoStepsText));
    else
        m_title->setText(
            tr("%n step(s), found by %1; double-click one to zoom the timeline to it", nullptr, int(document->steps.steps.size()))
                .arg(QString::fromStdString(analysis::stepSourceDescription(document->steps))));
    m_model->setDocument(std::move(document));
    m_table->resizeColumnsToContents();
}

QString StepsPanel::title() const { return m_title->text(); }
