#include "mrwb_ui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTableWidget>
#include <QToolBar>
#include <algorithm>
#include <cmath>

#include "mrwb/backend_registry.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/phantom.hpp"
#include "mrwb/version.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/scenario_panel.hpp"
#include "mrwb_ui/simulation_worker.hpp"

namespace mrwb::ui {

namespace {

enum MetricColumn { kPsnr, kPercent, kNrmse, kSsim, kBackend, kSimSeconds, kReconSeconds, kColumns };

float maxFinite(const std::vector<float>& v) {
  float out = 0;
  for (float x : v)
    if (std::isfinite(x)) out = std::max(out, x);
  return out;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("MrwbMainWindow"));
  setMinimumSize(1280, 800);
  resize(1280, 800);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);

  worker_ = new SimulationWorker(this);
  buildViews();
  buildDocks();
  buildActions();
  buildStatusBar();

  connect(worker_, &SimulationWorker::progress, this, [this](int percent, const QString& stage) {
    progress_->setValue(percent);
    progress_->setFormat(QStringLiteral("%1  %p%").arg(stage));
  });
  connect(worker_, &SimulationWorker::timeRemaining, this, [this](double s) {
    remaining_->setText(s < 0 ? tr("estimating time…") : tr("about %1 left").arg(formatDuration(s)));
  });
  connect(worker_, &SimulationWorker::finished, this,
          [this](std::shared_ptr<mrwb::PipelineResult> r) {
            result_ = r;
            setRunning(false);
            lastErrorIsInput_ = false;
            showResult(*r);
            lastError_.clear();
            emit runFinished(true);
          });
  connect(worker_, &SimulationWorker::failed, this, [this](const QString& message) {
    setRunning(false);
    lastError_ = message;
    lastErrorIsInput_ = worker_->lastFailureWasInputError();
    emit runFinished(false);
    reportError(tr("Run failed"), message);
  });
  connect(worker_, &SimulationWorker::cancelled, this, [this] {
    setRunning(false);
    lastError_ = tr("cancelled");
    lastErrorIsInput_ = false;
    statusBar()->showMessage(tr("Cancelled. The views still show the previous results."), 8000);
    emit runCancelled();
    emit runFinished(false);
  });

  setScenario(mrwb::scenario_preset("default"));
  setRunning(false);
}

MainWindow::~MainWindow() = default;

// --- construction ------------------------------------------------------------------------------

void MainWindow::buildViews() {
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->setHandleWidth(5);
  splitter->setChildrenCollapsible(false);
  reconView_ = new ImageView(tr("Reconstruction (FFT)"), splitter);
  truthView_ = new ImageView(tr("Ground truth (Mxy at TE)"), splitter);
  errorView_ = new ImageView(QStringLiteral("Error map |recon|−|truth|"), splitter);
  reconView_->setObjectName(QStringLiteral("reconView"));
  truthView_->setObjectName(QStringLiteral("truthView"));
  errorView_->setObjectName(QStringLiteral("errorView"));
  for (ImageView* v : {reconView_, truthView_, errorView_}) {
    splitter->addWidget(v);
    v->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  }
  splitter->setSizes({1, 1, 1});
  setCentralWidget(splitter);
}

void MainWindow::buildDocks() {
  panel_ = new ScenarioPanel;
  connect(panel_, &ScenarioPanel::scenarioEdited, this, &MainWindow::onScenarioEdited);
  connect(panel_, &ScenarioPanel::presetRequested, this, &MainWindow::onPresetRequested);
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* scenarioDock = new QDockWidget(tr("Scenario"), this);
  scenarioDock->setObjectName(QStringLiteral("scenarioDock"));
  scenarioDock->setWidget(scroll);
  scenarioDock->setMinimumWidth(320);
  scenarioDock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
  addDockWidget(Qt::LeftDockWidgetArea, scenarioDock);

  metrics_ = new QTableWidget(1, kColumns);
  metrics_->setObjectName(QStringLiteral("metricsTable"));
  metrics_->setHorizontalHeaderLabels({tr("PSNR [dB]"), tr("Error [%]"), tr("NRMSE"), tr("SSIM"),
                                       tr("Backend"), tr("Simulate [s]"), tr("Recon [s]")});
  metrics_->verticalHeader()->setVisible(false);
  metrics_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  metrics_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  metrics_->setSelectionMode(QAbstractItemView::NoSelection);
  metrics_->setFocusPolicy(Qt::NoFocus);
  metrics_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  metrics_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  metrics_->setToolTip(tr("Reconstruction against the simulator's ground truth, on magnitudes"));
  QFont big = metrics_->font();
  big.setPointSizeF(big.pointSizeF() * 1.25);
  big.setBold(true);
  for (int c = 0; c < kColumns; ++c) {
    auto* item = new QTableWidgetItem;
    item->setTextAlignment(Qt::AlignCenter);
    item->setFont(big);
    metrics_->setItem(0, c, item);
  }
  metrics_->setRowHeight(0, 40);
  metrics_->setFixedHeight(metrics_->horizontalHeader()->sizeHint().height() + 40 + 2 * metrics_->frameWidth());
  clearMetrics();
  auto* metricsDock = new QDockWidget(tr("Metrics"), this);
  metricsDock->setObjectName(QStringLiteral("metricsDock"));
  metricsDock->setWidget(metrics_);
  metricsDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::TopDockWidgetArea);
  addDockWidget(Qt::BottomDockWidgetArea, metricsDock);
}

void MainWindow::buildActions() {
  QStyle* st = style();
  openAction_ = new QAction(st->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open scenario…"), this);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setStatusTip(tr("Load a scenario JSON file"));
  connect(openAction_, &QAction::triggered, this, &MainWindow::openScenarioDialog);

  saveAsAction_ = new QAction(st->standardIcon(QStyle::SP_DialogSaveButton), tr("Save scenario &as…"), this);
  saveAsAction_->setShortcut(QKeySequence::SaveAs);
  saveAsAction_->setStatusTip(tr("Write the scenario as JSON"));
  connect(saveAsAction_, &QAction::triggered, this, &MainWindow::saveScenarioAsDialog);

  runAction_ = new QAction(st->standardIcon(QStyle::SP_MediaPlay), tr("&Run"), this);
  runAction_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
  runAction_->setStatusTip(tr("Simulate, reconstruct and compare"));
  connect(runAction_, &QAction::triggered, this, &MainWindow::run);

  cancelAction_ = new QAction(st->standardIcon(QStyle::SP_MediaStop), tr("&Cancel"), this);
  cancelAction_->setShortcut(Qt::Key_Escape);
  cancelAction_->setStatusTip(tr("Stop the running job; nothing partial is kept"));
  connect(cancelAction_, &QAction::triggered, this, &MainWindow::cancel);

  auto* quitAction = new QAction(tr("&Quit"), this);
  quitAction->setShortcut(QKeySequence::Quit);
  connect(quitAction, &QAction::triggered, this, &QWidget::close);

  auto* resetViews = new QAction(tr("Reset image views"), this);
  connect(resetViews, &QAction::triggered, this, [this] {
    for (ImageView* v : {reconView_, truthView_, errorView_}) v->resetView();
  });

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(openAction_);
  file->addAction(saveAsAction_);
  file->addSeparator();
  file->addAction(quitAction);
  QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
  sim->addAction(runAction_);
  sim->addAction(cancelAction_);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(resetViews);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About MR Workbench"), this, [this] {
    QMessageBox::about(this, tr("About MR Workbench"),
                       tr("<b>MR Workbench</b> %1<br>MRI simulation and reconstruction workbench.<br>"
                          "Bloch-flow simulation, FFT reconstruction, image-quality metrics.")
                           .arg(QString::fromLatin1(mrwb::version_string)));
  });

  auto* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolBar"));
  tb->setMovable(false);
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tb->addAction(openAction_);
  tb->addAction(saveAsAction_);
  tb->addSeparator();
  tb->addAction(runAction_);
  tb->addAction(cancelAction_);
}

void MainWindow::buildStatusBar() {
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setFixedWidth(260);
  progress_->setTextVisible(true);
  remaining_ = new QLabel;
  remaining_->setMinimumWidth(140);
  backendLabel_ = new QLabel;
  QStringList parts;
  for (const auto& b : mrwb::list_backends()) {
    parts << QStringLiteral("%1: %2").arg(QString::fromStdString(b.name),
                                          b.available ? QString::fromStdString(b.device) : tr("none"));
  }
  backendLabel_->setText(parts.join(QStringLiteral("   ·   ")));
  backendLabel_->setToolTip(tr("Simulation backends found by core"));
  statusBar()->addPermanentWidget(backendLabel_);
  statusBar()->addPermanentWidget(remaining_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->showMessage(tr("Ready"), 4000);
}

// --- scenario ----------------------------------------------------------------------------------

QString MainWindow::scenarioSource() const {
  return scenarioPath_.isEmpty() ? QStringLiteral("scenario") : QFileInfo(scenarioPath_).fileName();
}

void MainWindow::setScenario(const mrwb::Scenario& s) {
  scenario_ = s;
  panel_->setScenario(scenario_);
  revalidate();
  updateWindowTitle();
}

bool MainWindow::loadScenario(const QString& path) {
  try {
    mrwb::Scenario s = mrwb::load_scenario(path.toStdString());
    scenarioPath_ = path;
    setScenario(s);
    statusBar()->showMessage(tr("Loaded %1").arg(QDir::toNativeSeparators(path)), 6000);
    return true;
  } catch (const mrwb::InputError& e) {
    reportError(tr("Cannot load scenario"), QString::fromUtf8(e.what()));
  } catch (const std::exception& e) {
    reportError(tr("Cannot load scenario"), QStringLiteral("%1: %2").arg(path, QString::fromUtf8(e.what())));
  }
  return false;
}

bool MainWindow::saveScenario(const QString& path) {
  try {
    mrwb::save_scenario(scenario_, path.toStdString());
    scenarioPath_ = path;
    updateWindowTitle();
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 6000);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot save scenario"), QString::fromUtf8(e.what()));
  }
  return false;
}

void MainWindow::openScenarioDialog() {
  const QString dir = scenarioPath_.isEmpty() ? QDir::currentPath() : QFileInfo(scenarioPath_).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), dir,
                                                    tr("Scenario (*.json);;All files (*)"));
  if (!path.isEmpty()) loadScenario(path);
}

void MainWindow::saveScenarioAsDialog() {
  const QString suggested = scenarioPath_.isEmpty()
                                ? QDir::current().filePath(QString::fromStdString(scenario_.name) + ".json")
                                : scenarioPath_;
  QString path = QFileDialog::getSaveFileName(this, tr("Save scenario as"), suggested,
                                              tr("Scenario (*.json)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
  saveScenario(path);
}

void MainWindow::onScenarioEdited(const mrwb::Scenario& s) {
  scenario_ = s;
  revalidate();
  updateWindowTitle();
}

void MainWindow::onPresetRequested(const QString& name) {
  try {
    scenarioPath_.clear();
    setScenario(mrwb::scenario_preset(name.toStdString()));
    statusBar()->showMessage(tr("Preset “%1” loaded").arg(name), 5000);
  } catch (const std::exception& e) {
    reportError(tr("Cannot load preset"), QString::fromUtf8(e.what()));
  }
}

QString MainWindow::revalidate() {
  QString message;
  try {
    mrwb::validate_scenario(scenario_, scenarioSource().toStdString());
  } catch (const mrwb::InputError& e) {
    message = QString::fromUtf8(e.what());
  }
  valid_ = message.isEmpty();
  panel_->setValidationMessage(message);
  if (valid_) {
    try {
      const auto bytes = mrwb::phantom_memory_bytes(scenario_.phantom, scenario_.sequence.matrix);
      panel_->setMemoryEstimate(QLocale().formattedDataSize(static_cast<qint64>(bytes)));
    } catch (const std::exception&) {
      panel_->setMemoryEstimate(tr("unknown"));
    }
    if (statusBar()->currentMessage().startsWith(tr("Invalid: "))) statusBar()->clearMessage();
  } else {
    panel_->setMemoryEstimate(QStringLiteral("–"));
    statusBar()->showMessage(tr("Invalid: ") + message);
  }
  if (runAction_) runAction_->setEnabled(valid_ && !isRunning());
  return message;
}

void MainWindow::updateWindowTitle() {
  const QString file = scenarioPath_.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(QFileInfo(scenarioPath_).fileName());
  setWindowTitle(tr("MR Workbench — %1%2").arg(QString::fromStdString(scenario_.name), file));
}

// --- running -----------------------------------------------------------------------------------

bool MainWindow::isRunning() const { return worker_ && worker_->isRunning(); }

void MainWindow::run() {
  if (isRunning()) return;
  const QString message = revalidate();
  if (!message.isEmpty()) {
    lastError_ = message;
    lastErrorIsInput_ = true;
    emit runFinished(false);
    reportError(tr("Invalid scenario"), message);
    return;
  }
  if (!worker_->start(scenario_)) return;
  setRunning(true);
  statusBar()->showMessage(tr("Running “%1” (%2 × %2, backend %3)…")
                               .arg(QString::fromStdString(scenario_.name))
                               .arg(scenario_.sequence.matrix)
                               .arg(QString::fromStdString(scenario_.backend)));
}

void MainWindow::cancel() {
  if (!isRunning()) return;
  worker_->cancel();
  cancelAction_->setEnabled(false);  // one request is enough; the worker confirms with `cancelled`
  statusBar()->showMessage(tr("Cancelling…"));
}

void MainWindow::setRunning(bool running) {
  runAction_->setEnabled(!running && valid_);
  cancelAction_->setEnabled(running);
  openAction_->setEnabled(!running);
  panel_->setEnabled(!running);  // edits would not reach the running job; avoid the illusion
  // Views keep the previous results while a run goes on; empty ones say what is happening.
  for (ImageView* v : {reconView_, truthView_, errorView_}) {
    if (!v->hasImage()) v->clearImage(running ? tr("Simulating…") : QString());
  }
  if (!running) {
    progress_->setFormat(result_ ? tr("done") : tr("idle"));
    progress_->setValue(result_ ? 100 : 0);
    remaining_->clear();
  } else {
    progress_->setValue(0);
    progress_->setFormat(tr("starting  %p%"));
    remaining_->setText(tr("estimating time…"));
  }
}

void MainWindow::showResult(const mrwb::PipelineResult& r) {
  const std::vector<float> recon = r.recon.magnitude();
  const std::vector<float> truth = r.truth.magnitude();
  // One grey scale for both magnitudes, so equal brightness means equal signal.
  const double hi = std::max({maxFinite(recon), maxFinite(truth), 1e-20f});
  const QString method = scenario_.recon.method == "grappa" ? tr("GRAPPA, R = %1").arg(scenario_.sequence.acceleration)
                         : scenario_.sequence.acceleration > 1 ? tr("FFT, zero-filled, R = %1").arg(scenario_.sequence.acceleration)
                                                               : tr("FFT");
  reconView_->setImage(recon, r.recon.nx, r.recon.ny, false, tr("Reconstruction (%1)").arg(method), std::make_pair(0.0, hi));
  truthView_->setImage(truth, r.truth.nx, r.truth.ny, false, tr("Ground truth (Mxy at TE)"), std::make_pair(0.0, hi));
  errorView_->setImage(r.error_map, r.recon.nx, r.recon.ny, true, QStringLiteral("Error map |recon|−|truth|"));

  const auto& m = r.metrics;
  psnrText_ = QString::number(m.psnr_db, 'f', 2);
  metrics_->item(0, kPsnr)->setText(psnrText_);
  metrics_->item(0, kPercent)->setText(QString::number(m.percent_error, 'f', 2));
  metrics_->item(0, kNrmse)->setText(QString::number(m.nrmse, 'f', 4));
  metrics_->item(0, kSsim)->setText(QString::number(m.ssim, 'f', 4));
  metrics_->item(0, kBackend)->setText(QString::fromStdString(r.backend));
  metrics_->item(0, kSimSeconds)->setText(QString::number(r.simulate_seconds, 'g', 3));
  metrics_->item(0, kReconSeconds)->setText(QString::number(r.recon_seconds, 'g', 3));
  statusBar()->showMessage(tr("Done: PSNR %1 dB, simulated in %2 s on %3, reconstructed in %4 s")
                               .arg(psnrText_)
                               .arg(r.simulate_seconds, 0, 'g', 3)
                               .arg(QString::fromStdString(r.backend))
                               .arg(r.recon_seconds, 0, 'g', 3),
                           15000);
}

void MainWindow::clearMetrics() {
  for (int c = 0; c < kColumns; ++c) metrics_->item(0, c)->setText(QStringLiteral("–"));
}

void MainWindow::reportError(const QString& title, const QString& message) {
  statusBar()->showMessage(message);
  if (interactive_) QMessageBox::warning(this, title, message);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  // The worker's destructor joins its thread; cancelling first makes that quick.
  if (isRunning()) worker_->cancel();
  QMainWindow::closeEvent(e);
}

}  // namespace mrwb::ui
