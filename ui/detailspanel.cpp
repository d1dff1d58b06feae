// SPDX-License-Identifier: MIT
#include "detailspanel.h"

#include "memory/memoryanalysis.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "trace/namefit.h"
#include "trace/eventsearch.h"
#include "tracedocument.h"

#include <algorithm>

using namespace tilescope;

namespace {
QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped(); }
// Exact microseconds, as the file has them; from a millisecond up also as the tables write a time ("121.431ms").
QString us(int64_t ns)
{
    QString text = QString::fromStdString(stats::formatMicroseconds(ns)) + QStringLiteral(" µs");
    if (ns >= 1'000'000) // (the tables' form has no sign)
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(stats::formatDuration(ns)));
    return text;
}
constexpr size_t kHeadingNameWidth = 80; // characters
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

// The memory columns of a host op when the trace has [memory] records: what it allocated and freed itself
// (records on its thread while it was the innermost op), its name's totals, and each device's allocated
// bytes when it started and ended.
QString DetailsPanel::memoryHtml(uint32_t index) const
{
    const trace::Trace& t = *m_doc->trace;
    const trace::Event& e = t.events[index];
    const memory::MemoryAnalysis& a = m_doc->memory;
    if (a.devices.empty() || !trace::isHostOp(e))
        return {};
    uint64_t allocs = 0, frees = 0;
    int64_t allocBytes = 0, freeBytes = 0;
    for (const memory::MemoryBlock& b : a.blocks) {
        if (b.allocOp == index && b.allocRecord != trace::kNoIndex) {
            ++allocs;
            allocBytes += b.bytes;
        }
        if (b.freeOp == index && b.freeRecord != trace::kNoIndex) {
            ++frees;
            freeBytes += b.bytes;
        }
    }
    auto bytes = [](int64_t v) { return QString::fromStdString(stats::formatBytes(v)); };
    QString html = tr("<h4>memory</h4><table cellspacing=4>");
    html += tr("<tr><td>allocated here (self)</td><td>%1 in %2</td></tr>")
                .arg(bytes(allocBytes), allocs == 1 ? tr("1 allocation") : tr("%1 allocations").arg(allocs));
    html += tr("<tr><td>freed here (self)</td><td>%1 in %2</td></tr>")
                .arg(bytes(freeBytes), frees == 1 ? tr("1 free") : tr("%1 frees").arg(frees));
    for (const memory::OpMemory& op : a.ops)
        if (op.name == e.name)
            html += tr("<tr><td>%1</td><td>%2 allocated, %3 freed, %4 still live at the peak</td></tr>")
                        .arg(op.calls == 1 ? tr("its one call") : tr("all %1 calls of this op").arg(op.calls))
                        .arg(bytes(op.allocBytes), bytes(op.freeBytes), bytes(op.liveAtPeakBytes));
    for (const memory::DeviceMemory& d : a.devices) {
        auto at = [&](int64_t time) -> QString {
            const auto it = std::upper_bound(d.samples.begin(), d.samples.end(), time,
                                             [](int64_t v, const memory::MemorySample& s) { return v < s.time; });
            return it == d.samples.begin() ? tr("none yet") : bytes(std::prev(it)->allocated);
        };
        if (d.peakAllocated > 0)
            html += tr("<tr><td>%1 allocated</td><td>%2 at its start, %3 at its end</td></tr>")
                        .arg(QString::fromStdString(d.name), at(e.start), at(e.end()));
    }
    return html + QStringLiteral("</table>");
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
    // A demangled kernel signature runs to hundreds of characters: the heading shortens it as the table does,
    // the full name follows the figures.
    const std::string_view name = t.strings.view(e.name);
    const std::string heading = trace::shortenedName(name, kHeadingNameWidth);
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=4>").arg(text(heading));
    html += QStringLiteral("<tr><td>category</td><td>%1</td></tr>").arg(text(t.strings.view(e.category)));
    html += QStringLiteral("<tr><td>start</td><td>%1 after the trace start (ts %2)</td></tr>")
                .arg(us(e.start - t.originTime()), QString::fromStdString(stats::formatMicroseconds(e.start)));
    // A CUPTI range profiler's kernel record: its time is a slot the profiler gave it, not the kernel's.
    const bool placeholderTimes = t.strings.view(e.category) == "cuda_profiler_range";
    html += QStringLiteral("<tr><td>duration</td><td>%1%2</td></tr>")
                .arg(us(e.duration), placeholderTimes ? tr(", a placeholder: CUPTI range-profiler records are not timed") : QString());
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
    if (heading != name)
        html += QStringLiteral("<tr><td>full name</td><td>%1</td></tr>").arg(text(name));
    html += QStringLiteral("</table>");
    html += memoryHtml(index);
    const std::string args = t.rawArgs(e);
    if (!args.empty())
        html += QStringLiteral("<h4>args</h4><pre>%1</pre>").arg(text(args));
    setHtml(html);
}
