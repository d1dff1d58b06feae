// SPDX-License-Identifier: MIT
// The Profile dialog as a user drives it (offscreen): fill the form, Profile, watch progress, land in the
// timeline; Cancel ends a hanging session; recent sessions re-fill the form. Uses Debian's python3-torch.
#include "testutil.h"

#include "mainwindow.h"
#include "session/captureargs.h"
#include "session/commandline.h"
#include "profiledialog.h"
#include "tracedocument.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <QScrollArea>
#include <QScrollBar>

using namespace tilescope;
using namespace tilescope::session;

namespace {

SessionTools sourceTools()
{
    SessionTools t;
    t.harness = std::string(TILESCOPE_SOURCE_DIR) + "/resources/harness/tilescope_harness.py";
    return t;
}

} // namespace

class TestProfileDialog : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;

    SessionConfig kernelConfig(const QString& outName) const
    {
        SessionConfig c;
        c.mode = SessionMode::Kernel;
        c.kernel = testutil::sessionData("kernels.py") + ":broadcast_mm";
        c.reference = testutil::sessionData("kernels.py") + ":reference_mm";
        c.inputs = "f32:32x16,f32:16x8";
        c.python = "/usr/bin/python3";
        c.device = "cpu";
        c.warmupIterations = 2;
        c.measuredIterations = 3;
        c.flopsPerCall = 8192;
        c.outputDirectory = m_tmp.filePath(outName).toStdString();
        return c;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_profiledialog"));
        QSettings().clear();
        QVERIFY(m_tmp.isValid());
    }

    // The dialog fits a 1366x768 laptop's screen (its least height was 868 px, the buttons below the screen's
    // edge): the form scrolls there, and only there.
    void fitsAShortScreen()
    {
        ProfileDialog d;
        d.show();
        QVERIFY2(d.minimumSizeHint().height() <= 700, qPrintable(QString::number(d.minimumSizeHint().height())));
        auto* form = d.findChild<QScrollArea*>();
        QVERIFY(form);
        d.resize(760, 880); // the size it asks for where the screen has room
        QTRY_VERIFY(!form->verticalScrollBar()->isVisible());
        d.resize(760, 700);
        QTRY_VERIFY(form->verticalScrollBar()->isVisible());
    }

    void formRoundTripsTheConfig()
    {
        ProfileDialog d;
        SessionConfig c = kernelConfig(QStringLiteral("form"));
        c.kernelFactory = true;
        c.environment = {{"A", "1"}, {"B", "x=y"}};
        c.cudaActivity = false;
        c.profileMemory = true;
        c.timeoutSeconds = 30;
        c.rtol = 1e-3;
        c.memorySnapshot = true;
        c.memoryTimeline = true;
        c.memorySnapshotMaxEntries = 4096;
        d.setConfig(c);
        QCOMPARE(toJson(d.config()), toJson(c));
        // The command line below the form is the same session for tilescope-cli.
        QCOMPARE(d.commandPreview()->text().toStdString(), shellQuoted(captureArguments(c)));
        SessionConfig script;
        script.script = "/x/train.py";
        // The argument field shows the arguments shell-quoted; what it splits back must be what was set.
        script.args = {"--epochs", "2", "a b", "it's", "", "$HOME", "back\\slash", "say \"hi\""};
        script.schedule = ProfileSchedule{1, 2, 3, 0};
        script.outputDirectory = "/tmp/o";
        d.setConfig(script);
        QCOMPARE(toJson(d.config()), toJson(script));
    }

    void memoryBoxesReachTheConfigAndTheCommandLine()
    {
        ProfileDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        d.setConfig(kernelConfig(QStringLiteral("memory")));
        QCheckBox* snapshot = d.memorySnapshotBox();
        QCheckBox* timeline = d.memoryTimelineBox();
        QVERIFY(!snapshot->isChecked() && !timeline->isChecked());
        QVERIFY(snapshot->toolTip().contains(QStringLiteral("CUDA")) && timeline->toolTip().contains(QStringLiteral("CUDA")));
        QVERIFY(!d.commandPreview()->text().contains(QStringLiteral("--memory")));
        // The user ticks them: the config and the command line follow.
        QTest::mouseClick(snapshot, Qt::LeftButton, {}, QPoint(4, snapshot->height() / 2));
        QVERIFY(snapshot->isChecked());
        QVERIFY(d.config().memorySnapshot);
        QVERIFY(!d.config().memoryTimeline);
        QVERIFY(d.commandPreview()->text().contains(QStringLiteral(" --memory-snapshot")));
        QVERIFY(!d.commandPreview()->text().contains(QStringLiteral("--memory-timeline")));
        QTest::mouseClick(timeline, Qt::LeftButton, {}, QPoint(4, timeline->height() / 2));
        QVERIFY(d.config().memoryTimeline);
        QVERIFY(d.commandPreview()->text().contains(QStringLiteral(" --memory-timeline")));
        QCOMPARE(d.commandPreview()->text().toStdString(), shellQuoted(captureArguments(d.config())));
        // Only the Python harness records them: a TorchScript session leaves them off instead of failing.
        QComboBox* mode = d.modeBox();
        mode->setCurrentIndex(mode->findData(int(SessionMode::TorchScript)));
        QVERIFY(!snapshot->isEnabled() && !timeline->isEnabled());
        QVERIFY(!d.config().memorySnapshot && !d.config().memoryTimeline);
        QVERIFY(!d.commandPreview()->text().contains(QStringLiteral("--memory")));
        mode->setCurrentIndex(mode->findData(int(SessionMode::Script)));
        QVERIFY(snapshot->isEnabled());
        QVERIFY(d.config().memorySnapshot && d.config().memoryTimeline);
    }

    void invalidFormSaysWhyAndStartsNothing()
    {
        ProfileDialog d;
        SessionConfig c = kernelConfig(QStringLiteral("invalid"));
        c.reference.clear();
        d.setConfig(c);
        d.startSession();
        QVERIFY(!d.isRunning());
        QVERIFY(d.profileButton()->isEnabled());
        QVERIFY(d.findChild<QLabel*>() != nullptr);
        bool said = false;
        for (const QLabel* label : d.findChildren<QLabel*>())
            said = said || label->text().contains(QStringLiteral("no reference given"));
        QVERIFY(said);
    }

    void profileOpensTheResultInTheMainWindow()
    {
        MainWindow w;
        w.show();
        w.showProfileDialog();
        ProfileDialog* d = w.profileDialog();
        QVERIFY(d);
        d->setTools(sourceTools());
        const SessionConfig c = kernelConfig(QStringLiteral("run"));
        d->setConfig(c);
        QSignalSpy opened(&w, &MainWindow::documentChanged);
        QTest::mouseClick(d->profileButton(), Qt::LeftButton);
        QVERIFY(d->isRunning());
        QVERIFY(d->cancelButton()->isEnabled());
        QVERIFY(!d->profileButton()->isEnabled());
        QVERIFY(opened.wait(120000));
        QVERIFY(w.document());
        QCOMPARE(w.document()->path, QString::fromStdString(c.outputDirectory + "/trace.pt.trace.json"));
        QVERIFY(testutil::countNamed(*w.document()->trace, "tilelang_kernel") > 0);
        QVERIFY(testutil::countNamed(*w.document()->trace, "torch_ref") > 0);
        QVERIFY(!d->isRunning());
        QVERIFY(d->log()->toPlainText().contains(QStringLiteral("[warmup] warm-up 2/2")));
        QVERIFY(d->log()->toPlainText().contains(QStringLiteral("allclose passed")));
        QCOMPARE(d->progress()->value(), d->progress()->maximum());
        // The session is remembered and re-fills the form.
        const auto recent = ProfileDialog::recentSessions();
        QVERIFY(!recent.isEmpty());
        QCOMPARE(toJson(recent.front()), toJson(c));
        QVERIFY(d->recent()->count() >= 2);
    }

    void sessionFolderOpensItsTrace()
    {
        MainWindow w;
        QSignalSpy opened(&w, &MainWindow::documentChanged);
        w.openFile(m_tmp.filePath(QStringLiteral("run")));
        QVERIFY(opened.wait(30000));
        QVERIFY(w.document()->path.endsWith(QStringLiteral("run/trace.pt.trace.json")));
    }

    void openPartialTraceOnlyAfterAFailedRunWithATrace()
    {
        ProfileDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QPushButton* partial = nullptr;
        for (QPushButton* b : d.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Open Partial Trace"))
                partial = b;
        QVERIFY(partial);
        QVERIFY(!partial->isVisible() || !partial->isEnabled());
    }

    void aSecondSessionDoesNotReuseTheFirstOnesFolderSilently()
    {
        ProfileDialog d;
        d.setTools(sourceTools());
        SessionConfig c;
        c.script = testutil::sessionData("crash.py");
        c.python = "/usr/bin/python3";
        c.device = "cpu";
        c.outputDirectory = m_tmp.filePath(QStringLiteral("reused")).toStdString();
        d.setConfig(c);
        d.startSession();
        QTRY_VERIFY_WITH_TIMEOUT(!d.isRunning(), 60000);
        QVERIFY(QDir(m_tmp.filePath(QStringLiteral("reused"))).exists());
        // Profile again: the dialog asks, and "Use New Folder" picks a fresh sibling folder.
        QString asked;
        QTimer answer;
        connect(&answer, &QTimer::timeout, this, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box)
                return;
            asked = box->text();
            for (QAbstractButton* b : box->buttons())
                if (b->text() == QStringLiteral("Use New Folder"))
                    b->click();
        });
        answer.start(50);
        d.startSession();
        QTRY_VERIFY_WITH_TIMEOUT(!asked.isEmpty(), 10000);
        QVERIFY(asked.contains(QStringLiteral("reused")));
        QCOMPARE(QString::fromStdString(d.config().outputDirectory), m_tmp.filePath(QStringLiteral("reused-2")));
        QTRY_VERIFY_WITH_TIMEOUT(!d.isRunning(), 60000);
        QVERIFY(QDir(m_tmp.filePath(QStringLiteral("reused-2"))).exists());
    }

    void cancelEndsAHangingSession()
    {
        ProfileDialog d;
        d.setTools(sourceTools());
        SessionConfig c;
        c.script = testutil::sessionData("hang.py");
        c.python = "/usr/bin/python3";
        c.device = "cpu";
        c.outputDirectory = m_tmp.filePath(QStringLiteral("hang")).toStdString();
        d.setConfig(c);
        QSignalSpy finished(&d, &ProfileDialog::sessionFinished);
        d.startSession();
        QTRY_VERIFY_WITH_TIMEOUT(d.log()->toPlainText().contains(QStringLiteral("child ")), 60000);
        QTest::mouseClick(d.cancelButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!d.isRunning(), 30000);
        QCOMPARE(finished.count(), 0); // nothing to open
        QVERIFY(d.log()->toPlainText().contains(QStringLiteral("session cancelled")));
        QVERIFY(d.profileButton()->isEnabled());
    }
};

QTEST_MAIN(TestProfileDialog)
#include "tst_profiledialog.moc"
