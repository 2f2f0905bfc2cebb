// Live mode of the main window: an edit re-simulates and re-reconstructs after a short quiet spell
// (debounce), cancelling the run in flight; a result whose scenario has changed since is never shown.
#include <QAction>
#include <QStatusBar>
#include <QTimer>

#include "mrwb/pipeline/live_mode.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/scenario_document.hpp"
#include "mrwb_ui/scenario_panel.hpp"

namespace mrwb::ui {

namespace {
// Long enough that typing "45" in a spin box is one edit, short enough to feel immediate.
constexpr int k_default_live_debounce_ms = 300;
}  // namespace

void MainWindow::buildLiveMode() {
  liveTimer_ = new QTimer(this);
  liveTimer_->setSingleShot(true);
  liveTimer_->setInterval(k_default_live_debounce_ms);
  connect(liveTimer_, &QTimer::timeout, this, &MainWindow::startLiveRun);

  liveAction_ = new QAction(tr("&Live"), this);
  liveAction_->setObjectName(QStringLiteral("liveAction"));
  liveAction_->setCheckable(true);
  liveAction_->setChecked(true);
  liveAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  liveAction_->setStatusTip(tr("Live: every edit re-simulates and re-reconstructs (2-D scenarios up to a %1 matrix)")
                                .arg(mrwb::k_live_max_matrix));
  liveAction_->setToolTip(liveAction_->statusTip());
  connect(liveAction_, &QAction::toggled, this, [this](bool on) {
    if (!on) {
      liveTimer_->stop();
      livePending_ = false;
    }
    panel_->setEnabled(!isRunning() || liveActive());
  });
}

bool MainWindow::liveActive() const {
  return liveAction_ && liveAction_->isChecked() && mrwb::live_mode_refusal(scenario()).empty();
}

int MainWindow::liveDebounceMs() const { return liveTimer_->interval(); }
void MainWindow::setLiveDebounceMs(int ms) { liveTimer_->setInterval(ms); }

void MainWindow::onUserEdit(const QString& field) {
  if (!liveAction_ || !liveAction_->isChecked()) return;
  const std::string refusal = mrwb::live_mode_refusal(scenario());
  if (!refusal.empty()) {
    setRunMessage(tr("Live mode off: %1").arg(QString::fromStdString(refusal)), false);
    return;
  }
  liveField_ = field;
  if (isRunning()) {  // its result is already stale: stop it now, the new run starts after the debounce
    livePending_ = true;
    cancel();
  }
  liveTimer_->start();
}

void MainWindow::startLiveRun() {
  if (!liveActive()) return;
  if (isRunning()) {  // still unwinding the cancelled run: start when it has ended
    livePending_ = true;
    return;
  }
  livePending_ = false;
  if (!revalidate().isEmpty()) return;  // the Run dock says what to fix
  liveRun_ = true;
  run();
  if (!isRunning()) {
    liveRun_ = false;
    return;
  }
  const QString what = liveField_.isEmpty() ? tr("the scenario") : liveField_;
  setRunMessage(tr("Live: re-simulating and reconstructing after the change of %1…").arg(what), false);
  statusBar()->showMessage(runMessage());
  emit liveRunStarted(liveField_);
}

bool MainWindow::startPendingLiveRun() {
  if (!livePending_ || !liveActive()) {
    livePending_ = false;
    return false;
  }
  if (liveTimer_->isActive()) return true;  // the debounce starts it
  QTimer::singleShot(0, this, &MainWindow::startLiveRun);
  return true;
}

bool MainWindow::resultIsStale() const { return runScenarioJson_ != ScenarioDocument::jsonText(scenario()); }

}  // namespace mrwb::ui
