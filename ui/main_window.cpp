#include "mrwb_ui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/version.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/pipeline/scenario_engine.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb_ui/autosave.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/recent_files.hpp"
#include "mrwb_ui/scenario_document.hpp"
#include "mrwb_ui/scenario_panel.hpp"
#include "mrwb_ui/simulation_worker.hpp"
#include "mrwb_ui/teaching_menu.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace mrwb::ui {

namespace {

enum MetricColumn { kPsnr, kPercent, kNrmse, kSsim, kBackend, kSimSeconds, kReconSeconds, kColumns };

const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
constexpr int kStateVersion = 4;  // bump when the default dock layout changes

float maxFinite(const std::vector<float>& v) {
  float out = 0;
  for (float x : v)
    if (std::isfinite(x)) out = std::max(out, x);
  return out;
}

QString plainTitle(QString title) { return title.remove(QLatin1Char('&')); }

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("MrwbMainWindow"));
  setMinimumSize(1280, 800);
  resize(1280, 800);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);

  doc_ = new ScenarioDocument(this);
  autosave_ = new Autosave(doc_, this);
  worker_ = new SimulationWorker(this);
  buildViews();
  buildDocks();
  buildViewDocks();
  buildActions();
  buildStatusBar();

  connect(doc_, &ScenarioDocument::scenarioChanged, this, &MainWindow::onScenarioChanged);
  connect(doc_, &ScenarioDocument::dirtyChanged, this, [this](bool dirty) {
    setWindowModified(dirty);
    saveAction_->setEnabled(dirty || doc_->path().isEmpty());
  });
  connect(doc_, &ScenarioDocument::pathChanged, this, [this] { updateWindowTitle(); });
  connect(autosave_, &Autosave::autosaved, this, [this](const QString& path) {
    statusBar()->showMessage(tr("Autosaved to %1").arg(QDir::toNativeSeparators(path)), 3000);
  });

  connect(worker_, &SimulationWorker::progress, this, [this](int percent, const QString& stage) {
    progress_->setValue(percent);
    progress_->setFormat(QStringLiteral("%1  %p%").arg(stage));
  });
  connect(worker_, &SimulationWorker::timeRemaining, this, [this](double s) {
    remaining_->setText(s < 0 ? tr("estimating time…") : tr("about %1 left").arg(formatDuration(s)));
  });
  connect(worker_, &SimulationWorker::finished, this, [this](std::shared_ptr<mrwb::PipelineResult> r) {
    if (resultIsStale()) {  // the scenario was edited during the run: never show the old result
      setRunning(false);
      setRunMessage(tr("Discarded the result of an earlier version of the scenario."), false);
      emit runFinished(false);
      startPendingLiveRun();
      return;
    }
    result_ = r;
    lastErrorIsInput_ = false;
    showResult(*r);
    showViewResults(*r);
    lastError_.clear();
    if (startComparison()) return;  // the run ends when the comparison does
    setRunning(false);
    emit runFinished(true);
  });
  connect(comparison_, &ComparisonView::comparisonFinished, this, &MainWindow::onComparisonFinished);
  connect(worker_, &SimulationWorker::failed, this, [this](const QString& message) {
    setRunning(false);
    lastError_ = message;
    lastErrorIsInput_ = worker_->lastFailureWasInputError();
    setRunMessage(tr("Run failed: %1").arg(message), true);
    emit runFinished(false);
    if (startPendingLiveRun()) return;  // the failing version was already edited away
    reportError(tr("Run failed"), message);
  });
  connect(worker_, &SimulationWorker::cancelled, this, [this] {
    setRunning(false);
    lastError_ = tr("cancelled");
    lastErrorIsInput_ = false;
    setRunMessage(tr("Cancelled. The views still show the previous results."), false);
    statusBar()->showMessage(tr("Cancelled. The views still show the previous results."), 8000);
    emit runCancelled();
    emit runFinished(false);
    startPendingLiveRun();
  });

  doc_->reset(mrwb::scenario_preset("default"));
  setRunning(false);

  QSettings settings;
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  restoreState(settings.value(kStateKey).toByteArray(), kStateVersion);
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
  // The rooms: Images here, Compare once buildViewDocks has made the comparison view.
  rooms_ = new QTabWidget(this);
  rooms_->setObjectName(QStringLiteral("rooms"));
  rooms_->setDocumentMode(true);  // no frame: the Compare room's panes get every pixel
  rooms_->addTab(splitter, tr("Images"));
  setCentralWidget(rooms_);
}

void MainWindow::buildDocks() {
  panel_ = new ScenarioPanel;
  connect(panel_, &ScenarioPanel::scenarioEdited, this,
          [this](const mrwb::Scenario& s, const QString& field) {
            doc_->edit(s, field);
            onUserEdit(field);
          });
  connect(panel_, &ScenarioPanel::presetRequested, this, &MainWindow::onPresetRequested);
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  QDockWidget* scenarioDock = addPanelDock(QStringLiteral("scenarioDock"), tr("Scenario"), scroll, Qt::LeftDockWidgetArea);
  // Wide enough for the whole form (no horizontal scrolling: values must never be clipped).
  const int formWidth = panel_->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 8;
  scenarioDock->setMinimumWidth(std::max(340, formWidth));

  QDockWidget* runDock = addPanelDock(QStringLiteral("runDock"), tr("Run"), buildRunPanel(), Qt::LeftDockWidgetArea);
  splitDockWidget(scenarioDock, runDock, Qt::Vertical);
  resizeDocks({scenarioDock}, {std::max(420, formWidth)}, Qt::Horizontal);

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
  addPanelDock(QStringLiteral("metricsDock"), tr("Metrics"), metrics_, Qt::BottomDockWidgetArea);
}

QWidget* MainWindow::buildRunPanel() {
  auto* w = new QWidget;
  auto* layout = new QVBoxLayout(w);
  layout->setContentsMargins(8, 8, 8, 8);
  auto* form = new QFormLayout;
  form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
  backend_ = new QComboBox(w);
  backend_->setObjectName(QStringLiteral("backend"));
  backend_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  backend_->setMinimumContentsLength(12);
  backend_->setToolTip(tr("Where the simulation runs; devices as core's backend registry reports them"));
  fillBackends();
  connect(backend_, &QComboBox::activated, this, [this](int) {
    mrwb::Scenario s = doc_->scenario();
    // The items' data are backend names (fillBackends), so they always parse.
    if (const auto b = mrwb::parse_backend(backend_->currentData().toString().toStdString())) s.backend = *b;
    doc_->edit(s, QStringLiteral("backend"));
    onUserEdit(QStringLiteral("backend"));
  });
  form->addRow(tr("Backend"), backend_);
  memory_ = new QLabel(w);
  memory_->setToolTip(tr("Memory the phantom and the simulator state need"));
  form->addRow(tr("Memory"), memory_);
  layout->addLayout(form);

  auto* buttons = new QHBoxLayout;
  for (QString name : {QStringLiteral("runButton"), QStringLiteral("cancelButton")}) {
    auto* b = new QToolButton(w);
    b->setObjectName(name);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    buttons->addWidget(b);
  }
  layout->addLayout(buttons);

  progress_ = new QProgressBar(w);
  progress_->setObjectName(QStringLiteral("runProgress"));
  progress_->setRange(0, 100);
  progress_->setTextVisible(true);
  layout->addWidget(progress_);
  remaining_ = new QLabel(w);
  remaining_->setObjectName(QStringLiteral("timeRemaining"));
  layout->addWidget(remaining_);
  runMessage_ = new QLabel(w);
  runMessage_->setObjectName(QStringLiteral("runMessage"));
  runMessage_->setWordWrap(true);
  runMessage_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Three lines for the message ("Done: PSNR …, simulated … on cuda (…), reconstructed …"), whatever its
  // length, so that a long one never squeezes the backend box above it (the whole text: tooltip, status bar).
  runMessage_->setFixedHeight(3 * runMessage_->fontMetrics().lineSpacing() + 2);
  runMessage_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  layout->addWidget(runMessage_);
  layout->setSizeConstraint(QLayout::SetMinimumSize);
  w->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // the Scenario editor takes the rest
  return w;
}

void MainWindow::fillBackends() {
  backend_->clear();
  backend_->addItem(tr("auto (CUDA if present, else CPU)"), QString::fromStdString(mrwb::name_of(mrwb::Backend::Auto)));
  auto* model = qobject_cast<QStandardItemModel*>(backend_->model());
  for (const auto& b : mrwb::list_backends()) {
    const QString name = QString::fromStdString(mrwb::name_of(b.name));
    QString text = name;
    if (!b.device.empty()) text += QStringLiteral(" — ") + QString::fromStdString(b.device);
    if (!b.available) text += tr(" (not available)");
    backend_->addItem(text, name);
    backend_->setItemData(backend_->count() - 1, text, Qt::ToolTipRole);
    // Unavailable backends are listed (the user should see CUDA exists) but cannot be chosen.
    if (!b.available && model) model->item(backend_->count() - 1)->setEnabled(false);
  }
}

QDockWidget* MainWindow::addPanelDock(const QString& objectName, const QString& title, QWidget* w,
                                      Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(objectName);
  dock->setWidget(w);
  addDockWidget(area, dock);
  restoreDockWidget(dock);  // its saved place, when the state was restored before it existed
  if (panelsMenu_) panelsMenu_->addAction(dock->toggleViewAction());
  return dock;
}

bool MainWindow::showPanel(const QString& name) {
  if (name.compare(QStringLiteral("compare"), Qt::CaseInsensitive) == 0 ||
      name.compare(QStringLiteral("compareDock"), Qt::CaseInsensitive) == 0) {
    showCompareRoom(true);
    return true;
  }
  for (QDockWidget* d : findChildren<QDockWidget*>()) {
    QString base = d->objectName();
    if (base.endsWith(QStringLiteral("Dock"))) base.chop(4);
    if (d->objectName().compare(name, Qt::CaseInsensitive) == 0 || base.compare(name, Qt::CaseInsensitive) == 0 ||
        plainTitle(d->windowTitle()).compare(name, Qt::CaseInsensitive) == 0) {
      showCompareRoom(false);  // the docks live in the Images room
      d->show();
      d->raise();
      return true;
    }
  }
  return false;
}

QStringList MainWindow::panelNames() const {
  QStringList names;
  for (const QDockWidget* d : findChildren<QDockWidget*>()) names << d->objectName();
  names << QStringLiteral("compare");
  return names;
}

void MainWindow::showCompareRoom(bool compare) {
  rooms_->setCurrentWidget(compare ? static_cast<QWidget*>(comparison_) : rooms_->widget(0));
}

// The Compare room takes the whole window (at 1280x800 two methods' images and error maps at 300 px need
// it): the docks go away on entry and come back where they were on leaving.
void MainWindow::onRoomChanged(int index) {
  const bool compare = rooms_->widget(index) == comparison_;
  if (compare == inCompareRoom_) return;
  inCompareRoom_ = compare;
  if (compare) {
    designState_ = saveState(kStateVersion);
    for (QDockWidget* d : findChildren<QDockWidget*>()) d->hide();
  } else {
    restoreState(designState_, kStateVersion);
  }
}

void MainWindow::buildActions() {
  newAction_ = new QAction(toolbarIcon(QStringLiteral("new")), tr("&New scenario"), this);
  newAction_->setShortcut(QKeySequence::New);
  newAction_->setStatusTip(tr("Start from the default scenario"));
  connect(newAction_, &QAction::triggered, this, &MainWindow::newScenario);

  openAction_ = new QAction(toolbarIcon(QStringLiteral("open")), tr("&Open scenario…"), this);
  openAction_->setShortcut(QKeySequence::Open);
  openAction_->setStatusTip(tr("Load a scenario JSON file"));
  connect(openAction_, &QAction::triggered, this, &MainWindow::openScenarioDialog);

  saveAction_ = new QAction(toolbarIcon(QStringLiteral("save")), tr("&Save"), this);
  saveAction_->setShortcut(QKeySequence::Save);
  saveAction_->setStatusTip(tr("Write the scenario to its file"));
  connect(saveAction_, &QAction::triggered, this, &MainWindow::save);

  saveAsAction_ = new QAction(tr("Save scenario &as…"), this);
  saveAsAction_->setShortcut(QKeySequence::SaveAs);
  saveAsAction_->setStatusTip(tr("Write the scenario as JSON under a new name"));
  connect(saveAsAction_, &QAction::triggered, this, &MainWindow::saveScenarioAsDialog);

  undoAction_ = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undoAction_->setIcon(toolbarIcon(QStringLiteral("undo")));
  undoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  redoAction_ = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  redoAction_->setIcon(toolbarIcon(QStringLiteral("redo")));
  redoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  connect(undoAction_, &QAction::triggered, this, [this] { onUserEdit({}); });
  connect(redoAction_, &QAction::triggered, this, [this] { onUserEdit({}); });
  buildLiveMode();

  runAction_ = new QAction(toolbarIcon(QStringLiteral("run")), tr("&Run"), this);
  runAction_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
  runAction_->setStatusTip(tr("Simulate, reconstruct and compare"));
  connect(runAction_, &QAction::triggered, this, &MainWindow::run);

  // Runs in the Compare panel's own worker (its progress bar and Cancel), beside the main Run.
  compareModelsAction_ = new QAction(tr("Compare &models"), this);
  compareModelsAction_->setStatusTip(tr("Simulate and reconstruct the scenario with the Eulerian and the Lagrangian model, "
                                        "side by side with their difference (Compare panel)"));
  connect(compareModelsAction_, &QAction::triggered, this, [this] {
    showCompareRoom(true);
    comparison_->compareModels();
  });

  cancelAction_ = new QAction(toolbarIcon(QStringLiteral("cancel")), tr("&Cancel"), this);
  cancelAction_->setShortcut(Qt::Key_Escape);
  cancelAction_->setStatusTip(tr("Stop the running job; nothing partial is kept"));
  connect(cancelAction_, &QAction::triggered, this, &MainWindow::cancel);
  findChild<QToolButton*>(QStringLiteral("runButton"))->setDefaultAction(runAction_);
  findChild<QToolButton*>(QStringLiteral("cancelButton"))->setDefaultAction(cancelAction_);

  auto* quitAction = new QAction(tr("&Quit"), this);
  quitAction->setShortcut(QKeySequence::Quit);
  connect(quitAction, &QAction::triggered, this, &QWidget::close);

  auto* resetViews = new QAction(tr("Reset image views"), this);
  connect(resetViews, &QAction::triggered, this, [this] {
    for (ImageView* v : {reconView_, truthView_, errorView_}) v->resetView();
  });

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(newAction_);
  file->addAction(openAction_);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addSeparator();
  file->addAction(saveAction_);
  file->addAction(saveAsAction_);
  file->addSeparator();
  file->addAction(tr("&Import Pulseq…"), this, &MainWindow::importPulseqDialog);
  file->addAction(tr("&Export Pulseq…"), this, &MainWindow::exportPulseqDialog);
  file->addSeparator();
  file->addAction(quitAction);
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(undoAction_);
  edit->addAction(redoAction_);
  QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
  sim->addAction(runAction_);
  sim->addAction(cancelAction_);
  sim->addAction(liveAction_);
  sim->addSeparator();
  sim->addAction(compareModelsAction_);
  QMenu* teachingMenu = menuBar()->addMenu(tr("&Teaching"));
  teaching_ = new TeachingMenu(teachingMenu, this);
  connect(teaching_, &TeachingMenu::entryChosen, this, [this](const TeachingEntry& e) {
    if (!maybeSave()) return;
    try {
      // No file: Save asks for a name instead of overwriting the shipped scenario.
      doc_->reset(mrwb::load_scenario(e.path.toStdString()));
      showPanel(QStringLiteral("scenarioDock"));  // its "About this scenario" box explains it
      statusBar()->showMessage(tr("Teaching scenario “%1”: %2").arg(e.title, e.description), 15000);
    } catch (const std::exception& ex) {
      reportError(tr("Cannot load teaching scenario"), QString::fromUtf8(ex.what()));
    }
  });
  QMenu* view = menuBar()->addMenu(tr("&View"));
  panelsMenu_ = view->addMenu(tr("&Panels"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) panelsMenu_->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(resetViews);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About MR Workbench"), this, [this] {
    QMessageBox::about(this, tr("About MR Workbench"),
                       tr("<b>MR Workbench</b> %1<br>MRI simulation and reconstruction workbench.<br>"
                          "Bloch-flow simulation, FFT and GRAPPA reconstruction, image-quality metrics.")
                           .arg(QString::fromLatin1(mrwb::version_string)));
  });

  auto* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolBar"));
  tb->setMovable(false);
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tb->addAction(newAction_);
  tb->addAction(openAction_);
  tb->addAction(saveAction_);
  tb->addSeparator();
  tb->addAction(undoAction_);
  tb->addAction(redoAction_);
  tb->addSeparator();
  tb->addAction(runAction_);
  tb->addAction(cancelAction_);
  tb->addAction(liveAction_);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = RecentFiles::list();
  for (const QString& f : files) {
    QAction* a = recentMenu_->addAction(QFileInfo(f).fileName());
    a->setStatusTip(QDir::toNativeSeparators(f));
    a->setData(f);
    connect(a, &QAction::triggered, this, [this, f] { loadScenario(f); });
  }
  if (files.isEmpty()) recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  recentMenu_->addSeparator();
  recentMenu_->addAction(tr("Clear list"), this, [] { RecentFiles::clear(); })->setEnabled(!files.isEmpty());
}

void MainWindow::buildStatusBar() {
  backendLabel_ = new QLabel;
  QStringList parts;
  for (const auto& b : mrwb::list_backends()) {
    parts << QStringLiteral("%1: %2").arg(QString::fromStdString(mrwb::name_of(b.name)),
                                          b.available ? QString::fromStdString(b.device) : tr("none"));
  }
  backendLabel_->setText(parts.join(QStringLiteral("   ·   ")));
  backendLabel_->setToolTip(tr("Simulation backends found by core"));
  statusBar()->addPermanentWidget(backendLabel_);
  statusBar()->showMessage(tr("Ready"), 4000);
}

// --- document ------------------------------------------------------------------------------------

const mrwb::Scenario& MainWindow::scenario() const { return doc_->scenario(); }

QString MainWindow::scenarioSource() const {
  return doc_->path().isEmpty() ? QStringLiteral("scenario") : QFileInfo(doc_->path()).fileName();
}

void MainWindow::setScenario(const mrwb::Scenario& s) { doc_->reset(s); }

void MainWindow::onScenarioChanged(const mrwb::Scenario& s) {
  // Edits come from the panel (already showing them); undo, redo and loads must be shown.
  if (ScenarioDocument::jsonText(panel_->scenario()) != ScenarioDocument::jsonText(s)) panel_->setScenario(s);
  const QString backend = QString::fromStdString(mrwb::name_of(s.backend));
  int i = backend_->findData(backend);
  if (i < 0) {
    backend_->addItem(backend, backend);
    i = backend_->count() - 1;
  }
  backend_->setCurrentIndex(i);
  revalidate();
  updateWindowTitle();
  emit scenarioChanged(s);
}

bool MainWindow::maybeSave() {
  if (!doc_->isDirty()) return true;
  QMessageBox::StandardButton answer = unsavedAnswer_;
  if (interactive_) {
    answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                  tr("“%1” has unsaved changes. Save them?").arg(QString::fromStdString(scenario().name)),
                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  }
  if (answer == QMessageBox::Save) return save();
  if (answer == QMessageBox::Discard) {
    autosave_->discard();  // the user chose to drop these edits: nothing to recover later
    return true;
  }
  return false;
}

bool MainWindow::newScenario() {
  if (!maybeSave()) return false;
  doc_->reset(mrwb::scenario_preset("default"));
  statusBar()->showMessage(tr("New scenario"), 4000);
  return true;
}

bool MainWindow::loadScenario(const QString& path) {
  if (!maybeSave()) return false;
  try {
    doc_->load(path);
    RecentFiles::add(doc_->path());
    statusBar()->showMessage(tr("Loaded %1").arg(QDir::toNativeSeparators(path)), 6000);
    return true;
  } catch (const std::exception& e) {
    lastError_ = QString::fromUtf8(e.what());
    reportError(tr("Cannot load scenario"), lastError_);
  }
  return false;
}

bool MainWindow::saveScenario(const QString& path) {
  try {
    doc_->save(path);
    RecentFiles::add(doc_->path());
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(doc_->path())), 6000);
    return true;
  } catch (const std::exception& e) {
    lastError_ = QString::fromUtf8(e.what());
    reportError(tr("Cannot save scenario"), lastError_);
  }
  return false;
}

bool MainWindow::save() {
  if (!doc_->path().isEmpty()) return saveScenario(doc_->path());
  return saveScenarioAsDialog();
}

void MainWindow::openScenarioDialog() {
  if (!maybeSave()) return;  // asked before the file dialog, as editors do
  const QString dir = doc_->path().isEmpty() ? QDir::currentPath() : QFileInfo(doc_->path()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), dir, tr("Scenario (*.json);;All files (*)"));
  if (!path.isEmpty()) loadScenario(path);
}

bool MainWindow::saveScenarioAsDialog() {
  if (!interactive_) {
    reportError(tr("Cannot save scenario"), tr("the scenario has no file yet (Save As needs a dialog)"));
    return false;
  }
  const QString suggested = doc_->path().isEmpty()
                                ? QDir::current().filePath(QString::fromStdString(scenario().name) + ".json")
                                : doc_->path();
  QString path = QFileDialog::getSaveFileName(this, tr("Save scenario as"), suggested, tr("Scenario (*.json)"));
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
  return saveScenario(path);
}

void MainWindow::onPresetRequested(const QString& name) {
  if (!maybeSave()) return;
  try {
    doc_->reset(mrwb::scenario_preset(name.toStdString()));
    statusBar()->showMessage(tr("Preset “%1” loaded").arg(name), 5000);
  } catch (const std::exception& e) {
    reportError(tr("Cannot load preset"), QString::fromUtf8(e.what()));
  }
}

// --- autosave and recovery ---------------------------------------------------------------------

void MainWindow::setAutosaveIntervalMs(int ms) { autosave_->setIntervalMs(ms); }

std::optional<QString> MainWindow::recoverableAutosave() const { return Autosave::recoverableFor(doc_->path()); }

bool MainWindow::restoreAutosave() {
  const std::optional<QString> file = recoverableAutosave();
  if (!file) return false;
  try {
    const mrwb::Scenario s = Autosave::read(*file);
    doc_->reset(s, doc_->path());
    doc_->markDirty();    // it differs from the file on disk until saved
    autosave_->saveNow();  // reset() dropped the old autosave; keep a copy until the user saves
    statusBar()->showMessage(tr("Recovered unsaved changes from %1").arg(QDir::toNativeSeparators(*file)), 8000);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot recover autosave"), QString::fromUtf8(e.what()));
  }
  return false;
}

bool MainWindow::offerRecovery() {
  const std::optional<QString> file = recoverableAutosave();
  if (!file || !interactive_) return false;
  const QString what = doc_->path().isEmpty() ? tr("an untitled scenario") : QFileInfo(doc_->path()).fileName();
  const auto answer = QMessageBox::question(
      this, tr("Recover unsaved changes?"),
      tr("An autosave of %1 newer than its file exists (%2). Restore it?").arg(what, QDir::toNativeSeparators(*file)),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  return answer == QMessageBox::Yes && restoreAutosave();
}

// --- validation ----------------------------------------------------------------------------------

QString MainWindow::revalidate() {
  QString message;
  try {
    mrwb::validate_scenario(scenario(), scenarioSource().toStdString());
  } catch (const mrwb::InputError& e) {
    message = QString::fromUtf8(e.what());
  }
  valid_ = message.isEmpty();
  panel_->setValidationMessage(message);
  if (valid_) {
    try {
      const auto bytes = mrwb::phantom_memory_bytes(scenario().phantom, scenario().sequence.matrix);
      memory_->setText(QLocale().formattedDataSize(static_cast<qint64>(bytes)));
    } catch (const std::exception&) {
      memory_->setText(tr("unknown"));
    }
    if (statusBar()->currentMessage().startsWith(tr("Invalid: "))) statusBar()->clearMessage();
    if (runMessage_->property("invalid").toBool()) setRunMessage({}, false);
  } else {
    memory_->setText(QStringLiteral("–"));
    statusBar()->showMessage(tr("Invalid: ") + message);
    setRunMessage(tr("Fix the scenario to run: %1").arg(message), true);
    runMessage_->setProperty("invalid", true);
  }
  if (runAction_) runAction_->setEnabled(valid_ && !isRunning());
  return message;
}

void MainWindow::setRunMessage(const QString& text, bool error) {
  runMessage_->setProperty("invalid", false);
  runMessage_->setText(text);
  runMessage_->setToolTip(text);
  runMessage_->setStyleSheet(error ? QStringLiteral("QLabel { color: #ffb4a9; }") : QString());
}

QString MainWindow::runMessage() const { return runMessage_->text(); }

void MainWindow::updateWindowTitle() {
  const QString file = doc_->path().isEmpty() ? QString() : QStringLiteral(" (%1)").arg(QFileInfo(doc_->path()).fileName());
  // [*] shows the unsaved-changes mark driven by setWindowModified.
  setWindowTitle(tr("MR Workbench — %1%2[*]").arg(QString::fromStdString(scenario().name), file));
}

// --- running -----------------------------------------------------------------------------------

bool MainWindow::isRunning() const { return comparing_ || (worker_ && worker_->isRunning()); }

bool MainWindow::startComparison() {
  if (!comparison_->compareOnRun() || comparison_->methods().empty()) return false;
  comparison_->run();
  if (!comparison_->busy()) return false;
  comparing_ = true;
  simulatedMessage_ = runMessage();
  progress_->setFormat(tr("comparing methods"));
  remaining_->clear();
  setRunMessage(tr("Simulated; reconstructing with %1 method(s) for the Compare panel…").arg(comparison_->methods().size()),
                false);
  return true;
}

void MainWindow::onComparisonFinished(bool ok) {
  if (!comparing_) return;  // a comparison started from the Compare panel itself
  comparing_ = false;
  setRunning(false);
  if (ok) {
    int failed = 0;
    for (const auto& e : comparison_->comparison().entries) failed += !e.ok();
    setRunMessage(simulatedMessage_ + tr(" · %1 method(s) compared%2 (Compare panel)")
                                     .arg(comparison_->comparison().entries.size())
                                     .arg(failed ? tr(", %1 failed").arg(failed) : QString()),
                  false);
    emit runFinished(true);
    startPendingLiveRun();
    return;
  }
  lastError_ = tr("comparison cancelled");
  setRunMessage(tr("Comparison cancelled; the simulation's results are shown."), false);
  emit runCancelled();
  emit runFinished(false);
  startPendingLiveRun();
}

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
  if (!worker_->start(scenario())) return;
  runScenarioJson_ = ScenarioDocument::jsonText(scenario());
  setRunning(true);
  setRunMessage(tr("Running “%1” (%2 × %2, backend %3, model %4)…")
                    .arg(QString::fromStdString(scenario().name))
                    .arg(scenario().sequence.matrix)
                    .arg(QString::fromStdString(mrwb::name_of(scenario().backend)),
                         QString::fromStdString(mrwb::simulation_model_text(scenario().simulation))),
                false);
  statusBar()->showMessage(runMessage());
}

void MainWindow::cancel() {
  if (!isRunning()) return;
  if (comparing_)
    comparison_->cancel();
  else
    worker_->cancel();
  cancelAction_->setEnabled(false);  // one request is enough; the worker confirms with `cancelled`
  statusBar()->showMessage(tr("Cancelling…"));
}

void MainWindow::setRunning(bool running) {
  runAction_->setEnabled(!running && valid_);
  cancelAction_->setEnabled(running);
  newAction_->setEnabled(!running);
  openAction_->setEnabled(!running);
  recentMenu_->setEnabled(!running);
  // Without live mode an edit would not reach the running job: no illusion of it. Live: an edit cancels
  // the run and starts another.
  panel_->setEnabled(!running || liveActive());
  backend_->setEnabled(!running || liveActive());
  if (!running) liveRun_ = false;
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
  const auto& q = scenario().sequence;
  const QString method = scenario().recon.method == mrwb::ReconMethod::Grappa ? tr("GRAPPA, R = %1").arg(q.acceleration)
                         : q.acceleration > 1 ? tr("FFT, zero-filled, R = %1").arg(q.acceleration)
                                              : tr("FFT");
  // A live update keeps each view's zoom and pan, and its window / level where the user set one.
  const auto show = [this](ImageView* v, const std::vector<float>& values, int nx, int ny, bool signedMap,
                           const QString& title, std::optional<std::pair<double, double>> range) {
    const bool keep = liveRun_ && v->hasImage() && v->imageWidth() == nx && v->imageHeight() == ny;
    const ImageView::ViewState state = v->viewState();
    const bool userWindow = v->windowLevelChangedByUser();
    v->setImage(values, nx, ny, signedMap, title, range);
    if (keep) v->setViewState(state, userWindow);
  };
  show(reconView_, recon, r.recon.nx, r.recon.ny, false, tr("Reconstruction (%1)").arg(method), std::make_pair(0.0, hi));
  show(truthView_, truth, r.truth.nx, r.truth.ny, false, tr("Ground truth (Mxy at TE)"), std::make_pair(0.0, hi));
  show(errorView_, r.error_map, r.recon.nx, r.recon.ny, true, QStringLiteral("Error map |recon|−|truth|"), std::nullopt);

  // A volume is measured over every voxel (3-D SSIM); the views show its central plane.
  const auto& m = r.volume_metrics ? *r.volume_metrics : r.metrics;
  metrics_->setToolTip(r.volume_metrics ? tr("The whole %1-plane volume against its truth, every voxel; the views show "
                                             "its central plane (Volume panel: MIP and planes)")
                                              .arg(r.recon_volume ? r.recon_volume->nz : 0)
                                        : tr("Reconstruction against the simulator's ground truth, on magnitudes"));
  psnrText_ = QString::number(m.psnr_db, 'f', 2);
  metrics_->item(0, kPsnr)->setText(psnrText_);
  metrics_->item(0, kPercent)->setText(QString::number(m.percent_error, 'f', 2));
  metrics_->item(0, kNrmse)->setText(QString::number(m.nrmse, 'f', 4));
  metrics_->item(0, kSsim)->setText(QString::number(m.ssim, 'f', 4));
  metrics_->item(0, kBackend)->setText(QString::fromStdString(r.backend));
  metrics_->item(0, kSimSeconds)->setText(QString::number(r.simulate_seconds, 'g', 3));
  metrics_->item(0, kReconSeconds)->setText(QString::number(r.recon_seconds, 'g', 3));
  const QString done = tr("Done: PSNR %1 dB%6, simulated in %2 s on %3 (%4), reconstructed in %5 s")
                           .arg(psnrText_)
                           .arg(r.simulate_seconds, 0, 'g', 3)
                           .arg(QString::fromStdString(r.backend), QString::fromStdString(r.model))
                           .arg(r.recon_seconds, 0, 'g', 3)
                           .arg(r.recon_volume ? tr(" over the %1-plane volume").arg(r.recon_volume->nz) : QString()) +
                       (r.sequence_played.empty() ? QString() : tr("; sequence played with %1").arg(QString::fromStdString(r.sequence_played))) +
                       (r.cell_states.empty() ? QString() : tr("; %1").arg(QString::fromStdString(r.cell_states)));
  setRunMessage(done, false);
  statusBar()->showMessage(done, 15000);
}

void MainWindow::clearMetrics() {
  for (int c = 0; c < kColumns; ++c) metrics_->item(0, c)->setText(QStringLiteral("–"));
}

void MainWindow::reportError(const QString& title, const QString& message) {
  statusBar()->showMessage(message);
  if (interactive_) QMessageBox::warning(this, title, message);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!maybeSave()) {
    e->ignore();
    return;
  }
  QSettings settings;
  settings.setValue(kGeometryKey, saveGeometry());
  settings.setValue(kStateKey, inCompareRoom_ ? designState_ : saveState(kStateVersion));  // the docks, not their absence
  // The worker's destructor joins its thread; cancelling first makes that quick.
  if (isRunning()) worker_->cancel();
  QMainWindow::closeEvent(e);
}

}  // namespace mrwb::ui
