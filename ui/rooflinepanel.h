// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <QWidget>

#include <memory>
#include <string>

class QCustomPlot;
class QPushButton;
class QTextBrowser;
struct TraceDocument;

// Kernels and regions on the roofline (log-log: arithmetic intensity against FLOP/s), the memory roof
// and each compute roof, points coloured by class and sized by total time; a verdict card with the
// evidence for the selected kernel. Clicking a point selects that kernel. A generated TileLang source can be
// attached to the selected kernel or region; its findings join the verdict (classification reruns in core).
class RooflinePanel : public QWidget
{
    Q_OBJECT
public:
    explicit RooflinePanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);
    void showKernel(const std::string& name); // highlights its point and shows its verdict
    QCustomPlot* plot() const { return m_plot; }
    QString verdictText() const;
    int pointCount() const { return m_pointCount; }
    // Inspects `path` for the selected kernel or region and reclassifies; false (and the reason on the card)
    // when nothing is selected or the file is unusable.
    bool attachSource(const QString& path);
    QPushButton* attachSourceButton() const { return m_attach; }

signals:
    void kernelClicked(const QString& name);

private:
    void rebuild();
    void chooseSource();
    std::shared_ptr<const TraceDocument> m_doc;
    tilescope::roofline::ClassifyReport m_report; // the document's, or rerun with attached sources
    std::vector<tilescope::roofline::SourceAttachment> m_sources;
    QCustomPlot* m_plot;
    QPushButton* m_attach;
    QTextBrowser* m_card;
    std::string m_selected;
    int m_pointCount = 0;
};
