// SPDX-License-Identifier: MIT
#include "segmentmap.h"

#include "memory/allocatorsnapshot.h"
#include "stats/bytestext.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <numeric>

using namespace tilescope;

namespace {

QColor stateColour(memory::BlockState state)
{
    switch (state) {
    case memory::BlockState::ActiveAllocated: return QColor(0x1f, 0x77, 0xb4);
    case memory::BlockState::ActivePendingFree: return QColor(0xff, 0x7f, 0x0e);
    case memory::BlockState::Inactive: break;
    }
    return QColor(0xd9, 0xd9, 0xd9);
}

QString bytesText(int64_t bytes) { return QString::fromStdString(stats::formatBytes(bytes)); }

} // namespace

SegmentMap::SegmentMap(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void SegmentMap::setSnapshot(std::shared_ptr<const memory::AllocatorSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_order.clear();
    if (m_snapshot) {
        m_order.resize(m_snapshot->segments.size());
        std::iota(m_order.begin(), m_order.end(), size_t(0));
        std::stable_sort(m_order.begin(), m_order.end(), [this](size_t a, size_t b) {
            const auto& sa = m_snapshot->segments[a];
            const auto& sb = m_snapshot->segments[b];
            return std::pair(sa.device, sa.address) < std::pair(sb.device, sb.address);
        });
    }
    updateGeometry();
    update();
}

QSize SegmentMap::sizeHint() const { return QSize(600, std::max<int>(kRowHeight, int(m_order.size()) * kRowHeight + 4)); }

std::optional<std::pair<size_t, size_t>> SegmentMap::blockAt(QPoint position) const
{
    const int row = position.y() / kRowHeight;
    const int barWidth = width() - kLabelWidth - 4;
    if (!m_snapshot || row < 0 || row >= int(m_order.size()) || position.x() < kLabelWidth || barWidth <= 0)
        return std::nullopt;
    const size_t s = m_order[size_t(row)];
    const memory::SnapshotSegment& segment = m_snapshot->segments[s];
    if (segment.totalSize <= 0)
        return std::nullopt;
    const double offset = double(position.x() - kLabelWidth) / barWidth * double(segment.totalSize);
    for (size_t b = 0; b < segment.blocks.size(); ++b) {
        const double start = double(segment.blocks[b].address - segment.address);
        if (offset >= start && offset < start + double(segment.blocks[b].size))
            return std::make_pair(s, b);
    }
    return std::nullopt;
}

void SegmentMap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_snapshot)
        return;
    const int barWidth = std::max(10, width() - kLabelWidth - 4);
    for (size_t row = 0; row < m_order.size(); ++row) {
        const memory::SnapshotSegment& segment = m_snapshot->segments[m_order[row]];
        const int top = int(row) * kRowHeight;
        p.setPen(palette().text().color());
        const QString label = QStringLiteral("cuda:%1 0x%2 %3 %4")
                                  .arg(segment.device)
                                  .arg(QString::number(segment.address, 16))
                                  .arg(QString::fromStdString(segment.segmentType), bytesText(segment.totalSize));
        p.drawText(QRect(4, top, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   fontMetrics().elidedText(label, Qt::ElideMiddle, kLabelWidth - 8));
        const QRect bar(kLabelWidth, top + 3, barWidth, kRowHeight - 6);
        p.fillRect(bar, stateColour(memory::BlockState::Inactive));
        if (segment.totalSize <= 0)
            continue;
        for (const memory::SnapshotBlock& block : segment.blocks) {
            if (block.state == memory::BlockState::Inactive)
                continue;
            const double x0 = double(block.address - segment.address) / double(segment.totalSize) * barWidth;
            const double w = std::max(1.0, double(block.size) / double(segment.totalSize) * barWidth);
            p.fillRect(QRectF(bar.left() + x0, bar.top(), w, bar.height()), stateColour(block.state));
        }
        // Block edges, where they are at least 3 px apart, so neighbours read as separate blocks.
        p.setPen(QColor(255, 255, 255, 200));
        double lastEdge = -10;
        for (const memory::SnapshotBlock& block : segment.blocks) {
            const double x = bar.left() + double(block.address - segment.address) / double(segment.totalSize) * barWidth;
            if (x - lastEdge >= 3 && x > bar.left())
                p.drawLine(QPointF(x, bar.top()), QPointF(x, bar.bottom()));
            lastEdge = x;
        }
        p.setPen(palette().mid().color());
        p.drawRect(bar.adjusted(0, 0, -1, -1));
    }
}

void SegmentMap::mousePressEvent(QMouseEvent* event)
{
    if (const auto hit = blockAt(event->pos()))
        emit blockClicked(hit->first, hit->second);
}

bool SegmentMap::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_snapshot) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const auto hit = blockAt(help->pos())) {
            const memory::SnapshotBlock& block = m_snapshot->segments[hit->first].blocks[hit->second];
            QString text = tr("%1 block of %2 (requested %3) at 0x%4")
                               .arg(QString::fromUtf8(memory::blockStateName(block.state)), bytesText(block.size),
                                    bytesText(block.requestedSize), QString::number(block.address, 16));
            if (const auto user = memory::userFrame(*m_snapshot, block.stack)) {
                const memory::StackFrame& f = m_snapshot->frame(*user);
                text += QStringLiteral("\n%1 (%2:%3)").arg(QString::fromStdString(f.name), QString::fromStdString(f.filename)).arg(f.line);
            }
            QToolTip::showText(help->globalPos(), text, this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}
