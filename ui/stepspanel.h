// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class StepsModel;
struct TraceDocument;

// The Steps dock (issue #13): one row per step of the open trace (ProfilerStep#N, or a repeated top-level
// region), sortable; double-clicking a row asks for the timeline to zoom to that step.
class StepsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StepsPanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);

    QTableView* table() const { return m_table; }
    StepsModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QString title() const;

signals:
    // A step was activated: its window [start, end) in trace ns.
    void stepActivated(int64_t start, int64_t end);

private:
    StepsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_title;
};
