#pragma once
// Runs mrwb::run_pipeline off the GUI thread and reports back through queued signals. The worker
// owns no algorithm: it only moves a Scenario in and a PipelineResult out.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <memory>

#include "mrwb/base/progress.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb::ui {

class BackgroundJob;

class SimulationWorker : public QObject {
  Q_OBJECT
 public:
  explicit SimulationWorker(QObject* parent = nullptr);
  // Cancels a running job and waits for its thread, so no callback outlives the worker.
  ~SimulationWorker() override;

  bool isRunning() const;
  // Whether the last `failed` came from mrwb::InputError (bad input: the CLI's exit code 2).
  bool lastFailureWasInputError() const { return lastFailureInput_; }

 public slots:
  // Starts a run with a copy of `scenario`. Returns false (and does nothing) if one is running.
  bool start(const mrwb::Scenario& scenario);
  // Asks the running job to stop; `cancelled` follows once core has unwound (~100 ms).
  void cancel();

 signals:
  void started();
  void progress(int percent, const QString& stage);
  // Seconds left, estimated from the progress rate; negative while unknown.
  void timeRemaining(double seconds);
  void finished(std::shared_ptr<mrwb::PipelineResult> result);
  void failed(const QString& message);
  void cancelled();

 private:
  void onProgress(double fraction, const QString& stage);
  void onDone();

  BackgroundJob* job_;
  std::shared_ptr<std::shared_ptr<mrwb::PipelineResult>> result_;  // written by the running job
  bool lastFailureInput_ = false;
  int lastPercent_ = -1;
  QString lastStage_;
  QElapsedTimer clock_;
  qint64 lastEtaMs_ = -1;
};

// Formats seconds as "12 s", "3 min 05 s" for the progress display.
QString formatDuration(double seconds);

}  // namespace mrwb::ui

Q_DECLARE_METATYPE(std::shared_ptr<mrwb::PipelineResult>)
