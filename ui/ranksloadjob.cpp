// SPDX-License-Identifier: MIT
#include "ranksloadjob.h"

#include "analysis/ranks.h"
#include "io/tracefileerror.h"
#include "trace/rankset.h"

RanksLoadJob::RanksLoadJob(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const tilescope::analysis::RanksReport>>();
}

void RanksLoadJob::start(const QString& folder)
{
    m_worker.start([this, folder](const WorkerJob::Run& run) {
        tilescope::trace::RankSetLoadOptions options;
        options.load.keepRawArgs = false;

        options.load.cancel = run.cancelFlag();
        options.load.progress = [this, run](const tilescope::trace::LoadProgress& p) {
            run.post([this, p] { emit progress(qint64(p.inputBytesRead), qint64(p.inputBytesTotal)); });
        };
        try {
            const std::vector<std::string> files = tilescope::trace::expandRankPaths({folder.toStdString()}, &options.folderFiles);
            const tilescope::trace::RankSet set = tilescope::trace::loadRankSet(files, options);
            auto report = std::make_shared<const tilescope::analysis::RanksReport>(tilescope::analysis::computeRanks(set));
            run.finish([this, folder, report] { emit finished(folder, report); });
        } catch (const tilescope::io::LoadCancelled&) {
            run.finish([this] { emit cancelled(); });
        } catch (const std::exception& e) {
            const QString message = QString::fromUtf8(e.what());
            run.finish([this, folder, message] { emit failed(folder, message); });
        }
    });
}

void RanksLoadJob::cancel()
{
    if (m_worker.drop())
        emit cancelled();
}
