// SPDX-License-Identifier: MIT
#include "detailspanel.h"

#include "stats/timetext.h"
#include "tracedocument.h"

using namespace tilescope;

namespace {
QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped(); }
QString us(int64_t ns) { return QString::fromStdString(stats::formatMicroseconds(ns)) + QStringLiteral(" µs"); }
} // namespace

DetailsPanel::DetailsPanel(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("event"))
            emit jumpTo(url.path().toUInt());
    });
}

void DetailsPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    clear();
}

void DetailsPanel::showTraceEvent(uint32_t index)
{
    if (!m_doc || index >= m_doc->trace->events.size()) {
        setHtml(tr("<i>Click an event in the timeline.</i>"));
        return;
    }
    const trace::Trace& t = *m_doc->trace;
    const trace::Event& e = t.events[index];
    const trace::Track& track = t.tracks[e.track];
    auto link = [&](uint32_t other, const QString& role) {
        if (other == trace::kNoIndex)
            return QString();
        const auto& o = t.events[other];
        return QStringLiteral("<tr><td>%1</td><td><a href=\"event:%2\">%3</a> (%4)</td></tr>")
            .arg(role)
            .arg(other)
            .arg(text(t.strings.view(o.name)), us(o.duration));
    };
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(text(t.strings.view(e.name)));
    html += QStringLiteral("<tr><td>category</td><td>%1</td></tr>").arg(text(t.strings.view(e.category)));
    html += QStringLiteral("<tr><td>start</td><td>%1 after the trace start (ts %2)</td></tr>")
                .arg(us(e.start - t.originTime()), QString::fromStdString(stats::formatMicroseconds(e.start)));
    html += QStringLiteral("<tr><td>duration</td><td>%1</td></tr>").arg(us(e.duration));
    html += QStringLiteral("<tr><td>track</td><td>pid %1, tid %2 %3</td></tr>")
                .arg(text(t.strings.view(t.processes[track.process].pidText)), text(t.strings.view(track.tidText)),
                     text(t.strings.view(track.name)));
    if (e.externalId != trace::kNoId)
        html += QStringLiteral("<tr><td>External id</td><td>%1</td></tr>").arg(e.externalId);
    if (e.correlation != trace::kNoId)
        html += QStringLiteral("<tr><td>correlation</td><td>%1</td></tr>").arg(e.correlation);
    if (e.op != trace::kNoIndex) {
        const auto& op = t.ops[e.op];
        html += QStringLiteral("<tr><td>input shapes</td><td>%1</td></tr>").arg(text(t.strings.view(op.inputShapes)));
        html += QStringLiteral("<tr><td>input types</td><td>%1</td></tr>").arg(text(t.strings.view(op.inputTypes)));
        if (op.flops)
            html += QStringLiteral("<tr><td>FLOPs (torch's formula)</td><td>%1</td></tr>").arg(op.flops);
    }
    html += link(e.parent, tr("parent"));
    if (trace::isGpuActivity(e.kind))
        html += link(t.launchOf(index), tr("launched by"));
    if (trace::isLaunchApi(e.kind))
        for (const uint32_t a : t.activitiesOf(index))
            html += link(a, tr("launched"));
    html += link(t.opOf(index), tr("launching op"));
    html += link(t.annotationOf(index), tr("CPU annotation"));
    for (const auto& [forward, backward] : t.forwardBackward()) {
        if (forward == index)
            html += link(backward, tr("backward"));
        if (backward == index)
            html += link(forward, tr("forward"));
    }
    html += QStringLiteral("</table>");
    const std::string_view args = t.rawArgs(e);
    if (!args.empty())
        html += QStringLiteral("<h4>args</h4><pre>%1</pre>").arg(text(args));
    setHtml(html);
}
