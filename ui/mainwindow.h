// SPDX-License-Identifier: MIT
#pragma once

#include <QMainWindow>

#include <memory>

class DetailsPanel;
class KeyAveragesModel;
class ProfileDialog;
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTimer;
class RooflinePanel;
class TimelineView;
class TraceLoadJob;
struct TraceDocument;

namespace tilescope::stats {
struct KeyAverages;
}

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path);
    void openBundledSample();
    void reopenLast();
    void showProfileDialog();
    ProfileDialog* profileDialog() const { return m_profileDialog; }
    // Saves a PNG of the window once the trace in flight has loaded, then quits.
    void screenshotWhenLoaded(const QString& path);

    TimelineView* timeline() const { return m_timeline; }
    RooflinePanel* roofline() const { return m_roofline; }
    QTableView* table() const { return m_table; }
    QLineEdit* tableFilter() const { return m_filter; }
    QCheckBox* groupByShape() const { return m_byShape; }
    KeyAveragesModel* tableModel() const { return m_model; }
    QSortFilterProxyModel* tableProxy() const { return m_proxy; }
    const TraceDocument* document() const { return m_doc.get(); }
    TraceLoadJob* loadJob() const { return m_job; }
    QString figuresText() const;

signals:
    void documentChanged();
    void rangeAggregated();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void setDocument(std::shared_ptr<const TraceDocument> document);
    void updateTable();
    void updateFigures();
    void onEventSelected(uint32_t event);
    void onTableSelection();
    void search(bool forward);
    void rememberRecent(const QString& path);
    void rebuildRecentMenu();
    void exportCsv();
    void copyRows();

    TraceLoadJob* m_job;
    std::shared_ptr<const TraceDocument> m_doc;
    std::unique_ptr<tilescope::stats::KeyAverages> m_rangeAverages;
    TimelineView* m_timeline;
    DetailsPanel* m_details;
    RooflinePanel* m_roofline;
    KeyAveragesModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLineEdit* m_filter;
    QCheckBox* m_byShape;
    QSpinBox* m_rowLimit;
    QLineEdit* m_search;
    QLabel* m_figures;
    QLabel* m_tableTitle;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QMenu* m_recentMenu;
    QTimer* m_figuresTimer;
    ProfileDialog* m_profileDialog = nullptr;
    QString m_screenshotPath;
    bool m_syncing = false;
    quint64 m_rangeGeneration = 0;
};
