// SPDX-License-Identifier: MIT
// The report's pictures and File > Export Report: the app's widgets draw real pictures offscreen, the HTML
// carries them inline, and a browser (headless Chromium, when installed) renders the file with them.
#include "testutil.h"

#include "answer/answerreport.h"
#include "mainwindow.h"
#include "uitestutil.h"
#include "findings/diagnose.h"
#include "reportexport.h"
#include "reportimages.h"
#include "tracedocument.h"
#include "workerjob.h"

#include <QApplication>
#include <QFileDialog>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace tilescope;

namespace {

std::shared_ptr<const TraceDocument> document(const std::string& workload)
{
    return TraceDocument::build(QString::fromStdString(testutil::workloadTrace(workload)), {}, {});
}

// Colours a picture uses: a drawn plot has many, a blank or single-colour one one or two.
size_t distinctColours(const QImage& image)
{
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return colours.size();
}

// Pixels of a clear hue (curves, bands, bars, roofs), not white, grey or black (axes, grid, text).
qint64 colouredPixels(const QImage& image)
{
    qint64 n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            n += std::max({qRed(p), qGreen(p), qBlue(p)}) - std::min({qRed(p), qGreen(p), qBlue(p)}) > 40;
        }
    return n;
}

// Pixels that are not (near) white.
qint64 inkedPixels(const QImage& image)
{
    qint64 n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            n += qRed(p) < 235 || qGreen(p) < 235 || qBlue(p) < 235;
        }
    return n;
}

// Writes via File > Export Report's code path and waits for its word.
QString exportAndWait(const std::shared_ptr<const TraceDocument>& doc, const QString& path, bool& ok)
{
    WorkerJob job;
    QString message;
    bool finished = false;
    exportReport(doc, path, job, [&](bool success, const QString& m) {
        ok = success;
        message = m;
        finished = true;
    });
    if (!QTest::qWaitFor([&] { return finished; }, 60000))
        return QStringLiteral("(timed out)");
    return message;
}

// Chromium's screenshot of an HTML file (tall enough for the whole page, so two reports compare whole), or a null image (and why in
// `problem`).
QImage chromiumScreenshot(const QString& chromium, const QString& html, const QString& png, const QString& profile, QString& problem)
{
    QProcess p;
    p.start(chromium,
            {QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
             QStringLiteral("--hide-scrollbars"), QStringLiteral("--user-data-dir=") + profile, QStringLiteral("--screenshot=") + png,
             QStringLiteral("--window-size=1200,9000"), QUrl::fromLocalFile(html).toString()});
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        problem = QStringLiteral("chromium did not finish in 120 s");
        return {};
    }
    QImage image(png);
    if (image.isNull())
        problem = QStringLiteral("chromium wrote no readable PNG (exit %1): %2")
                      .arg(p.exitCode())
                      .arg(QString::fromLocal8Bit(p.readAllStandardError().right(2000)));
    return image;
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT

private slots:
    void pictures()
    {
        const auto doc = document("memory_churn");
        const ReportImageSizes sizes;
        const auto images = renderReportImages(doc, sizes);
        QCOMPARE(images.size(), size_t(3));
        const std::map<std::string, QSize> expected{
            {answer::kTimelineImage, sizes.timeline}, {answer::kRooflineImage, sizes.roofline}, {answer::kMemoryImage, sizes.memory}};
        for (const answer::ReportImage& i : images) {
            QVERIFY2(expected.contains(i.key), i.key.c_str());
            const QImage image = QImage::fromData(QByteArray::fromStdString(i.png), "PNG");
            QVERIFY2(!image.isNull(), i.key.c_str());
            // The timeline is cut to its lanes' height; the others are drawn at the size asked for.
            const QSize size = image.size() / image.devicePixelRatio();
            QCOMPARE(size.width(), expected.at(i.key).width());
            if (i.key == answer::kTimelineImage)
                QVERIFY(size.height() >= 160 && size.height() <= expected.at(i.key).height());
            else
                QCOMPARE(size.height(), expected.at(i.key).height());
            QVERIFY2(!isBlankImage(image), i.key.c_str());
            // Axes, text, bars and curves, not a flat fill with a frame.
            QVERIFY2(distinctColours(image) >= 8,
                     qPrintable(QStringLiteral("%1: %2 colours").arg(QString::fromStdString(i.key)).arg(distinctColours(image))));
            QVERIFY(!i.caption.empty());
            // What the picture is for is drawn: the memory band (not only axes and a legend), the timeline's
            // boxes, the roofline's roofs.
            // (Without its replot the memory graph had 98, with it about 3800: the band's fill is pale.)
            const qint64 coloured = colouredPixels(image), least = i.key == answer::kTimelineImage ? 5000 : 1000;
            QVERIFY2(coloured >= least,
                     qPrintable(QStringLiteral("%1: %2 coloured pixels").arg(QString::fromStdString(i.key)).arg(coloured)));
        }
        // launch_bound has no [memory] records: no memory picture.
        const auto plain = renderReportImages(document("launch_bound"));
        QCOMPARE(plain.size(), size_t(2));
        for (const answer::ReportImage& i : plain)
            QVERIFY(i.key != answer::kMemoryImage);
        QVERIFY(isBlankImage(QImage()));
        QImage white(20, 20, QImage::Format_RGB32);
        white.fill(Qt::white);
        QVERIFY(isBlankImage(white));
    }

    // File > Export Report… in the window: the dialog's file gets the report, the status bar says so.
    void menuExport()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("memory_churn")));
        QAction* action = testutil::menuAction(w, QStringLiteral("Export &Report…"));
        QVERIFY(action);
        QTemporaryDir dir;
        // The dialog offers TRACE.report.html; accepted in the temporary folder.
        const QString path = dir.filePath(QStringLiteral("trace.json.report.html"));
        QTimer::singleShot(200, [&dir] {
            auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            dialog->setDirectory(dir.path());
            QMetaObject::invokeMethod(dialog, "accept"); // protected in QFileDialog, a slot of QDialog
        });
        action->trigger();
        QVERIFY(QTest::qWaitFor([&] { return w.statusBar()->currentMessage().startsWith(QStringLiteral("Wrote ")); }, 60000));
        QVERIFY2(w.statusBar()->currentMessage().contains(path), qPrintable(w.statusBar()->currentMessage()));
        QVERIFY(testutil::contains(testutil::readFile(path.toStdString()), "data:image/png;base64,"));
    }

    void exportMarkdown()
    {
        QTemporaryDir dir;
        bool ok = false;
        const QString message = exportAndWait(document("memory_churn"), dir.filePath(QStringLiteral("r.md")), ok);
        QVERIFY2(ok, qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("3 picture")), qPrintable(message));
        for (const char* key : {answer::kTimelineImage, answer::kRooflineImage, answer::kMemoryImage}) {
            const QImage image(dir.filePath(QStringLiteral("r.%1.png").arg(QLatin1String(key))));
            QVERIFY2(!image.isNull() && !isBlankImage(image), key);
        }
        QVERIFY(testutil::contains(testutil::readFile(dir.filePath(QStringLiteral("r.md")).toStdString()), "](r.roofline.png)"));
    }

    void exportHtmlRendersInChromium()
    {
        QTemporaryDir dir;
        const auto doc = document("memory_churn");
        bool ok = false;
        // No suffix: .html is added.
        const QString message = exportAndWait(doc, dir.filePath(QStringLiteral("report")), ok);
        QVERIFY2(ok, qPrintable(message));
        const QString html = dir.filePath(QStringLiteral("report.html"));
        const std::string text = testutil::readFile(html.toStdString());
        size_t uris = 0;
        for (size_t at = 0; (at = text.find("src=\"data:image/png;base64,", at)) != std::string::npos; ++at)
            ++uris;
        QCOMPARE(uris, size_t(3));

        const QString chromium = QStandardPaths::findExecutable(QStringLiteral("chromium"));
        if (chromium.isEmpty())
            QSKIP("chromium is not on PATH (packaging/install-deps.sh installs it for tests): the browser rendering is not checked");
        QString problem;
        const QImage shot = chromiumScreenshot(chromium, html, dir.filePath(QStringLiteral("shot.png")),
                                               dir.filePath(QStringLiteral("profile")), problem);
        QVERIFY2(!shot.isNull(), qPrintable(problem));
        QCOMPARE(shot.width(), 1200);
        QVERIFY(!isBlankImage(shot));
        // The same report without pictures, rendered the same way: the pictures must add ink where they are.
        findings::DiagnoseInputs diagnoseInputs;
        diagnoseInputs.averages = &doc->averages;
        diagnoseInputs.overlap = &doc->overlap;
        diagnoseInputs.memory = &doc->memory;
        diagnoseInputs.classification = &doc->classification;
        const auto found = findings::diagnose(*doc->trace, diagnoseInputs);
        const std::string bare = answer::renderHtml(answer::gatherAnswerReport([&] {
                                                        answer::AnswerInputs in;
                                                        in.findings = &found;
                                                        in.tracePath = doc->path.toStdString();
                                                        in.trace = doc->trace.get();
                                                        in.averages = &doc->averages;
                                                        in.overlap = &doc->overlap;
                                                        in.classification = &doc->classification;
                                                        in.memory = &doc->memory;
                                                        return in;
                                                    }()),
                                                    {});
        const QString bareHtml = dir.filePath(QStringLiteral("bare.html"));
        {
            QFile f(bareHtml);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(bare));
        }
        const QImage bareShot = chromiumScreenshot(chromium, bareHtml, dir.filePath(QStringLiteral("bare.png")),
                                                   dir.filePath(QStringLiteral("profile2")), problem);
        QVERIFY2(!bareShot.isNull(), qPrintable(problem));
        const qint64 withPictures = inkedPixels(shot), without = inkedPixels(bareShot);
        QVERIFY2(withPictures > without + 100000,
                 qPrintable(QStringLiteral("inked pixels: %1 with pictures, %2 without").arg(withPictures).arg(without)));
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
