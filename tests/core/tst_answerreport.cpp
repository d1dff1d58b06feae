// SPDX-License-Identifier: MIT
// The report (issue #12): its figures are the CLI's (summary, diagnose, memory run as tilescope-cli, and
// torch's own table), its HTML closes every tag and escapes every text, its Markdown names its pictures.
#include "testutil.h"

#include "analysis/overlap.h"
#include "answer/answerreport.h"
#include "answer/base64.h"
#include "answer/reportimagefiles.h"
#include "findings/diagnose.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"
#include "memory/memoryanalysis.h"
#include "roofline/classify.h"
#include "session/manifestwriter.h"
#include "session/sessionconfig.h"
#include "session/sessionfiles.h"
#include "stats/keyaverages.h"
#include "trace/namefit.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

#include <regex>
#include <set>

using namespace tilescope;

namespace {

struct Computed
{
    std::string path;
    std::unique_ptr<trace::Trace> t;
    stats::KeyAverages averages;
    analysis::OverlapReport overlap;
    memory::MemoryAnalysis memory;
    roofline::ClassifyReport classification;
    std::vector<findings::Finding> found;

    answer::AnswerInputs inputs() const
    {
        answer::AnswerInputs in;
        in.tracePath = path;
        in.trace = t.get();
        in.averages = &averages;
        in.overlap = &overlap;
        in.classification = &classification;
        in.memory = &memory;
        in.findings = &found;
        return in;
    }
};

std::unique_ptr<Computed> compute(const std::string& path)
{
    auto c = std::make_unique<Computed>();
    c->path = path;
    c->t = trace::loadTrace(path);
    c->averages = stats::computeKeyAverages(*c->t);
    c->overlap = analysis::computeOverlap(*c->t);
    c->memory = memory::analyzeMemory(*c->t);
    c->classification = roofline::classify(*c->t, {});
    findings::DiagnoseInputs diagnoseInputs;
    diagnoseInputs.averages = &c->averages;
    diagnoseInputs.overlap = &c->overlap;
    diagnoseInputs.memory = &c->memory;
    diagnoseInputs.classification = &c->classification;
    c->found = findings::diagnose(*c->t, diagnoseInputs);
    return c;
}

std::string cli(const QStringList& arguments)
{
    const auto run = testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments);
    if (run.exitCode != 0)
        qFatal("tilescope-cli %s failed: %s", qPrintable(arguments.join(QLatin1Char(' '))), run.err.constData());
    return run.out.toStdString();
}

// The cells of a torch table row: runs of text separated by two or more spaces.
std::vector<std::string> cellsOf(const std::string& row)
{
    std::vector<std::string> cells;
    static const std::regex separator("\\s{2,}");
    for (std::sregex_token_iterator i(row.begin(), row.end(), separator, -1), end; i != end; ++i)
        if (!i->str().empty())
            cells.push_back(i->str());
    return cells;
}

// The first data row of a torch table (the line after the second dashed rule).
std::string firstDataRow(const std::string& table)
{
    std::istringstream in(table);
    int rules = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("---"))
            ++rules;
        else if (rules == 2)
            return line;
    }
    return {};
}

std::string htmlEscapedForTest(const std::string& text)
{
    std::string out;
    for (const char c : text)
        out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;" : std::string(1, c);
    return out;
}

std::string markdownEscapedForTest(const std::string& text)
{
    std::string out;
    for (const char c : text)
        out += std::string(std::string_view("\\`*[]<>|#").find(c) != std::string_view::npos ? "\\" : "") + c;
    return out;
}

// Every tag opened is closed in order (void elements excepted), and nothing looks like a tag that is not one
// of ours: the check a browser's parser would not make for us.
QString tagProblem(const std::string& html)
{
    static const std::set<std::string> voids{"meta", "img", "br", "hr", "link", "!DOCTYPE"};
    static const std::set<std::string> known{"html",  "head",       "meta",  "title", "style", "body",    "header",  "h1",
                                             "h2",    "h3",         "p",     "nav",   "a",     "section", "ul",      "li",
                                             "table", "thead",      "tbody", "tr",    "th",    "td",      "pre",     "figure",
                                             "img",   "figcaption", "span",  "div",   "code",  "details", "summary", "!DOCTYPE"};
    std::vector<std::string> open;
    size_t i = 0;
    while ((i = html.find('<', i)) != std::string::npos) {
        const size_t close = html.find('>', i);
        if (close == std::string::npos)
            return QStringLiteral("a '<' without '>' at %1").arg(i);
        std::string tag = html.substr(i + 1, close - i - 1);
        const bool closing = tag.starts_with('/');
        if (closing)
            tag.erase(0, 1);
        const std::string name = tag.substr(0, tag.find_first_of(" \n"));
        if (!known.contains(name))
            return QStringLiteral("unknown tag <%1> at %2").arg(QString::fromStdString(name)).arg(i);
        if (closing) {
            if (open.empty() || open.back() != name)
                return QStringLiteral("</%1> closes %2 at %3")
                    .arg(QString::fromStdString(name), QString::fromStdString(open.empty() ? "nothing" : open.back()))
                    .arg(i);
            open.pop_back();
        } else if (!voids.contains(name)) {
            open.push_back(name);
            if (name == "style") { // CSS is text: skip to its end
                const size_t end = html.find("</style>", close);
                if (end == std::string::npos)
                    return QStringLiteral("<style> never closed");
                i = end;
                continue;
            }
        }
        i = close + 1;
    }
    if (!open.empty())
        return QStringLiteral("<%1> never closed").arg(QString::fromStdString(open.back()));
    return {};
}

} // namespace

class TestAnswerReport : public QObject
{
    Q_OBJECT

private slots:
    void figuresAreTheCliFigures_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::newRow("launch_bound") << QStringLiteral("launch_bound");
        QTest::newRow("memory_churn") << QStringLiteral("memory_churn");
    }
    void figuresAreTheCliFigures()
    {
        QFETCH(QString, workload);
        const std::string path = testutil::workloadTrace(workload.toStdString());
        const auto c = compute(path);
        const answer::AnswerReport report = answer::gatherAnswerReport(c->inputs());
        const std::string md = answer::renderMarkdown(report, {}, "report");
        const std::string html = answer::renderHtml(report, {});
        const QString problem = tagProblem(html);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        // The key-averages top row, cell by cell, as `summary` prints it (its default sort).
        const QString trace = QString::fromStdString(path);
        const std::string summaryRow = firstDataRow(
            cli({QStringLiteral("summary"), trace, QStringLiteral("--row-limit"), QStringLiteral("1")}));
        const std::vector<std::string> cells = cellsOf(summaryRow);
        QVERIFY2(cells.size() >= 10, summaryRow.c_str());
        std::string htmlRow = "<tr>", mdRow = "|";
        for (size_t i = 0; i < cells.size(); ++i) {
            htmlRow += std::string(i > 0 && (std::isdigit(static_cast<unsigned char>(cells[i][0])) || cells[i][0] == '-')
                                       ? "<td class=\"num\">"
                                       : "<td>")
                + htmlEscapedForTest(cells[i]) + "</td>";
            mdRow += " " + markdownEscapedForTest(cells[i]) + " |";
        }
        QVERIFY2(testutil::contains(html, htmlRow), htmlRow.c_str());
        QVERIFY2(testutil::contains(md, mdRow), mdRow.c_str());
        // launch_bound's top row by self CUDA time is torch's own first row too (ref_table.txt).
        if (workload == QLatin1String("launch_bound")) {
            const std::string torchRow = firstDataRow(testutil::readFile(testutil::dataPath("h200/launch_bound/ref_table.txt")));
            QCOMPARE(cellsOf(torchRow), cells);
        }
        QVERIFY(testutil::contains(md, "sorted by self_cuda_time_total"));
        // The note on GPU annotation rows (their time counted again in their kernels) where there are such rows.
        const bool gpuAnnotations = std::any_of(c->averages.rows.begin(), c->averages.rows.end(), [](const stats::KeyAverage& r) {
            return r.deviceType == stats::DeviceType::CUDA && r.isUserAnnotation;
        });
        QCOMPARE(testutil::contains(md, "Rows on device CUDA (annotation) are record_function ranges on the GPU"), gpuAnnotations);
        if (workload == QLatin1String("launch_bound"))
            QVERIFY(gpuAnnotations);

        // The findings diagnose gives: every id, and each one's evidence and next step word for word.
        const QJsonDocument diagnosed = QJsonDocument::fromJson(
            QByteArray::fromStdString(cli({QStringLiteral("diagnose"), trace, QStringLiteral("--format"), QStringLiteral("json")})));
        const QJsonArray findingsJson = diagnosed.object().value(QStringLiteral("findings")).toArray();
        QVERIFY(!findingsJson.isEmpty());
        QCOMPARE(size_t(findingsJson.size()), c->found.size());
        for (const QJsonValue& f : findingsJson) {
            const std::string id = f[QStringLiteral("id")].toString().toStdString();
            const std::string strength = f[QStringLiteral("strength")].toString().toStdString();
            QVERIFY2(testutil::contains(
                         html, "<span class=\"badge " + strength + "\">" + strength + "</span><span class=\"title\" title=\"" + id + ": "),
                     id.c_str());
            QVERIFY2(testutil::contains(md, "### [" + strength + "] " + id + ": "), id.c_str());
            // The report shows a long event name shortened (a section's NameShortener) and lists it in full once.
            std::vector<std::string> longNames;
            for (const QJsonValue& w : f[QStringLiteral("where")].toArray())
                if (const std::string name = w[QStringLiteral("event")].toString().toStdString(); name.size() > answer::kLongNameLength) {
                    QVERIFY2(testutil::contains(html, "<td>" + htmlEscapedForTest(name) + "</td>"),
                             "a shortened name is not listed in full");
                    longNames.push_back(name);
                }
            // The classified kernels' and regions' names are shortened too.
            for (const auto* list : {&c->classification.kernels, &c->classification.regions})
                for (const auto& k : *list)
                    if (k.name.size() > answer::kLongNameLength)
                        longNames.push_back(k.name);
            std::sort(longNames.begin(), longNames.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
            // These workloads' long names read apart when shortened alone, so each is its shortenedName.
            auto shown = [&](std::string text) {
                for (const std::string& name : longNames)
                    for (size_t at = 0; (at = text.find(name, at)) != std::string::npos;)
                        text.replace(at, name.size(), trace::shortenedName(name, answer::kLongNameLength));
                return text;
            };
            for (const QJsonValue& e : f[QStringLiteral("evidence")].toArray())
                QVERIFY2(testutil::contains(html, "<li>" + htmlEscapedForTest(shown(e.toString().toStdString())) + "</li>"),
                         qPrintable(e.toString()));
            QVERIFY(testutil::contains(html, htmlEscapedForTest(shown(f[QStringLiteral("next_step")].toString().toStdString()))));
        }
        if (workload == QLatin1String("launch_bound"))
            QVERIFY(testutil::contains(md, "] launch-bound: "));

        // The memory peak as `memory` prints it (memory_churn records memory; launch_bound does not).
        if (c->t->memory.empty()) {
            QVERIFY(testutil::contains(md, "without profile_memory=True"));
        } else {
            const std::string memoryText = cli({QStringLiteral("memory"), trace});
            std::istringstream in(memoryText);
            std::string peakLine;
            for (std::string line; std::getline(in, line);)
                if (line.find("peak allocated") != std::string::npos) {
                    peakLine = line;
                    break;
                }
            QVERIFY2(!peakLine.empty(), memoryText.c_str());
            QVERIFY2(testutil::contains(md, peakLine), peakLine.c_str());
            QVERIFY2(testutil::contains(html, htmlEscapedForTest(peakLine)), peakLine.c_str());
        }
        // No compare lines given: no Compare section.
        QVERIFY(!testutil::contains(html, "id=\"compare\""));
    }

    // `tilescope-cli report` writes what the core renders from the same figures; the desktop app draws the
    // pictures (`tilescope --report-images`) when it is built, and without it, or when it fails, the report
    // is written without them and says why.
    void cliReport()
    {
        QTemporaryDir dir;
        const std::string path = testutil::workloadTrace("memory_churn");
        const QString md = dir.filePath(QStringLiteral("r.md"));
        const auto run = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                              {QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"), md});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("wrote " + md.toUtf8()), run.out.constData());
        const std::string written = testutil::readFile(md.toStdString());
#if defined(TILESCOPE_APP_BUILT)
        const bool pictures = true;
        QVERIFY2(!run.err.contains("no pictures"), run.err.constData());
#else
        const bool pictures = false;
        QVERIFY2(run.err.contains("no pictures") && run.err.contains("not found"), run.err.constData());
#endif
        for (const char* key : {answer::kTimelineImage, answer::kRooflineImage, answer::kMemoryImage}) {
            const QString png = dir.filePath(QStringLiteral("r.%1.png").arg(QLatin1String(key)));
            QCOMPARE(QFile::exists(png), pictures);
            if (pictures)
                QVERIFY(testutil::readFile(png.toStdString()).starts_with("\x89PNG"));
        }
        // An app that fails, or hands back something that is not the pictures: the report without them, and why.
        const QString fakeApp = dir.filePath(QStringLiteral("fake-app.sh"));
        for (const auto& [script, reason] :
             {std::pair{"echo 'tilescope: error: it broke' >&2; exit 3", "exit code 3): tilescope: error: it broke"},
              std::pair{"echo '{\"images\": [{\"key\": \"../x\", \"caption\": \"c\"}]}' > \"$2/images.json\"",
                        "'../x' is not one of the report's pictures"},
              std::pair{"echo '{\"images\": [{\"key\": \"timeline\", \"caption\": \"c\"}]}' > \"$2/images.json\"",
                        "timeline.png: cannot read"}}) {
            io::writeTextFile(fakeApp.toStdString(), std::string("#!/bin/sh\n") + script + "\n", "the fake app");
            QFile::setPermissions(fakeApp, QFile::permissions(fakeApp) | QFileDevice::ExeOwner);
            const QString fakeMd = dir.filePath(QStringLiteral("f.md"));
            qputenv("TILESCOPE_APP", fakeApp.toUtf8());
            const auto failed = testutil::runProcess(
                QStringLiteral(TILESCOPE_CLI),
                {QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"), fakeMd, QStringLiteral("--force")});
            qunsetenv("TILESCOPE_APP");
            QVERIFY2(failed.exitCode == 0, failed.err.constData());
            QVERIFY2(failed.err.contains("no pictures") && failed.err.contains(reason), failed.err.constData());
            QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("f.timeline.png"))));
            QVERIFY(!testutil::contains(testutil::readFile(fakeMd.toStdString()), "!["));
        }
        // Without the picture lines, the file is the core's rendering of the core's figures.
        // A picture is four lines: "![caption](file)", "", "*caption*", "".
        std::istringstream in(written);
        std::string withoutPictures;
        for (std::string line; std::getline(in, line);) {
            if (line.starts_with("![")) {
                for (int i = 0; i < 3 && std::getline(in, line); ++i) { }
                continue;
            }
            withoutPictures += line + "\n";
        }
        const auto c = compute(path);
        const std::string expected = answer::renderMarkdown(answer::gatherAnswerReport(c->inputs()), {}, "r");
        QCOMPARE(withoutPictures, expected);
        // Bad usage: exit 2 and one line.
        for (const QStringList& args : {QStringList{QStringLiteral("report"), QString::fromStdString(path)},
                                        QStringList{QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"),
                                                    dir.filePath(QStringLiteral("r.pdf"))},
                                        QStringList{QStringLiteral("report"), QStringLiteral("/nonexistent/t.json"),
                                                    QStringLiteral("--out"), dir.filePath(QStringLiteral("fresh.md"))}}) {
            const auto bad = testutil::runProcess(QStringLiteral(TILESCOPE_CLI), args);
            QCOMPARE(bad.exitCode, 2);
            QVERIFY(bad.out.isEmpty());
            QVERIFY2(!bad.err.contains("already exists"), bad.err.constData()); // each refused for its own mistake
        }
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("fresh.md"))));
        // An existing file is refused, named, before any work, and left as it was; --force replaces it.
        io::writeTextFile(md.toStdString(), "kept\n", "the test's report");
        const auto exists = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                                 {QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"), md});
        QCOMPARE(exists.exitCode, 2);
        QVERIFY(exists.out.isEmpty());
        QVERIFY2(exists.err.contains((md + QStringLiteral(": already exists; pass --force to replace it")).toUtf8()),
                 exists.err.constData());
        QCOMPARE(testutil::readFile(md.toStdString()), std::string("kept\n"));
        const auto forced = testutil::runProcess(
            QStringLiteral(TILESCOPE_CLI),
            {QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"), md, QStringLiteral("--force")});
        QVERIFY2(forced.exitCode == 0, forced.err.constData());
        QVERIFY(testutil::readFile(md.toStdString()).starts_with("# "));
        // A folder that is not there is said as such, before any work (not as a picture that cannot be written).
        const QString missing = dir.filePath(QStringLiteral("nodir/r.md"));
        const auto noFolder = testutil::runProcess(
            QStringLiteral(TILESCOPE_CLI), {QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"), missing});
        QCOMPARE(noFolder.exitCode, 2);
        QVERIFY2(noFolder.err.contains(("the folder " + dir.filePath(QStringLiteral("nodir")) + " does not exist").toUtf8()),
                 noFolder.err.constData());
    }

    // report --gpu on a trace without deviceProperties: the text and the roofline picture both grade against the
    // chosen GPU, as for the trace that names it (the picture identical to that trace's).
    void cliReportWithAChosenGpu()
    {
#if !defined(TILESCOPE_APP_BUILT)
        QSKIP("the pictures need the desktop app");
#endif
        QTemporaryDir dir;
        const QString unnamed = dir.filePath(QStringLiteral("unnamed.json"));
        QVERIFY(testutil::writeWithoutDeviceProperties(QString::fromStdString(testutil::workloadTrace("gemm_compare")), unnamed));
        auto report = [&](const QString& trace, const QString& name, const QStringList& extra) {
            const QString md = dir.filePath(name + QStringLiteral(".md"));
            const auto run = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                                  QStringList{QStringLiteral("report"), trace, QStringLiteral("--out"), md} + extra);
            [&] { QVERIFY2(run.exitCode == 0 && !run.err.contains("no pictures"), run.err.constData()); }();
            return testutil::readFile(dir.filePath(name + QStringLiteral(".roofline.png")).toStdString());
        };
        const std::string named = report(QString::fromStdString(testutil::workloadTrace("gemm_compare")), QStringLiteral("named"), {});
        const std::string chosen = report(unnamed, QStringLiteral("chosen"), {QStringLiteral("--gpu"), QStringLiteral("H200")});
        const std::string none = report(unnamed, QStringLiteral("none"), {});
        QVERIFY(named.starts_with("\x89PNG"));
        QVERIFY(chosen == named);
        QVERIFY(none != named);
        const std::string text = testutil::readFile(dir.filePath(QStringLiteral("chosen.md")).toStdString());
        QVERIFY(testutil::contains(text, "the GPU chosen for it: the H200 SXM datasheet row (from 'H200')"));
    }

    // The report compares the default pair when the trace has it (gemm_compare: custom_kernel vs torch_ref),
    // with the verdict `tilescope-cli compare` prints; a trace without the pair has no Compare section.
    void compareWhenThePairExists()
    {
        QTemporaryDir dir;
        const QString md = dir.filePath(QStringLiteral("c.md"));
        const std::string path = testutil::workloadTrace("gemm_compare");
        const auto run = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                              {QStringLiteral("report"), QString::fromStdString(path), QStringLiteral("--out"), md});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const std::string written = testutil::readFile(md.toStdString());
        const QJsonObject compare = QJsonDocument::fromJson(
                                        QByteArray::fromStdString(cli({QStringLiteral("compare"), QString::fromStdString(path),
                                                                       QStringLiteral("--format"), QStringLiteral("json")})))
                                        .object();
        const std::string verdict = compare.value(QStringLiteral("verdict")).toString().toStdString();
        QVERIFY(verdict.starts_with("custom_kernel is "));
        QVERIFY2(written.find("## Compare") != std::string::npos, written.c_str());
        QVERIFY2(written.find(markdownEscapedForTest(verdict)) != std::string::npos, verdict.c_str());
        const auto c = compute(testutil::workloadTrace("launch_bound"));
        auto inputs = c->inputs();
        const answer::AnswerExtras extras = answer::computeAnswerExtras(inputs);
        QVERIFY(extras.compareLines.empty());
        QCOMPARE(extras.findings.size(), c->found.size());
        inputs.compareLines = extras.compareLines;
        QVERIFY(answer::renderMarkdown(answer::gatherAnswerReport(inputs), {}, "x").find("## Compare") == std::string::npos);
    }

    // An op named like markup stays text in both media.
    void textIsEscaped()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("evil.json")).toStdString();
        const std::string evil = "<script>alert(\\\"x&y\\\")</script>";
        {
            std::ofstream out(path);
            // (Plain literals: moc misreads a raw string that ends in a quote.)
            out << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" << evil
                << "\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 50}, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a|b*c\", "
                   "\"pid\": 1, \"tid\": 1, \"ts\": 70, \"dur\": 5}]}";
        }
        auto c = compute(path);
        answer::AnswerInputs in = c->inputs();
        in.compareLines = {"<b>kernel</b> vs ref & more"};
        const answer::AnswerReport report = answer::gatherAnswerReport(in);
        const std::string html = answer::renderHtml(report, {});
        QVERIFY2(!testutil::contains(html, "<script"), "an op name became a tag");
        QVERIFY(!testutil::contains(html, "<b>"));
        QVERIFY(testutil::contains(html, "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;"));
        QVERIFY(testutil::contains(html, "&lt;b&gt;kernel&lt;/b&gt; vs ref &amp; more"));
        QVERIFY(testutil::contains(html, "id=\"compare\""));
        const QString problem = tagProblem(html);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const std::string md = answer::renderMarkdown(report, {}, "evil");
        QVERIFY(testutil::contains(md, "\\<script\\>alert(\"x&y\")\\</script\\>"));
        QVERIFY(testutil::contains(md, "| a\\|b\\*c |"));
        QVERIFY(testutil::contains(md, "## Compare"));
    }

    // The pictures: base64 data URIs in the HTML, files beside the Markdown.
    void imagesEmbeddedAndBeside()
    {
        const auto c = compute(testutil::workloadTrace("memory_churn"));
        const answer::AnswerReport report = answer::gatherAnswerReport(c->inputs());
        const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string("\0\x01\x02\xff binary", 11);
        const std::vector<answer::ReportImage> images{{answer::kTimelineImage, "the timeline", png}, {answer::kMemoryImage, "memory", png}};
        const std::string html = answer::renderHtml(report, images);
        const std::string expected = QByteArray::fromStdString(png).toBase64().toStdString();
        QCOMPARE(answer::base64Encoded(png), expected);
        QCOMPARE(answer::base64Encoded("ab"), std::string("YWI="));
        QVERIFY(testutil::contains(html, "<img src=\"data:image/png;base64," + expected + "\" alt=\"the timeline\">"));
        QVERIFY(!testutil::contains(html, "alt=\"roofline\"")); // not given, not drawn

        QTemporaryDir dir;
        const std::string md = dir.filePath(QStringLiteral("out.md")).toStdString();
        const auto written = answer::writeAnswerReport(md, report, images);
        QCOMPARE(written.size(), size_t(3));
        QCOMPARE(testutil::readFile(dir.filePath(QStringLiteral("out.timeline.png")).toStdString()), png);
        QCOMPARE(testutil::readFile(dir.filePath(QStringLiteral("out.memory.png")).toStdString()), png);
        const std::string text = testutil::readFile(md);
        QVERIFY(testutil::contains(text, "](out.timeline.png)"));
        QVERIFY(testutil::contains(text, "](out.memory.png)"));
        QVERIFY(!testutil::contains(text, "out.roofline.png"));
        QVERIFY_THROWS_EXCEPTION(io::TraceFileError,
                                 answer::writeAnswerReport(dir.filePath(QStringLiteral("out.txt")).toStdString(), report, {}));
        QVERIFY(answer::reportFormatOf("a/B.HTML") == answer::ReportFormat::Html);
        QVERIFY(answer::reportFormatOf("b.md") == answer::ReportFormat::Markdown);
        QVERIFY(!answer::reportFormatOf("b.pdf"));
    }

    // The pictures as files (the app hands them to the CLI so): read back byte for byte with their captions;
    // a list that is not one, a key that is not a picture, a missing or non-PNG file each name the file.
    void imageFilesRoundTrip()
    {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string("\0\x01\x02\xff binary", 11);
        const std::vector<answer::ReportImage> images{{answer::kTimelineImage, "the \"timeline\"", png},
                                                      {answer::kMemoryImage, "memory \xc3\xa9", png + "x"}};
        answer::writeReportImageFiles(folder, images);
        const std::vector<answer::ReportImage> back = answer::readReportImageFiles(folder);
        QCOMPARE(back.size(), images.size());
        for (size_t i = 0; i < images.size(); ++i) {
            QCOMPARE(back[i].key, images[i].key);
            QCOMPARE(back[i].caption, images[i].caption);
            QCOMPARE(back[i].png, images[i].png);
        }
        const std::string manifest = folder + "/" + answer::kReportImagesManifest;
        const auto failsNaming = [&](const std::string& manifestText, const std::string& file, const std::string& what) {
            io::writeTextFile(manifest, manifestText, "a test list");
            try {
                answer::readReportImageFiles(folder);
            } catch (const io::TraceFileError& e) {
                return testutil::contains(e.what(), file) && testutil::contains(e.what(), what);
            }
            return false;
        };
        QVERIFY(failsNaming("[1, 2]", "images.json", "not a list of report pictures"));
        QVERIFY(failsNaming("{\"images\": [{\"key\": \"timeline\"}]}", "images.json", "without a key or caption"));
        QVERIFY(failsNaming("{\"images\": [{\"key\": \"../../etc/passwd\", \"caption\": \"\"}]}", "images.json",
                            "not one of the report's pictures"));
        QVERIFY(failsNaming("{\"images\": [{\"key\": \"roofline\", \"caption\": \"\"}]}", "roofline.png", "cannot read"));
        io::writeTextFile(folder + "/roofline.png", "GIF89a", "a test picture");
        QVERIFY(failsNaming("{\"images\": [{\"key\": \"roofline\", \"caption\": \"\"}]}", "roofline.png", "not a PNG image"));
        QDir(dir.path()).removeRecursively();
        QVERIFY_THROWS_EXCEPTION(io::TraceFileError, answer::readReportImageFiles(folder));
    }

    // A session folder: what was profiled comes from its manifest and config.
    void sessionManifestBeside()
    {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        const std::string trace = folder + "/" + session::kTraceFile;
        QVERIFY(QFile::copy(QString::fromStdString(testutil::workloadTrace("launch_bound")), QString::fromStdString(trace)));
        session::SessionConfig config;
        config.mode = session::SessionMode::Script;
        config.script = "/work/train it.py";
        config.args = {"--steps", "5"};
        config.schedule = session::ProfileSchedule{1, 2, 3, 1};
        config.profileMemory = true;
        io::writeTextFileAtomically(folder + "/" + session::kConfigFile, session::toJson(config), "config");
        session::ManifestRecord m;
        m.mode = "script";
        m.ok = true;
        m.torch = "2.11.0+cu130";
        m.profiler = "kineto";
        m.trace = session::kTraceFile;
        m.notes = {"a note"};
        session::writeSessionManifest(folder, m);
        auto c = compute(trace);
        const std::string md = answer::renderMarkdown(answer::gatherAnswerReport(c->inputs()), {}, "r");
        QVERIFY2(testutil::contains(md, "- **command**: python3 '/work/train it.py' --steps 5"), md.c_str());
        QVERIFY(testutil::contains(md, "- **torch**: 2.11.0+cu130"));
        QVERIFY(testutil::contains(md, "- **warm-up**: torch.profiler.schedule(wait=1, warmup=2, active=3, repeat=1)"));
        QVERIFY(testutil::contains(
            md, "- **profiler options**: on: record_shapes, profile_memory, with_flops, CPU activity, CUDA activity; off: with_stack"));
        QVERIFY(testutil::contains(md, "- **note**: a note"));
        // Without the manifest: what the trace records, and it says the command is not known.
        const auto plain = compute(testutil::workloadTrace("launch_bound"));
        const std::string plainMd = answer::renderMarkdown(answer::gatherAnswerReport(plain->inputs()), {}, "r");
        QVERIFY(testutil::contains(plainMd, "the command and warm-up that produced it are not known"));
        QVERIFY(testutil::contains(plainMd, "NVIDIA H200")); // the devices, from `info`
    }
};

QTEST_GUILESS_MAIN(TestAnswerReport)
#include "tst_answerreport.moc"
