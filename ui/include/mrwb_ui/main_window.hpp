#pragma once
// The workbench window: scenario editor (left dock), reconstruction / ground truth / error map views
// (centre), metrics (bottom dock), Run / Cancel with progress and time remaining. It owns the
// Scenario being edited; core validates, simulates, reconstructs and compares.
#include <QMainWindow>
#include <QString>
#include <memory>

#include "mrwb/pipeline.hpp"
#include "mrwb/scenario.hpp"

class QAction;
class QLabel;
class QProgressBar;
class QTableWidget;

namespace mrwb::ui {

class ImageView;
class ScenarioPanel;
class SimulationWorker;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a scenario JSON through core. On a bad file: status bar message and, when interactive,
  // an error dialog; returns false and keeps the current scenario.
  bool loadScenario(const QString& path);
  bool saveScenario(const QString& path);
  // Replaces the scenario being edited (e.g. a preset or one built by a test).
  void setScenario(const mrwb::Scenario& s);
  const mrwb::Scenario& scenario() const { return scenario_; }

  // Interactive (default): errors also open a dialog. Scripted runs and tests turn dialogs off.
  void setInteractive(bool on) { interactive_ = on; }

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
  void saveScenarioAsDialog();

 signals:
  // Emitted once per run(): true with new results, false on invalid input, failure or cancel.
  void runFinished(bool ok);
  void runCancelled();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  void buildActions();
  void buildViews();
  void buildDocks();
  void buildStatusBar();
  void onScenarioEdited(const mrwb::Scenario& s);
  void onPresetRequested(const QString& name);
  // Asks core whether the scenario is valid; shows the verdict. Returns the message ("" if valid).
  QString revalidate();
  void setRunning(bool running);
  void showResult(const mrwb::PipelineResult& r);
  void clearMetrics();
  void reportError(const QString& title, const QString& message);
  void updateWindowTitle();
  QString scenarioSource() const;

  mrwb::Scenario scenario_;
  QString scenarioPath_;
  bool interactive_ = true;
  bool valid_ = true;
  QString psnrText_;
  QString lastError_;
  bool lastErrorIsInput_ = false;
  std::shared_ptr<const mrwb::PipelineResult> result_;

  ScenarioPanel* panel_ = nullptr;
  ImageView* reconView_ = nullptr;
  ImageView* truthView_ = nullptr;
  ImageView* errorView_ = nullptr;
  QTableWidget* metrics_ = nullptr;
  SimulationWorker* worker_ = nullptr;

  QAction* openAction_ = nullptr;
  QAction* saveAsAction_ = nullptr;
  QAction* runAction_ = nullptr;
  QAction* cancelAction_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* remaining_ = nullptr;
  QLabel* backendLabel_ = nullptr;
};

}  // namespace mrwb::ui
