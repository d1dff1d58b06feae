// SPDX-License-Identifier: MIT
#pragma once

#include <QSplitter>

class QTableView;

// A table above another widget, the table as tall as its rows (up to `maxRows`, at least one) and the widget
// below the rest: a short list leaves its room to what is under it, on a 768 px screen's dock too. Fitted
// again when the rows change (fitToRows) and when the splitter is resized (a dock's tab shown for the first
// time), until the user moves the handle: then the user's heights stay.
class RowFitSplitter : public QSplitter
{
    Q_OBJECT
public:
    RowFitSplitter(QTableView* table, QWidget* below, int maxRows, QWidget* parent = nullptr);
    void fitToRows();
    bool movedByUser() const { return m_movedByUser; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    QTableView* m_table;
    QWidget* m_below;
    int m_maxRows;
    bool m_movedByUser = false;
};
