// SPDX-License-Identifier: MIT
#pragma once

#include "session/sessionconfig.h"
#include "session/sessionrunner.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class SessionJob;

// Profile: pick what to run and how, press Profile, watch the log and progress (Cancel ends the whole
// process group), and the result opens in the main window. Recent sessions re-run with one click.
class ProfileDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ProfileDialog(QWidget* parent = nullptr);
    ~ProfileDialog() override;

    tilescope::session::SessionConfig config() const;
    void setConfig(const tilescope::session::SessionConfig& config);
    void setTools(const tilescope::session::SessionTools& tools) { m_tools = tools; }

    void startSession();  // Profile
    void cancelSession(); // Cancel
    bool isRunning() const;

    QPushButton* profileButton() const { return m_profile; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPlainTextEdit* log() const { return m_log; }
    QProgressBar* progress() const { return m_progressBar; }
    QComboBox* recent() const { return m_recent; }
    QComboBox* modeBox() const { return m_mode; }
    QCheckBox* memorySnapshotBox() const { return m_memorySnapshot; }
    QCheckBox* memoryTimelineBox() const { return m_memoryTimeline; }
    QLineEdit* commandPreview() const { return m_preview; } // the same session as a tilescope-cli capture line

    // The last sessions' configs, newest first (QSettings), for the dialog and the Profile menu.
    static QList<tilescope::session::SessionConfig> recentSessions();
    static QString describe(const tilescope::session::SessionConfig& config);
    // "DIR-2", "DIR-3"…: the first that does not exist.
    static QString unusedSibling(const QString& folder);

signals:
    // A session ended; `result->tracePath` is set when there is something to open (even a partial trace).
    void sessionFinished(std::shared_ptr<const tilescope::session::SessionResult> result);

protected:
    void reject() override; // Close while running asks first

private:
    void onModeChanged();
    void updatePreview();
    bool confirmOutputFolder(); // false: the user cancelled
    void onFinished(std::shared_ptr<const tilescope::session::SessionResult> result);
    void exportHarness();
    void setRunning(bool running);
    void appendLog(const QString& line, bool isError);
    static void rememberSession(const tilescope::session::SessionConfig& config);
    void reloadRecent();
    QWidget* scriptPage();
    QWidget* kernelPage();
    QWidget* torchscriptPage();
    QWidget* commandPage();
    QWidget* browseRow(QLineEdit* edit, const QString& caption, const QString& filter, bool folder);

    SessionJob* m_job;
    tilescope::session::SessionTools m_tools;
    QComboBox* m_recent;
    QComboBox* m_mode;
    QStackedWidget* m_pages;
    // Script
    QLineEdit* m_script;
    QLineEdit* m_args;
    QCheckBox* m_useSchedule;
    QSpinBox* m_wait;
    QSpinBox* m_warmupSteps;
    QSpinBox* m_active;
    QSpinBox* m_repeat;
    // Kernel
    QLineEdit* m_kernel;
    QCheckBox* m_kernelFactory;
    QLineEdit* m_reference;
    QLineEdit* m_inputs;
    QLineEdit* m_flops;
    QLineEdit* m_bytes;
    QDoubleSpinBox* m_rtol;
    QDoubleSpinBox* m_atol;
    // TorchScript, Command
    QLineEdit* m_torchscript;
    QLineEdit* m_tsInputs;
    QLineEdit* m_command;
    // Common
    QLineEdit* m_python;
    QComboBox* m_device;
    QLineEdit* m_cwd;
    QPlainTextEdit* m_env;
    QCheckBox* m_cpu;
    QCheckBox* m_cuda;
    QSpinBox* m_warmup;
    QSpinBox* m_iters;
    QCheckBox* m_recordShapes;
    QCheckBox* m_profileMemory;
    QCheckBox* m_withStack;
    QCheckBox* m_withFlops;
    QCheckBox* m_memorySnapshot;
    QSpinBox* m_memoryEntries;
    QCheckBox* m_memoryTimeline;
    QLineEdit* m_out;
    QSpinBox* m_timeout;
    QLineEdit* m_preview;
    // Run
    QPlainTextEdit* m_log;
    QProgressBar* m_progressBar;
    QLabel* m_status;
    QPushButton* m_profile;
    QPushButton* m_cancel;
    QPushButton* m_export;
    QPushButton* m_openPartial;
    QString m_partialTrace;
};
