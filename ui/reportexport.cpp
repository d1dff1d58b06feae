// SPDX-License-Identifier: MIT
#include "reportexport.h"

#include "answer/answerreport.h"
#include "findings/diagnose.h"
#include "io/tracefileerror.h"
#include "reportimages.h"
#include "tracedocument.h"
#include "workerjob.h"

#include <QCoreApplication>

void exportReport(const std::shared_ptr<const TraceDocument>& document, const QString& path, WorkerJob& job,
                  std::function<void(bool ok, const QString& message)> done)
{
    using namespace tilescope;
    if (!document) {
        done(false, QCoreApplication::translate("exportReport", "Open a trace first."));
        return;
    }
    std::string out = path.toStdString();
    if (!answer::reportFormatOf(out))
        out += ".html";
    auto images = std::make_shared<const std::vector<answer::ReportImage>>(renderReportImages(document));
    job.start([document, images, out, done = std::move(done)](const WorkerJob::Run& run) {
        bool ok = true;
        QString message;
        try {
            // The figures the document holds: the same the CLI's report computes from the trace.
            answer::AnswerInputs inputs;
            inputs.tracePath = document->path.toStdString();
            inputs.trace = document->trace.get();
            inputs.averages = &document->averages;
            inputs.overlap = &document->overlap;
            inputs.classification = &document->classification;
            inputs.memory = &document->memory;
            const answer::AnswerExtras extras = answer::computeAnswerExtras(inputs);
            inputs.findings = &extras.findings;
            inputs.compareLines = extras.compareLines;
            const auto written = answer::writeAnswerReport(out, answer::gatherAnswerReport(inputs), *images);
            message = QCoreApplication::translate("exportReport", "Wrote %1").arg(QString::fromStdString(written.front()));
            if (written.size() > 1)
                message += QCoreApplication::translate("exportReport", " and %n picture(s) beside it", nullptr, int(written.size() - 1));
        } catch (const io::TraceFileError& e) {
            ok = false;
            message = QString::fromStdString(e.what());
        }
        run.finish([done, ok, message] { done(ok, message); });
    });
}
