// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

namespace tilescope::memory {
struct AllocatorSnapshot;
}

// The allocator's segments in address order, one bar each, with their blocks drawn to scale inside it:
// allocated (blue), freed but still in use by a stream (orange), inactive (grey). Each bar spans the
// width whatever its size (segments range from 2 MiB to GiBs); the label says the size.
class SegmentMap : public QWidget
{
    Q_OBJECT
public:
    explicit SegmentMap(QWidget* parent = nullptr);
    void setSnapshot(std::shared_ptr<const tilescope::memory::AllocatorSnapshot> snapshot);
    // (segment, block) under a widget position, nullopt when none.
    std::optional<std::pair<size_t, size_t>> blockAt(QPoint position) const;
    QSize sizeHint() const override;
    static constexpr int kRowHeight = 22;
    static constexpr int kLabelWidth = 230;

signals:
    void blockClicked(size_t segment, size_t block);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    std::vector<size_t> m_order; // segments by address
    std::shared_ptr<const tilescope::memory::AllocatorSnapshot> m_snapshot;
};
