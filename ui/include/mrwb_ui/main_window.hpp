#pragma once
// The workbench window around a ScenarioDocument: docks for the scenario editor (Scenario), backend
// choice and progress (Run) and the metrics table (Metrics) around the reconstruction / ground truth /
// error map views; File (New, Open, Open Recent, Save, Save As), Edit (Undo, Redo), Teaching and View
// menus; autosave and recovery. The central area holds two rooms, as tabs: Images (the last run's recon,
// truth and error map beside the docks) and Compare (the ComparisonView, which takes the whole window: the
// docks are put away on entry and come back as they were on leaving). Core validates, simulates, reconstructs and compares; the window only
// shows and forwards.
//
// Non-interactive mode (scripted runs, tests): no dialog ever opens. Errors go to the status bar and the
// Run dock; the unsaved-changes question is answered with unsavedChangesAnswer() (Discard by default,
// so a scripted New/Open/close never blocks; Save writes to the document's file when it has one, else
// acts as Cancel); Save without a file fails instead of asking for a name.
#include <QByteArray>
#include <QMainWindow>
#include <QMessageBox>
#include <QString>
#include <memory>
#include <optional>

#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/scenario/scenario.hpp"

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTableWidget;
class QTabWidget;
class QTimer;

namespace mrwb::ui {

class Autosave;
class CoilMapView;
class ComparisonView;
class FlowView;
class ImageView;
class KspaceView;
class VolumeView;
class ScenarioDocument;
class PulseqPanel;
class ScenarioPanel;
class SegmentEditor;
class SequenceDiagramView;
class SimulationWorker;
class SweepView;
class TeachingMenu;
class TrajectoryPlotView;
class VesselTreeView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // --- document ----------------------------------------------------------------------------------
  ScenarioDocument* document() const { return doc_; }
  const mrwb::Scenario& scenario() const;
  // Replaces the scenario without asking (a fresh, clean document with no file), e.g. from a test.
  void setScenario(const mrwb::Scenario& s);
  // Asks about unsaved changes, then loads through core. On a bad file: the message in the status
  // bar (and a dialog when interactive); returns false and keeps the current document.
  bool loadScenario(const QString& path);
  // Writes the scenario (atomically, through core) and makes `path` the document's file.
  bool saveScenario(const QString& path);
  // Save to the document's file; without one: Save As (a dialog; non-interactive: returns false).
  bool save();
  // File > New: asks about unsaved changes, then the default preset. False when cancelled.
  bool newScenario();
  // The unsaved-changes question (Save / Discard / Cancel). True: go on (saved or discarded).
  bool maybeSave();
  void setUnsavedChangesAnswer(QMessageBox::StandardButton answer) { unsavedAnswer_ = answer; }
  QMessageBox::StandardButton unsavedChangesAnswer() const { return unsavedAnswer_; }

  // --- autosave and recovery ---------------------------------------------------------------------
  Autosave* autosave() const { return autosave_; }
  void setAutosaveIntervalMs(int ms);
  // The autosave to offer for the current document (newer than its file, or of an untitled one).
  std::optional<QString> recoverableAutosave() const;
  // Loads that autosave into the document (keeping its file name, marked unsaved). False if none.
  bool restoreAutosave();
  // At start: asks whether to restore an autosave (interactive only); returns whether one was restored.
  bool offerRecovery();

  // --- panels ------------------------------------------------------------------------------------
  // Docks `w` (objectName also names the dock in QSettings and for --panel), adds its toggle to
  // View > Panels and restores its saved place. For the view widgets other engineers add.
  QDockWidget* addPanelDock(const QString& objectName, const QString& title, QWidget* w, Qt::DockWidgetArea area);
  // Shows and raises the dock named `name`: its objectName ("runDock"), that without "Dock" ("run"),
  // or its title, case-insensitive. False if none matches.
  bool showPanel(const QString& name);
  // objectNames of all docks, and "compare" (the Compare room; --panel compare opens it).
  QStringList panelNames() const;
  // Opens the Compare room (true) or the Images room with the docks as they were (false).
  void showCompareRoom(bool compare);
  bool inCompareRoom() const { return inCompareRoom_; }
  ScenarioPanel* scenarioPanel() const { return panel_; }
  QTableWidget* metricsTable() const { return metrics_; }
  TeachingMenu* teachingMenu() const { return teaching_; }
  QAction* runAction() const { return runAction_; }
  // Simulation > Compare models: both simulation models on the scenario, in the Compare panel.
  QAction* compareModelsAction() const { return compareModelsAction_; }
  QAction* undoAction() const { return undoAction_; }
  // Simulation > Live (checked by default): every edit re-simulates and re-reconstructs, debounced by
  // liveDebounceMs(), cancelling the run in flight; scenarios live_mode_refusal() turns away keep Run.
  QAction* liveAction() const { return liveAction_; }
  bool liveActive() const;  // Live is checked and the scenario may run live
  int liveDebounceMs() const;
  void setLiveDebounceMs(int ms);
  QAction* redoAction() const { return redoAction_; }
  // The message the Run dock shows (validation, failure, done).
  QString runMessage() const;

  // Interactive (default): errors and questions open dialogs. Scripted runs and tests turn them off.
  void setInteractive(bool on) { interactive_ = on; }

  VesselTreeView* vesselTreeView() const { return treeView_; }
  SegmentEditor* segmentEditor() const { return segmentEditor_; }
  ComparisonView* comparisonView() const { return comparison_; }
  FlowView* flowView() const { return flowView_; }
  PulseqPanel* pulseqPanel() const { return pulseq_; }
  SweepView* sweepView() const { return sweep_; }
  KspaceView* kspaceView() const { return kspace_; }
  VolumeView* volumeView() const { return volume_; }
  // Selects shown segment `s` of the Phantom 3-D tree and opens it in the segment editor (as a click
  // does). False when there is no such segment.
  bool selectSegment(int s);
  // File > Import / Export Pulseq without a dialog: the Pulseq dock shows the file (or the error, also
  // in the status bar). Export writes the scenario's sequence.
  bool importPulseq(const QString& path);
  bool exportPulseq(const QString& path);
  ImageView* reconView() const { return reconView_; }
  ImageView* truthView() const { return truthView_; }
  ImageView* errorView() const { return errorView_; }
  SimulationWorker* worker() const { return worker_; }
  bool isRunning() const;
  // Formatted PSNR in dB of the last finished run (e.g. "31.42"); empty before any.
  QString psnrText() const { return psnrText_; }
  QString lastError() const { return lastError_; }
  // The last run failed on bad input (invalid scenario, unavailable backend) rather than at runtime.
  bool lastErrorIsInputError() const { return lastErrorIsInput_; }
  std::shared_ptr<const mrwb::PipelineResult> lastResult() const { return result_; }

 public slots:
  void run();
  void cancel();
  void openScenarioDialog();
  bool saveScenarioAsDialog();
  void importPulseqDialog();
  void exportPulseqDialog();

 signals:
  // After every change of the edited scenario: edit, undo, redo, open, new, preset, teaching, recovery.
  void scenarioChanged(const mrwb::Scenario& s);
  // Emitted once per run(): true with new results, false on invalid input, failure or cancel.
  void runFinished(bool ok);
  void runCancelled();
  // A live run started (after an edit); `field` is the edited scenario key ("" for undo / redo).
  void liveRunStarted(const QString& field);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;

 private:
  void buildActions();
  void buildViews();
  void buildDocks();
  // The design and comparison views (main_window_views.cpp): one dock each, tabbed on the right.
  void buildViewDocks();
  // Dock tabs show their whole titles, with scroll arrows where they do not fit (main_window_views.cpp).
  void keepDockTitlesWhole();
  // Hands a finished run to the comparison view and the phase-contrast velocity view.
  void showViewResults(const mrwb::PipelineResult& r);
  // After the simulation: reconstructs with every method chosen in the Compare panel (when "On Run" is
  // checked). True when a comparison started; the run then ends in onComparisonFinished.
  bool startComparison();
  void onComparisonFinished(bool ok);
  QWidget* buildRunPanel();
  void buildStatusBar();
  void fillBackends();
  void onScenarioChanged(const mrwb::Scenario& s);
  void onPresetRequested(const QString& name);
  void rebuildRecentMenu();
  // Asks core whether the scenario is valid; shows the verdict. Returns the message ("" if valid).
  QString revalidate();
  void setRunMessage(const QString& text, bool error);
  void setRunning(bool running);
  void showResult(const mrwb::PipelineResult& r);
  // Live mode (main_window_live.cpp).
  void buildLiveMode();
  void onUserEdit(const QString& field);  // an edit, undo or redo: arms the debounce, cancels the run
  void startLiveRun();
  // After a run ends (any outcome): starts the live run an edit left waiting. True when one started.
  bool startPendingLiveRun();
  // The result of a run is stale when the scenario changed since it started.
  bool resultIsStale() const;
  void clearMetrics();
  void reportError(const QString& title, const QString& message);
  void updateWindowTitle();
  QString scenarioSource() const;

  ScenarioDocument* doc_ = nullptr;
  Autosave* autosave_ = nullptr;
  bool interactive_ = true;
  QMessageBox::StandardButton unsavedAnswer_ = QMessageBox::Discard;
  bool valid_ = true;
  QString psnrText_;
  QString lastError_;
  bool lastErrorIsInput_ = false;
  bool comparing_ = false;  // the run's comparison step is going on
  QString simulatedMessage_;  // the run message of the simulation, while the comparison runs
  std::shared_ptr<const mrwb::PipelineResult> result_;

  ScenarioPanel* panel_ = nullptr;
  QTabWidget* rooms_ = nullptr;
  bool inCompareRoom_ = false;
  QByteArray designState_;  // the docks as they were when the Compare room was entered
  void onRoomChanged(int index);
  ImageView* reconView_ = nullptr;
  ImageView* truthView_ = nullptr;
  ImageView* errorView_ = nullptr;
  QTableWidget* metrics_ = nullptr;
  SimulationWorker* worker_ = nullptr;
  TeachingMenu* teaching_ = nullptr;
  VesselTreeView* treeView_ = nullptr;
  SegmentEditor* segmentEditor_ = nullptr;
  FlowView* flowView_ = nullptr;
  SequenceDiagramView* sequenceView_ = nullptr;
  TrajectoryPlotView* trajectoryView_ = nullptr;
  CoilMapView* coilView_ = nullptr;
  ComparisonView* comparison_ = nullptr;
  PulseqPanel* pulseq_ = nullptr;
  SweepView* sweep_ = nullptr;
  KspaceView* kspace_ = nullptr;
  VolumeView* volume_ = nullptr;
  ImageView* velocityView_ = nullptr;

  QMenu* panelsMenu_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QAction* newAction_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* saveAction_ = nullptr;
  QAction* saveAsAction_ = nullptr;
  QAction* undoAction_ = nullptr;
  QAction* redoAction_ = nullptr;
  QAction* runAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QAction* compareModelsAction_ = nullptr;
  QAction* liveAction_ = nullptr;
  QTimer* liveTimer_ = nullptr;
  bool livePending_ = false;     // an edit waits for the run in flight to stop
  QString liveField_;            // the last edited field, for the status
  QString runScenarioJson_;      // the scenario of the run in flight, to tell stale results
  bool liveRun_ = false;         // the run in flight was started by live mode
  QComboBox* backend_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* remaining_ = nullptr;
  QLabel* memory_ = nullptr;
  QLabel* runMessage_ = nullptr;
  QLabel* backendLabel_ = nullptr;
};

}  // namespace mrwb::ui
