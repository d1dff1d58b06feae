// SPDX-License-Identifier: MIT
#pragma once

#include <QTextBrowser>

#include <memory>

struct TraceDocument;

// Every fact about the selected event: times, track, args, parent op, and links to the launch call,
// its GPU work, the launching op, the CPU annotation of a GPU span and the backward op.
class DetailsPanel : public QTextBrowser
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);
    void setDocument(std::shared_ptr<const TraceDocument> document);
    void showTraceEvent(uint32_t event);

signals:
    void jumpTo(uint32_t event);

private:
    QString memoryHtml(uint32_t event) const;
    std::shared_ptr<const TraceDocument> m_doc;
};
