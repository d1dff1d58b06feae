// SPDX-License-Identifier: MIT
#include "annotationeditor.h"

#include "io/tracefileerror.h"
#include "roofline/annotationfile.h"
#include "roofline/sourceinspect.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <filesystem>

using namespace tilescope;

namespace {

enum Column { Target, Name, Flops, Bytes, Roof, Source, ColumnCount };
const char* const kRoofs[] = {"", "fp32", "tf32", "bf16", "fp16", "fp8", "fp64", "int8"};

QString number(const std::optional<double>& v) { return v ? QString::number(*v, 'g', 17) : QString(); }

} // namespace

AnnotationEditor::AnnotationEditor(const std::vector<roofline::Annotation>& initial, const QString& sidecarPath, QWidget* parent)
    : QDialog(parent)
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_status(new QLabel(this))
    , m_sidecar(sidecarPath)
{
    setWindowTitle(tr("Annotations: work per call"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Custom kernels have no op to read their work from. Give FLOPs and bytes per call for a "
                                "record_function region or a kernel (exact name, or re: and a regular expression). "
                                "Roof: the compute roof to compare against (empty: from the dtype or the source)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table->setHorizontalHeaderLabels({tr("Target"), tr("Name"), tr("FLOPs / call"), tr("Bytes / call"), tr("Roof"), tr("Source (.cu)")});
    m_table->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_table->horizontalHeaderItem(Flops)->setToolTip(tr("e.g. 2·M·N·K for a GEMM"));
    m_table->horizontalHeaderItem(Bytes)->setToolTip(tr("Compulsory DRAM traffic: inputs read plus outputs written"));
    m_table->horizontalHeaderItem(Source)->setToolTip(tr("Generated CUDA source, relative to the sidecar's folder"));
    layout->addWidget(m_table, 1);
    auto* rowButtons = new QHBoxLayout;
    auto* add = new QPushButton(tr("Add Row"), this);
    auto* remove = new QPushButton(tr("Remove Row"), this);
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch();
    layout->addLayout(rowButtons);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    // Where Save writes, in view rather than only in a tooltip: beside the trace, read by classify too.
    auto* target = new QLabel(m_sidecar.isEmpty() ? tr("This trace is not a file: the annotations can be applied, not saved.")
                                                  : tr("Save writes %1 (read by tilescope-cli classify and diagnose too).").arg(m_sidecar),
                              this);
    target->setWordWrap(true);
    target->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(target);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Save)->setEnabled(!m_sidecar.isEmpty());
    buttons->button(QDialogButtonBox::Save)
        ->setToolTip(m_sidecar.isEmpty() ? tr("This trace is not a file: apply only") : tr("Write %1 and apply").arg(m_sidecar));
    buttons->button(QDialogButtonBox::Apply)->setToolTip(tr("Use these annotations now, without saving them"));
    layout->addWidget(buttons);
    connect(add, &QPushButton::clicked, this, [this] { addRow({}); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            m_table->removeRow(m_table->currentRow());
    });
    connect(buttons->button(QDialogButtonBox::Save), &QPushButton::clicked, this, &AnnotationEditor::save);
    connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, [this] {
        if (auto rows = annotations()) {
            m_result = std::move(*rows);
            accept();
        }
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (const auto& a : initial)
        addRow(a);
    resize(860, 420);
}

void AnnotationEditor::addRow(const roofline::Annotation& a)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto* target = new QComboBox(m_table);
    target->addItems({tr("region"), tr("kernel")});
    target->setCurrentIndex(a.region.empty() && !a.kernel.empty() ? 1 : 0);
    m_table->setCellWidget(row, Target, target);
    m_table->setItem(row, Name, new QTableWidgetItem(QString::fromStdString(a.region.empty() ? a.kernel : a.region)));
    m_table->setItem(row, Flops, new QTableWidgetItem(number(a.flops)));
    m_table->setItem(row, Bytes, new QTableWidgetItem(number(a.bytes)));
    auto* roof = new QComboBox(m_table);
    for (const char* r : kRoofs)
        roof->addItem(QString::fromLatin1(r));
    roof->setCurrentIndex(std::max(0, roof->findText(QString::fromStdString(a.roof))));
    m_table->setCellWidget(row, Roof, roof);
    m_table->setItem(row, Source, new QTableWidgetItem(QString::fromStdString(a.sourcePath)));
}

void AnnotationEditor::addTarget(const std::string& name, bool isRegion)
{
    roofline::Annotation a;
    (isRegion ? a.region : a.kernel) = name;
    addRow(a);
    m_table->setCurrentCell(m_table->rowCount() - 1, Flops);
}

std::optional<std::vector<roofline::Annotation>> AnnotationEditor::annotations()
{
    std::vector<roofline::Annotation> out;
    QStringList problems;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto text = [&](int column) { return m_table->item(row, column) ? m_table->item(row, column)->text().trimmed() : QString(); };
        const QString where = tr("row %1").arg(row + 1);
        roofline::Annotation a;
        const bool region = qobject_cast<QComboBox*>(m_table->cellWidget(row, Target))->currentIndex() == 0;
        const std::string name = text(Name).toStdString();
        if (name.empty()) {
            problems << where + tr(": no name");
            continue;
        }
        (region ? a.region : a.kernel) = name;
        // The number cells are text: what does not read as a number is said here; the rest of the
        // checks are the loader's (roofline::annotationProblems), so the editor saves what loads.
        for (auto [column, value, label] : {std::tuple{int(Flops), &a.flops, tr("FLOPs")}, {int(Bytes), &a.bytes, tr("bytes")}}) {
            if (text(column).isEmpty())
                continue;
            bool ok = false;
            const double v = text(column).toDouble(&ok);
            if (!ok)
                problems << where + tr(": %1 must be a number >= 0, not '%2'").arg(label, text(column));
            else
                *value = v;
        }
        a.roof = qobject_cast<QComboBox*>(m_table->cellWidget(row, Roof))->currentText().toStdString();
        a.sourcePath = text(Source).toStdString();
        for (const std::string& problem : roofline::annotationProblems(a))
            problems << where + QStringLiteral(": ") + QString::fromStdString(problem);
        try {
            roofline::inspectAnnotationSource(a, std::filesystem::path(m_sidecar.toStdString()).parent_path());
        } catch (const io::TraceFileError& e) {
            problems << where + QStringLiteral(": ") + QString::fromStdString(e.what());
        }
        out.push_back(std::move(a));
    }
    if (!problems.isEmpty()) {
        m_status->setText(problems.join(u'\n'));
        return std::nullopt;
    }
    m_status->clear();
    return out;
}

bool AnnotationEditor::save()
{
    auto rows = annotations();
    if (!rows || m_sidecar.isEmpty())
        return false;
    try {
        m_result = roofline::saveAnnotations(m_sidecar.toStdString(), *rows);
    } catch (const io::TraceFileError& e) {
        m_status->setText(QString::fromStdString(e.what()));
        return false;
    }
    m_saved = true;
    accept();
    return true;
}

QString AnnotationEditor::problems() const { return m_status->text(); }
