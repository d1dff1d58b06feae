// SPDX-License-Identifier: MIT
#include "traceloadjob.h"

#include "io/tracefileerror.h"
#include "trace/traceloader.h"
#include "tracedocument.h"

TraceLoadJob::TraceLoadJob(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const TraceDocument>>();
}

TraceLoadJob::~TraceLoadJob() = default; // m_worker cancels the load and drops its results

void TraceLoadJob::start(const QString& path, const QByteArray& bytes, bool partial)
{
    cancel();
    // Everything the worker uses is captured by value; `this` is only touched in what it posts, which
    // WorkerJob drops once this job is gone or restarted.
    m_worker.start([this, path, bytes, partial, beforeAnalyses = m_beforeAnalyses](const WorkerJob::Run& run) {
        tilescope::trace::LoadOptions options;
        options.partial = partial;
        options.cancel = run.cancelFlag();
        options.progress = [this, run](const tilescope::trace::LoadProgress& p) {
            run.post([this, p] { emit progress(qint64(p.inputBytesRead), qint64(p.inputBytesTotal), qint64(p.events)); });
        };
        try {
            std::shared_ptr<const TraceDocument> first = TraceDocument::buildFirstFrame(path, bytes, options);
            run.post([this, first] { emit firstFrame(first); });
            if (beforeAnalyses)
                beforeAnalyses();
            TraceDocument::AnalysisCallbacks callbacks;
            callbacks.cancel = run.cancelFlag();
            callbacks.progress = [this, run](int done, int total, const char* what) {
                run.post([this, done, total, text = QString::fromUtf8(what)] { emit analysisProgress(done, total, text); });
            };
            callbacks.publish = [this, run](std::shared_ptr<const TraceDocument> more) { run.post([this, more] { emit analysed(more); }); };
            auto document = TraceDocument::analyse(*first, callbacks);
            run.finish([this, document] { emit finished(document); });
        } catch (const tilescope::io::LoadCancelled&) {
            run.finish([this] { emit cancelled(); });
        } catch (const tilescope::io::TraceFileError& e) {
            const QString message = QString::fromUtf8(e.what());
            const qint64 complete = qint64(e.completeEventsBefore());
            run.finish([this, path, message, complete] { emit failed(path, message, complete); });
        } catch (const std::exception& e) {
            const QString message = QString::fromUtf8(e.what());
            run.finish([this, path, message] { emit failed(path, message, 0); });
        }
    });
}

void TraceLoadJob::cancel()
{
    if (m_worker.drop())
        emit cancelled();
}
