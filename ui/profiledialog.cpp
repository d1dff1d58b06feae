// SPDX-License-Identifier: MIT
#include "profiledialog.h"

#include "io/tracefileerror.h"
#include "session/captureargs.h"
#include "session/commandline.h"
#include "session/harnessexport.h"
#include "session/pythonlocator.h"
#include "screenfit.h"
#include "sessionjob.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QVBoxLayout>

using namespace tilescope::session;

namespace {

constexpr int kMaxRecentSessions = 8;
const char* const kRecentKey = "sessions/recent";

QString q(const std::string& s) { return QString::fromStdString(s); }
std::string s(const QString& q) { return q.toStdString(); }

std::optional<double> optionalNumber(const QLineEdit* edit)
{
    bool ok = false;
    const double v = edit->text().trimmed().toDouble(&ok);
    return ok ? std::optional<double>(v) : std::nullopt;
}

QString defaultOutputFolder()
{
    // ~/.local/share/tilescope/sessions/...: the app's own data folder would say the organisation and the
    // application, both TileScope (".../TileScope/TileScope/sessions").
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    return QDir(base.isEmpty() ? QDir::homePath() : base)
        .filePath(QStringLiteral("tilescope/sessions/") + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
}

// A scroll area as tall as the form it holds wants (QScrollArea caps its size hint at 24 lines, which would
// scroll the form on any screen); a short screen squeezes it, and then it scrolls.
class FormScrollArea : public QScrollArea
{
public:
    FormScrollArea()
    {
        setWidgetResizable(true);
        setFrameShape(QFrame::NoFrame);
    }
    QSize sizeHint() const override
    {
        return widget() ? widget()->sizeHint() + QSize(verticalScrollBar()->sizeHint().width(), 0) : QScrollArea::sizeHint();
    }
};

QSpinBox* spin(int minimum, int maximum, int value, const QString& tip)
{
    auto* box = new QSpinBox;
    box->setRange(minimum, maximum);
    box->setValue(value);
    box->setToolTip(tip);
    return box;
}

} // namespace

ProfileDialog::ProfileDialog(QWidget* parent)
    : QDialog(parent)
    , m_job(new SessionJob(this))
    , m_tools(SessionJob::applicationTools())
{
    setWindowTitle(tr("Profile"));
    auto* outer = new QVBoxLayout(this);
    // The form scrolls where the screen is too short for it (a 1366x768 laptop's): the buttons and the log stay.
    auto* formArea = new FormScrollArea;
    auto* formWidget = new QWidget;
    auto* layout = new QVBoxLayout(formWidget);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* top = new QFormLayout;
    m_recent = new QComboBox;
    m_recent->setToolTip(tr("Sessions run before: pick one to fill the form, then Profile to re-run it"));
    top->addRow(tr("Recent:"), m_recent);
    m_mode = new QComboBox;
    m_mode->addItem(tr("Python script under torch.profiler"), int(SessionMode::Script));
    m_mode->addItem(tr("Kernel against its torch reference"), int(SessionMode::Kernel));
    m_mode->addItem(tr("TorchScript module (LibTorch, in-process)"), int(SessionMode::TorchScript));
    m_mode->addItem(tr("Command that writes traces into {out}"), int(SessionMode::Command));
    m_mode->setToolTip(tr("What to profile. Every mode runs in a child process, never inside TileScope"));
    top->addRow(tr("Mode:"), m_mode);
    layout->addLayout(top);

    m_pages = new QStackedWidget;
    m_pages->addWidget(scriptPage());
    m_pages->addWidget(kernelPage());
    m_pages->addWidget(torchscriptPage());
    m_pages->addWidget(commandPage());
    layout->addWidget(m_pages);

    auto* options = new QGroupBox(tr("Options"));
    auto* form = new QFormLayout(options);
    m_python = new QLineEdit(QStringLiteral("python3"));
    m_python->setToolTip(tr("The Python interpreter with PyTorch (and TileLang): a virtual environment's bin/python works"));
    form->addRow(tr("Python:"), browseRow(m_python, tr("Python interpreter"), QString(), false));
    m_device = new QComboBox;
    m_device->setEditable(true);
    m_device->addItems({QStringLiteral("auto"), QStringLiteral("cuda"), QStringLiteral("cuda:0"), QStringLiteral("cpu")});
    m_device->setToolTip(tr("auto: CUDA when torch sees a GPU, else the CPU"));
    form->addRow(tr("Device:"), m_device);
    auto* activities = new QHBoxLayout;
    m_cpu = new QCheckBox(tr("CPU"));
    m_cpu->setChecked(true);
    m_cpu->setToolTip(tr("Record CPU ops (torch.profiler ProfilerActivity.CPU)"));
    m_cuda = new QCheckBox(tr("CUDA"));
    m_cuda->setChecked(true);
    m_cuda->setToolTip(tr("Record GPU kernels, copies and launches (ProfilerActivity.CUDA; needs Kineto)"));
    activities->addWidget(m_cpu);
    activities->addWidget(m_cuda);
    activities->addStretch();
    form->addRow(tr("Activities:"), activities);
    auto* iterations = new QHBoxLayout;
    m_warmup = spin(0, 100000, 10, tr("Calls before the profiled window, so compilation, autotuning and caches stay out of it"));
    m_iters = spin(1, 100000, 5, tr("Calls inside the profiled window (kernel and TorchScript modes)"));
    iterations->addWidget(new QLabel(tr("warm-up")));
    iterations->addWidget(m_warmup);
    iterations->addWidget(new QLabel(tr("measured")));
    iterations->addWidget(m_iters);
    iterations->addStretch();
    form->addRow(tr("Iterations:"), iterations);
    auto* flags = new QHBoxLayout;
    m_recordShapes = new QCheckBox(tr("record shapes"));
    m_recordShapes->setChecked(true);
    m_recordShapes->setToolTip(tr("Input Dims and types of each op: needed for FLOPs, bytes and the roofline"));
    m_profileMemory = new QCheckBox(tr("profile memory"));
    m_profileMemory->setToolTip(tr("[memory] events of every allocation (the memory graph); slower"));
    m_withStack = new QCheckBox(tr("with stack"));
    m_withStack->setToolTip(tr("Python stacks of each op: tells apart kernels of the same name; much larger traces"));
    m_withFlops = new QCheckBox(tr("with FLOPs"));
    m_withFlops->setChecked(true);
    m_withFlops->setToolTip(tr("torch's FLOP counts for matmul and convolution ops"));
    for (QCheckBox* box : {m_recordShapes, m_profileMemory, m_withStack, m_withFlops})
        flags->addWidget(box);
    flags->addStretch();
    form->addRow(tr("Record:"), flags);
    auto* memory = new QHBoxLayout;
    m_memorySnapshot = new QCheckBox(tr("memory snapshot"));
    m_memorySnapshot->setToolTip(tr("Record the CUDA caching allocator's history around the profiled window: every allocation, "
                                    "free and out-of-memory with its stack, and the segments at the end "
                                    "(memory_snapshot.pickle). Needs CUDA and torch 2.1 or later; script and kernel modes"));
    m_memoryEntries = spin(1, 1000000000, SessionConfig{}.memorySnapshotMaxEntries,
                           tr("How many allocator events the snapshot keeps (the most recent; _record_memory_history's max_entries)"));
    m_memoryEntries->setEnabled(false);
    connect(m_memorySnapshot, &QCheckBox::toggled, m_memoryEntries, &QWidget::setEnabled);
    m_memoryTimeline = new QCheckBox(tr("memory timeline"));
    m_memoryTimeline->setToolTip(tr("torch's memory timeline of the profiled window: bytes per category (parameters, optimizer "
                                    "state, activations, gradients…) over time (memory_timeline.json). Turns on record shapes, "
                                    "profile memory and with stack, which it needs. Needs CUDA and torch 2.1 or later; script "
                                    "and kernel modes"));
    memory->addWidget(m_memorySnapshot);
    memory->addWidget(new QLabel(tr("entries")));
    memory->addWidget(m_memoryEntries);
    memory->addWidget(m_memoryTimeline);
    memory->addStretch();
    form->addRow(tr("Memory:"), memory);
    m_out = new QLineEdit(defaultOutputFolder());
    m_out->setToolTip(tr("The session folder: trace, torch's key averages, annotations, kernel sources, manifest"));
    form->addRow(tr("Output folder:"), browseRow(m_out, tr("Output folder"), QString(), true));
    m_cwd = new QLineEdit;
    m_cwd->setPlaceholderText(tr("TileScope's own"));
    m_cwd->setToolTip(tr("Where the program runs; module:callable names are imported from here"));
    form->addRow(tr("Working folder:"), browseRow(m_cwd, tr("Working folder"), QString(), true));
    m_env = new QPlainTextEdit;
    m_env->setPlaceholderText(tr("NAME=VALUE, one per line (e.g. CUDA_VISIBLE_DEVICES=0)"));
    m_env->setMaximumHeight(60);
    form->addRow(tr("Environment:"), m_env);
    m_timeout = spin(0, 7 * 24 * 3600, 0, tr("Seconds before the session is ended; 0: no limit"));
    m_timeout->setSuffix(tr(" s"));
    form->addRow(tr("Timeout:"), m_timeout);
    m_preview = new QLineEdit;
    m_preview->setReadOnly(true);
    m_preview->setToolTip(tr("The same session from a terminal or a job script"));
    form->addRow(tr("Command line:"), m_preview);
    layout->addWidget(options);
    formArea->setWidget(formWidget);
    outer->addWidget(formArea);
    layout = outer;

    m_progressBar = new QProgressBar;
    m_progressBar->setRange(0, 1);
    m_progressBar->setValue(0);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setMinimumHeight(120);
    layout->addWidget(m_progressBar);
    layout->addWidget(m_status);
    layout->addWidget(m_log, 1);

    auto* buttons = new QDialogButtonBox;
    m_profile = buttons->addButton(tr("Profile"), QDialogButtonBox::AcceptRole);
    m_profile->setDefault(true);
    m_cancel = buttons->addButton(tr("Cancel Session"), QDialogButtonBox::ActionRole);
    m_export = buttons->addButton(tr("Export Harness…"), QDialogButtonBox::ActionRole);
    m_export->setToolTip(tr("Write a standalone Python script for this session, to run on a remote GPU box; "
                            "open the folder it writes with File > Open"));
    m_openPartial = buttons->addButton(tr("Open Partial Trace"), QDialogButtonBox::ActionRole);
    m_openPartial->setVisible(false);
    m_openPartial->setEnabled(false); // only after a failed session that left a trace
    buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &ProfileDialog::reject);
    connect(m_profile, &QPushButton::clicked, this, &ProfileDialog::startSession);
    connect(m_cancel, &QPushButton::clicked, this, &ProfileDialog::cancelSession);
    connect(m_export, &QPushButton::clicked, this, &ProfileDialog::exportHarness);
    connect(m_openPartial, &QPushButton::clicked, this, [this] {
        auto partial = std::make_shared<SessionResult>();
        partial->tracePath = s(m_partialTrace);
        emit sessionFinished(partial);
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this, &ProfileDialog::onModeChanged);
    connect(m_recent, &QComboBox::activated, this, [this](int index) {
        const auto sessions = recentSessions();
        if (index > 0 && index - 1 < sessions.size())
            setConfig(sessions[index - 1]);
    });
    connect(m_job, &SessionJob::phase, this, [this](const QString& phase, int step, int of, const QString& message) {
        m_status->setText(phase + QStringLiteral(": ") + message);
        if (step >= 0 && of > 0) {
            m_progressBar->setRange(0, of);
            m_progressBar->setValue(std::min(step, of));
        } else {
            m_progressBar->setRange(0, 0); // busy
        }
        m_progressBar->setFormat(phase + QStringLiteral(" %v/%m"));
        appendLog(QStringLiteral("[") + phase + QStringLiteral("] ") + message, false);
    });
    connect(m_job, &SessionJob::logLine, this, &ProfileDialog::appendLog);
    connect(m_job, &SessionJob::finished, this, &ProfileDialog::onFinished);
    // The command line follows every field of the form.
    for (QLineEdit* edit : findChildren<QLineEdit*>())
        if (edit != m_preview)
            connect(edit, &QLineEdit::textChanged, this, &ProfileDialog::updatePreview);
    for (QCheckBox* box : findChildren<QCheckBox*>())
        connect(box, &QCheckBox::toggled, this, &ProfileDialog::updatePreview);
    for (QSpinBox* box : findChildren<QSpinBox*>())
        connect(box, &QSpinBox::valueChanged, this, &ProfileDialog::updatePreview);
    for (QDoubleSpinBox* box : findChildren<QDoubleSpinBox*>())
        connect(box, &QDoubleSpinBox::valueChanged, this, &ProfileDialog::updatePreview);
    connect(m_device, &QComboBox::currentTextChanged, this, &ProfileDialog::updatePreview);
    connect(m_env, &QPlainTextEdit::textChanged, this, &ProfileDialog::updatePreview);
    reloadRecent();
    onModeChanged();
    setRunning(false);
    resize(sizeWithinScreen(*this, {760, 880})); // the whole form, unscrolled, where the screen has room
}

ProfileDialog::~ProfileDialog() = default;

QWidget* ProfileDialog::browseRow(QLineEdit* edit, const QString& caption, const QString& filter, bool folder)
{
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    auto* browse = new QPushButton(tr("Browse…"));
    h->addWidget(browse);
    connect(browse, &QPushButton::clicked, this, [this, edit, caption, filter, folder] {
        const QString picked = folder ? QFileDialog::getExistingDirectory(this, caption, edit->text())
                                      : QFileDialog::getOpenFileName(this, caption, edit->text(), filter);
        if (!picked.isEmpty())
            edit->setText(picked);
    });
    return row;
}

QWidget* ProfileDialog::scriptPage()
{
    auto* page = new QGroupBox(tr("Script"));
    auto* form = new QFormLayout(page);
    m_script = new QLineEdit;
    m_script->setToolTip(tr("Runs as __main__ with the arguments below; `import tilescope` gives tilescope.step() "
                            "and tilescope.region(name)"));
    form->addRow(tr("Script:"), browseRow(m_script, tr("Python script"), tr("Python (*.py)"), false));
    m_args = new QLineEdit;
    m_args->setToolTip(tr("Arguments as a shell would split them ('quoted words' stay whole)"));
    form->addRow(tr("Arguments:"), m_args);
    auto* schedule = new QHBoxLayout;
    m_useSchedule = new QCheckBox(tr("schedule"));
    m_useSchedule->setToolTip(tr("torch.profiler.schedule: steps advance on every optimizer.step() and on "
                                 "tilescope.step(). Off: the whole script is profiled"));
    m_wait = spin(0, 100000, 1, tr("Steps skipped first (wait)"));
    m_warmupSteps = spin(0, 100000, 1, tr("Steps traced but discarded (warmup)"));
    m_active = spin(1, 100000, 3, tr("Steps recorded (active)"));
    m_repeat = spin(0, 1000, 1, tr("Cycles of wait+warmup+active; 0 repeats until the script ends. Each cycle is a trace"));
    schedule->addWidget(m_useSchedule);
    for (auto [label, box] :
         {std::pair{tr("wait"), m_wait}, {tr("warmup"), m_warmupSteps}, {tr("active"), m_active}, {tr("repeat"), m_repeat}}) {
        schedule->addWidget(new QLabel(label));
        schedule->addWidget(box);
        connect(m_useSchedule, &QCheckBox::toggled, box, &QWidget::setEnabled);
        box->setEnabled(false);
    }
    schedule->addStretch();
    form->addRow(tr("Steps:"), schedule);
    return page;
}

QWidget* ProfileDialog::kernelPage()
{
    auto* page = new QGroupBox(tr("Kernel against reference"));
    auto* form = new QFormLayout(page);
    m_kernel = new QLineEdit;
    m_kernel->setPlaceholderText(tr("my_kernels.py:matmul  or  package.module:kernel"));
    m_kernel->setToolTip(tr("The kernel, called with the inputs. A TileLang JITKernel's generated source is saved "
                            "next to the trace. It is built and called once outside the profiled window"));
    form->addRow(tr("Kernel:"), m_kernel);
    m_kernelFactory = new QCheckBox(tr("call it once with no arguments to build the kernel"));
    m_kernelFactory->setToolTip(tr("For builders such as a function returning tilelang.compile(...)"));
    form->addRow(QString(), m_kernelFactory);
    m_reference = new QLineEdit;
    m_reference->setPlaceholderText(tr("my_kernels.py:torch_matmul"));
    m_reference->setToolTip(tr("The torch reference, called with the same inputs; outputs are compared with allclose"));
    form->addRow(tr("Reference:"), m_reference);
    m_inputs = new QLineEdit;
    m_inputs->setPlaceholderText(tr("float16:4096x4096,float16:4096x4096"));
    m_inputs->setToolTip(tr("Comma-separated DTYPE:DIMS (dims x-separated); random, with a fixed seed"));
    form->addRow(tr("Inputs:"), m_inputs);
    auto* work = new QHBoxLayout;
    m_flops = new QLineEdit;
    m_flops->setPlaceholderText(tr("FLOPs per call"));
    m_flops->setToolTip(tr("Work per call, for the roofline (2·M·N·K for a GEMM); goes into the annotations sidecar"));
    m_bytes = new QLineEdit;
    m_bytes->setPlaceholderText(tr("bytes per call"));
    m_bytes->setToolTip(tr("Compulsory DRAM bytes per call (inputs read plus outputs written)"));
    work->addWidget(m_flops);
    work->addWidget(m_bytes);
    form->addRow(tr("Work:"), work);
    auto* tolerance = new QHBoxLayout;
    m_rtol = new QDoubleSpinBox;
    m_atol = new QDoubleSpinBox;
    for (QDoubleSpinBox* box : {m_rtol, m_atol}) {
        box->setDecimals(8);
        box->setRange(0, 1e6);
        box->setValue(1e-2);
    }
    m_rtol->setToolTip(tr("allclose relative tolerance"));
    m_atol->setToolTip(tr("allclose absolute tolerance"));
    tolerance->addWidget(new QLabel(tr("rtol")));
    tolerance->addWidget(m_rtol);
    tolerance->addWidget(new QLabel(tr("atol")));
    tolerance->addWidget(m_atol);
    tolerance->addStretch();
    form->addRow(tr("Check:"), tolerance);
    return page;
}

QWidget* ProfileDialog::torchscriptPage()
{
    auto* page = new QGroupBox(tr("TorchScript module"));
    auto* form = new QFormLayout(page);
    m_torchscript = new QLineEdit;
    m_torchscript->setToolTip(tr("A module saved with torch.jit.save, profiled through LibTorch by tilescope-torch"));
    form->addRow(tr("Module:"), browseRow(m_torchscript, tr("TorchScript module"), tr("TorchScript (*.pt *.pth)"), false));
    m_tsInputs = new QLineEdit;
    m_tsInputs->setPlaceholderText(tr("float32:8x16"));
    m_tsInputs->setToolTip(tr("Comma-separated DTYPE:DIMS for forward()"));
    form->addRow(tr("Inputs:"), m_tsInputs);
    return page;
}

QWidget* ProfileDialog::commandPage()
{
    auto* page = new QGroupBox(tr("Command"));
    auto* form = new QFormLayout(page);
    m_command = new QLineEdit;
    m_command->setPlaceholderText(tr("{python} train.py --trace-dir {out}"));
    m_command->setToolTip(tr("Run by /bin/sh; {out} is the output folder, {python} the interpreter. The newest trace "
                             "it writes there opens"));
    form->addRow(tr("Command:"), m_command);
    return page;
}

void ProfileDialog::onModeChanged()
{
    const auto mode = SessionMode(m_mode->currentData().toInt());
    m_pages->setCurrentIndex(m_mode->currentIndex());
    const bool python = mode == SessionMode::Script || mode == SessionMode::Kernel;
    m_python->setEnabled(python || mode == SessionMode::Command);
    m_export->setEnabled(python && !isRunning());
    const bool iterations = mode == SessionMode::Kernel || mode == SessionMode::TorchScript;
    m_warmup->setEnabled(iterations);
    m_iters->setEnabled(iterations);
    m_memorySnapshot->setEnabled(python);
    m_memoryTimeline->setEnabled(python);
    m_memoryEntries->setEnabled(python && m_memorySnapshot->isChecked());
    updatePreview();
}

void ProfileDialog::updatePreview() { m_preview->setText(q(shellQuoted(captureArguments(config())))); }

SessionConfig ProfileDialog::config() const
{
    SessionConfig c;
    c.mode = SessionMode(m_mode->currentData().toInt());
    c.script = s(m_script->text().trimmed());
    c.args = splitCommandLine(s(m_args->text()));
    if (m_useSchedule->isChecked())
        c.schedule = ProfileSchedule{m_wait->value(), m_warmupSteps->value(), m_active->value(), m_repeat->value()};
    c.kernel = s(m_kernel->text().trimmed());
    c.kernelFactory = m_kernelFactory->isChecked();
    c.reference = s(m_reference->text().trimmed());
    c.inputs = s((c.mode == SessionMode::TorchScript ? m_tsInputs : m_inputs)->text().trimmed());
    c.flopsPerCall = optionalNumber(m_flops);
    c.bytesPerCall = optionalNumber(m_bytes);
    c.rtol = m_rtol->value();
    c.atol = m_atol->value();
    c.torchscript = s(m_torchscript->text().trimmed());
    c.command = s(m_command->text().trimmed());
    c.python = s(m_python->text().trimmed());
    const QString device = m_device->currentText().trimmed();
    c.device = device == QStringLiteral("auto") ? std::string() : s(device);
    c.workingDirectory = s(m_cwd->text().trimmed());
    for (const QString& line : m_env->toPlainText().split(u'\n', Qt::SkipEmptyParts)) {
        const qsizetype eq = line.indexOf(u'=');
        if (eq > 0)
            c.environment.emplace_back(s(line.left(eq).trimmed()), s(line.mid(eq + 1)));
    }
    c.cpuActivity = m_cpu->isChecked();
    c.cudaActivity = m_cuda->isChecked();
    c.warmupIterations = m_warmup->value();
    c.measuredIterations = m_iters->value();
    c.recordShapes = m_recordShapes->isChecked();
    c.profileMemory = m_profileMemory->isChecked();
    c.withStack = m_withStack->isChecked();
    c.withFlops = m_withFlops->isChecked();
    // Only the Python harness records them: other modes leave them off rather than fail on a hidden box.
    const bool python = c.mode == SessionMode::Script || c.mode == SessionMode::Kernel;
    c.memorySnapshot = python && m_memorySnapshot->isChecked();
    c.memoryTimeline = python && m_memoryTimeline->isChecked();
    c.memorySnapshotMaxEntries = m_memoryEntries->value();
    c.outputDirectory = s(m_out->text().trimmed());
    c.timeoutSeconds = m_timeout->value();
    return c;
}

void ProfileDialog::setConfig(const SessionConfig& c)
{
    m_mode->setCurrentIndex(std::max(0, m_mode->findData(int(c.mode))));
    m_script->setText(q(c.script));
    m_args->setText(q(shellQuoted(c.args)));
    m_useSchedule->setChecked(c.schedule.has_value());
    const ProfileSchedule schedule = c.schedule.value_or(ProfileSchedule{});
    m_wait->setValue(schedule.wait);
    m_warmupSteps->setValue(schedule.warmup);
    m_active->setValue(schedule.active);
    m_repeat->setValue(schedule.repeat);
    m_kernel->setText(q(c.kernel));
    m_kernelFactory->setChecked(c.kernelFactory);
    m_reference->setText(q(c.reference));
    m_inputs->setText(q(c.inputs));
    m_tsInputs->setText(q(c.inputs));
    m_flops->setText(c.flopsPerCall ? QString::number(*c.flopsPerCall, 'g', 17) : QString());
    m_bytes->setText(c.bytesPerCall ? QString::number(*c.bytesPerCall, 'g', 17) : QString());
    m_rtol->setValue(c.rtol);
    m_atol->setValue(c.atol);
    m_torchscript->setText(q(c.torchscript));
    m_command->setText(q(c.command));
    m_python->setText(q(c.python));
    m_device->setCurrentText(c.device.empty() ? QStringLiteral("auto") : q(c.device));
    m_cwd->setText(q(c.workingDirectory));
    QStringList env;
    for (const auto& [k, v] : c.environment)
        env << q(k) + u'=' + q(v);
    m_env->setPlainText(env.join(u'\n'));
    m_cpu->setChecked(c.cpuActivity);
    m_cuda->setChecked(c.cudaActivity);
    m_warmup->setValue(c.warmupIterations);
    m_iters->setValue(c.measuredIterations);
    m_recordShapes->setChecked(c.recordShapes);
    m_profileMemory->setChecked(c.profileMemory);
    m_withStack->setChecked(c.withStack);
    m_withFlops->setChecked(c.withFlops);
    m_memorySnapshot->setChecked(c.memorySnapshot);
    m_memoryEntries->setValue(c.memorySnapshotMaxEntries);
    m_memoryTimeline->setChecked(c.memoryTimeline);
    m_out->setText(q(c.outputDirectory));
    m_timeout->setValue(int(c.timeoutSeconds));
}

bool ProfileDialog::isRunning() const { return m_job->isRunning(); }

void ProfileDialog::setRunning(bool running)
{
    m_profile->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_mode->setEnabled(!running);
    m_recent->setEnabled(!running);
    m_pages->setEnabled(!running);
    onModeChanged();
}

void ProfileDialog::appendLog(const QString& line, bool isError) { m_log->appendPlainText(isError ? QStringLiteral("! ") + line : line); }

void ProfileDialog::startSession()
{
    if (isRunning())
        return;
    const SessionConfig c = config();
    const std::vector<std::string> problems = validate(c);
    if (!problems.empty()) {
        QStringList lines;
        for (const std::string& p : problems)
            lines << q(p);
        m_status->setText(tr("Cannot start: ") + lines.join(QStringLiteral("; ")));
        return;
    }
    if (!confirmOutputFolder())
        return;
    const SessionConfig form = config();
    SessionConfig chosen = form;
    m_log->clear();
    const std::string note = tilescope::session::resolveDefaultPython(chosen); // "python3" without torch: find one
    m_openPartial->setVisible(false);
    m_openPartial->setEnabled(false);
    m_partialTrace.clear();
    m_status->setText(tr("starting…"));
    if (!note.empty())
        appendLog(q(note), false);
    m_progressBar->setRange(0, 0);
    rememberSession(form); // as the user filled it in: the interpreter is looked for again next time
    reloadRecent();
    setRunning(true);
    m_job->start(chosen, m_tools);
}

bool ProfileDialog::confirmOutputFolder()
{
    // A folder that already holds files (an earlier run, often a failed one) is not reused silently: its
    // trace and manifest would mix with this session's.
    const QString out = m_out->text().trimmed();
    const QDir dir(out);
    if (out.isEmpty() || !dir.exists() || dir.isEmpty())
        return true;
    QMessageBox box(QMessageBox::Question, tr("Output folder in use"), tr("%1 already holds files from an earlier session.").arg(out),
                    QMessageBox::NoButton, this);
    box.setInformativeText(tr("Use a new folder beside it, or replace the earlier session's files?"));
    QPushButton* fresh = box.addButton(tr("Use New Folder"), QMessageBox::AcceptRole);
    QPushButton* replace = box.addButton(tr("Replace"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(fresh);
    box.exec();
    if (box.clickedButton() == fresh) {
        m_out->setText(unusedSibling(out));
        return true;
    }
    return box.clickedButton() == replace;
}

QString ProfileDialog::unusedSibling(const QString& folder)
{
    for (int n = 2;; ++n) {
        const QString candidate = folder + QStringLiteral("-%1").arg(n);
        if (!QFileInfo::exists(candidate))
            return candidate;
    }
}

void ProfileDialog::cancelSession()
{
    if (!isRunning())
        return;
    m_status->setText(tr("cancelling: ending the session's processes…"));
    m_job->cancel();
}

void ProfileDialog::onFinished(std::shared_ptr<const SessionResult> result)
{
    setRunning(false);
    m_progressBar->setRange(0, 1);
    m_progressBar->setValue(result->status == SessionResult::Status::Ok ? 1 : 0);
    m_progressBar->setFormat(q(statusName(result->status)));
    for (const std::string& note : result->manifest.notes)
        appendLog(tr("note: ") + q(note), false);
    QStringList checks;
    for (const SessionCheck& check : result->manifest.checks)
        checks << q(check.name) + (check.passed ? tr(" passed") : tr(" FAILED"))
                + (check.detail.empty() ? QString() : QStringLiteral(" (") + q(check.detail) + u')');
    if (result->status == SessionResult::Status::Ok) {
        m_status->setText(tr("Done in %1 s: %2").arg(result->seconds, 0, 'f', 1).arg(q(result->tracePath))
                          + (checks.isEmpty() ? QString() : QStringLiteral("\n") + checks.join(u'\n')));
        emit sessionFinished(result);
        return;
    }
    m_status->setText(q(statusName(result->status)) + QStringLiteral(": ") + q(result->error));
    appendLog(tr("session %1: %2").arg(q(statusName(result->status)), q(result->error)), true);
    appendLog(tr("command: ") + q(result->commandLine), false);
    if (!result->tracePath.empty()) {
        m_partialTrace = q(result->tracePath);
        m_openPartial->setEnabled(true);
        m_openPartial->setVisible(true);
    }
}

void ProfileDialog::exportHarness()
{
    const SessionConfig c = config();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Harness"), QStringLiteral("tilescope_session.py"),
                                                      tr("Python (*.py)"));
    if (path.isEmpty())
        return;
    try {
        writeExportedHarness(c, m_tools.harness, s(path));
        m_status->setText(tr("Wrote %1: run it with python3 %1 --out DIR, then open DIR here").arg(path));
    } catch (const tilescope::io::TraceFileError& e) {
        QMessageBox::warning(this, tr("Export Harness"), q(e.what()));
    }
}

void ProfileDialog::reject()
{
    if (isRunning()) {
        const auto answer = QMessageBox::question(this, tr("Profile"), tr("A session is running. Cancel it and close?"));
        if (answer != QMessageBox::Yes)
            return;
        m_job->cancel();
    }
    QDialog::reject();
}

QString ProfileDialog::describe(const SessionConfig& c)
{
    switch (c.mode) {
    case SessionMode::Script: return tr("script %1").arg(QDir(q(c.script)).dirName());
    case SessionMode::Kernel: return tr("kernel %1 vs %2").arg(q(c.kernel), q(c.reference));
    case SessionMode::TorchScript: return tr("TorchScript %1").arg(QDir(q(c.torchscript)).dirName());
    case SessionMode::Command: return tr("command %1").arg(q(c.command));
    case SessionMode::Calibrate: return tr("calibrate %1").arg(q(c.device));
    }
    return {};
}

QList<SessionConfig> ProfileDialog::recentSessions()
{
    QList<SessionConfig> out;
    for (const QString& json : QSettings().value(QString::fromLatin1(kRecentKey)).toStringList()) {
        try {
            out << sessionConfigFromJson(s(json), "recent session");
        } catch (const tilescope::io::TraceFileError&) {
            // a config from an older TileScope that no longer parses is dropped, not fatal
        }
    }
    return out;
}

void ProfileDialog::rememberSession(const SessionConfig& config)
{
    const QString json = q(toJson(config));
    QStringList list = QSettings().value(QString::fromLatin1(kRecentKey)).toStringList();
    list.removeAll(json);
    list.prepend(json);
    while (list.size() > kMaxRecentSessions)
        list.removeLast();
    QSettings().setValue(QString::fromLatin1(kRecentKey), list);
}

void ProfileDialog::reloadRecent()
{
    m_recent->clear();
    const auto sessions = recentSessions();
    m_recent->addItem(sessions.isEmpty() ? tr("(none yet)") : tr("(pick a session to re-run)"));
    for (const SessionConfig& c : sessions)
        m_recent->addItem(describe(c));
}
