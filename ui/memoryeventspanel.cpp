// SPDX-License-Identifier: MIT
#include "memoryeventspanel.h"

#include "memory/memoryanalysis.h"
#include "memoryeventsmodel.h"
#include "stats/bytestext.h"
#include "tracedocument.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace tilescope;

namespace {

QTableView* makeView(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    return view;
}

QSortFilterProxyModel* makeProxy(QAbstractItemModel* model, int sortRole, int filterColumn, QObject* parent)
{
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    proxy->setFilterKeyColumn(filterColumn);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

} // namespace

MemoryEventsPanel::MemoryEventsPanel(QWidget* parent)
    : QWidget(parent)
    , m_blocks(new MemoryBlocksModel(this))
    , m_ops(new MemoryOpsModel(this))
    , m_blocksProxy(makeProxy(m_blocks, MemoryBlocksModel::SortRole, -1, this))
    , m_opsProxy(makeProxy(m_ops, MemoryOpsModel::SortRole, MemoryOpsModel::OpColumn, this))
    , m_blocksView(makeView(m_blocksProxy, this))
    , m_opsView(makeView(m_opsProxy, this))
    , m_tabs(new QTabWidget(this))
    , m_filter(new QLineEdit(this))
    , m_summary(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_filter->setPlaceholderText(tr("Filter by op, device or size text..."));
    m_filter->setClearButtonEnabled(true);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    layout->addWidget(m_filter);
    m_tabs->addTab(m_opsView, tr("By op"));
    m_tabs->addTab(m_blocksView, tr("Allocations"));
    layout->addWidget(m_tabs, 1);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_blocksProxy->setFilterFixedString(text);
        m_opsProxy->setFilterFixedString(text);
    });
    connect(m_blocksView, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const qint64 event = m_blocksProxy->data(index, MemoryBlocksModel::EventRole).toLongLong();
        if (event >= 0)
            emit eventClicked(uint32_t(event));
    });
    connect(m_opsView, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const QString name = m_opsProxy->data(index, MemoryOpsModel::NameRole).toString();
        if (!name.isEmpty())
            emit opNameClicked(name);
    });
    setDocument(nullptr);
}

void MemoryEventsPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_blocks->setDocument(m_doc);
    m_ops->setDocument(m_doc);
    m_blocksView->sortByColumn(MemoryBlocksModel::SizeColumn, Qt::DescendingOrder);
    m_opsView->sortByColumn(MemoryOpsModel::AllocBytesColumn, Qt::DescendingOrder);
    m_opsView->resizeColumnToContents(MemoryOpsModel::OpColumn);
    if (!m_doc || m_doc->trace->memory.empty()) {
        m_summary->setText(m_doc ? tr("This trace was recorded without profile_memory=True: it has no [memory] events.")
                                 : tr("Open a trace recorded with profile_memory=True."));
        return;
    }
    const memory::MemoryAnalysis& a = m_doc->memory;
    uint64_t live = 0;
    int64_t liveBytes = 0;
    std::vector<int64_t> livePerDevice(a.devices.size(), 0); // beside the allocator's totals below
    for (const memory::MemoryBlock& b : a.blocks)
        if (b.liveAtEnd) {
            ++live;
            liveBytes += b.bytes;
            livePerDevice[b.device] += b.bytes;
        }
    QString text = tr("%1 allocations paired with their frees; %2 (%3) allocated in the trace and never freed")
                       .arg(a.blocks.size())
                       .arg(live)
                       .arg(QString::fromStdString(stats::formatBytes(liveBytes)));
    // The allocator's total at the end also holds what was allocated before the trace began (`tilescope-cli
    // memory`'s "final allocated"): said where it differs, so the two figures don't read as a contradiction.
    for (size_t d = 0; d < a.devices.size(); ++d)
        if (a.devices[d].finalAllocated > livePerDevice[d] && a.devices[d].allocs > 0)
            text += tr("; the allocator's total on %1 at the end is %2 (it also counts what was allocated before the trace began)")
                        .arg(QString::fromStdString(a.devices[d].name),
                             QString::fromStdString(stats::formatBytes(a.devices[d].finalAllocated)));
    text += QStringLiteral(".");
    if (!a.hasAddresses)
        text = tr("This trace's [memory] records carry no addresses (PyTorch 1.8 format): allocations cannot be paired with frees.");
    m_summary->setText(text);
}

QString MemoryEventsPanel::summaryText() const { return m_summary->text(); }
