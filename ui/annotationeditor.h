// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <QDialog>

#include <vector>

class QLabel;
class QTableWidget;

// Edits the FLOPs and bytes per call that custom kernels (TileLang, Triton, CUDA) and regions need for
// the roofline: one row an annotation (region label or kernel name / re:regex, FLOPs, bytes, roof, source).
// Save writes the TRACE.annotations.json sidecar; the trace itself is never touched.
class AnnotationEditor : public QDialog
{
    Q_OBJECT
public:
    // `sidecarPath` empty: the trace is not a file (the bundled sample), so changes apply but cannot be saved.
    AnnotationEditor(const std::vector<tilescope::roofline::Annotation>& annotations, const QString& sidecarPath,
                     QWidget* parent = nullptr);

    void addRow(const tilescope::roofline::Annotation& annotation);
    // Adds a row for a kernel or region by name (the Roofline's selection), work left to fill in.
    void addTarget(const std::string& name, bool isRegion);
    QTableWidget* table() const { return m_table; }

    // The rows as annotations; an empty optional and the problems on the dialog when a row is invalid.
    std::optional<std::vector<tilescope::roofline::Annotation>> annotations();
    // Validates, writes the sidecar and accepts; false (and why, on the dialog) otherwise.
    bool save();
    const std::vector<tilescope::roofline::Annotation>& result() const { return m_result; }
    QString problems() const;
    QString savedTo() const { return m_saved ? m_sidecar : QString(); } // the file Save wrote; empty after Apply

private:
    QTableWidget* m_table;
    QLabel* m_status;
    QString m_sidecar;
    std::vector<tilescope::roofline::Annotation> m_result;
    bool m_saved = false;
};
