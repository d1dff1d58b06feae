// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>
#include <string>

class QCustomPlot;
class QTextBrowser;
struct TraceDocument;

// Kernels and regions on the roofline (log-log: arithmetic intensity against FLOP/s), the memory roof
// and each compute roof, points coloured by class and sized by total time; a verdict card with the
// evidence for the selected kernel. Clicking a point selects that kernel.
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

signals:
    void kernelClicked(const QString& name);

private:
    void rebuild();
    std::shared_ptr<const TraceDocument> m_doc;
    QCustomPlot* m_plot;
    QTextBrowser* m_card;
    std::string m_selected;
    int m_pointCount = 0;
};
