// SPDX-License-Identifier: MIT
#include "rowfitsplitter.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>

#include <algorithm>

RowFitSplitter::RowFitSplitter(QTableView* table, QWidget* below, int maxRows, QWidget* parent)
    : QSplitter(Qt::Vertical, parent)
    , m_table(table)
    , m_below(below)
    , m_maxRows(maxRows)
{
    setChildrenCollapsible(false);
    addWidget(table);
    addWidget(below);
    setStretchFactor(0, 0);
    setStretchFactor(1, 1);
    connect(this, &QSplitter::splitterMoved, this, [this] { m_movedByUser = true; });
}

void RowFitSplitter::fitToRows()
{
    if (m_movedByUser)
        return;
    const QList<int> heights = sizes();
    const int total = heights.value(0) + heights.value(1);
    if (total < m_table->minimumHeight() + m_below->minimumHeight())
        return; // not laid out yet (a hidden dock's tab): resizeEvent fits it
    const int rows = std::clamp(m_table->model() ? m_table->model()->rowCount() : 0, 1, m_maxRows);
    const int wanted = (m_table->horizontalHeader()->isHidden() ? 0 : m_table->horizontalHeader()->sizeHint().height())
        + rows * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth()
        + (m_table->horizontalScrollBar()->isVisible() ? m_table->horizontalScrollBar()->height() : 0);
    const int table = std::max(m_table->minimumHeight(), std::min(wanted, total - m_below->minimumHeight()));
    setSizes({table, total - table});
}

void RowFitSplitter::resizeEvent(QResizeEvent* event)
{
    QSplitter::resizeEvent(event);
    fitToRows();
}
