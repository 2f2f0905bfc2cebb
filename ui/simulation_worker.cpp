#include "mrwb_ui/simulation_worker.hpp"

#include <algorithm>
#include <cmath>

#include "mrwb_ui/background_job.hpp"

namespace mrwb::ui {

SimulationWorker::SimulationWorker(QObject* parent) : QObject(parent), job_(new BackgroundJob(this)) {
  qRegisterMetaType<std::shared_ptr<mrwb::PipelineResult>>();
  connect(job_, &BackgroundJob::progress, this, &SimulationWorker::onProgress);
  connect(job_, &BackgroundJob::finished, this, &SimulationWorker::onDone);
}

SimulationWorker::~SimulationWorker() = default;  // job_ (a child) cancels and waits

bool SimulationWorker::isRunning() const { return job_->busy(); }

bool SimulationWorker::start(const mrwb::Scenario& scenario) {
  auto result = std::make_shared<std::shared_ptr<mrwb::PipelineResult>>();
  const bool launched = job_->start(
      [scenario, result](const mrwb::ProgressFn& progress, const mrwb::CancelToken& cancel) {
        *result = std::make_shared<mrwb::PipelineResult>(mrwb::run_pipeline(scenario, progress, cancel));
      },
      QStringLiteral("mrwb-pipeline"));
  if (!launched) return false;
  result_ = result;
  lastPercent_ = -1;
  lastStage_.clear();
  lastEtaMs_ = -1;
  clock_.start();
  emit started();
  emit progress(0, QStringLiteral("start"));
  emit timeRemaining(-1);
  return true;
}

void SimulationWorker::cancel() { job_->cancel(); }

void SimulationWorker::onProgress(double fraction, const QString& stage) {
  if (!job_->busy() || job_->cancelRequested()) return;
  const int percent = static_cast<int>(std::floor(std::clamp(fraction, 0.0, 1.0) * 100));
  if (percent != lastPercent_ || stage != lastStage_) {
    lastPercent_ = percent;
    lastStage_ = stage;
    emit progress(percent, stage);
  }
  // Linear extrapolation of the elapsed time; shown only once there is something to go on, and
  // refreshed at most 4 times a second so the label does not flicker.
  const qint64 ms = clock_.elapsed();
  if (lastEtaMs_ >= 0 && ms - lastEtaMs_ < 250) return;
  lastEtaMs_ = ms;
  if (fraction >= 0.01 && ms > 300) {
    emit timeRemaining(ms / 1000.0 * (1.0 - fraction) / fraction);
  } else {
    emit timeRemaining(-1);
  }
}

void SimulationWorker::onDone() {
  const BackgroundJob::Outcome outcome = job_->outcome();
  lastFailureInput_ = outcome == BackgroundJob::Outcome::Failed && job_->errorWasInput();
  std::shared_ptr<mrwb::PipelineResult> result = *result_;
  if (outcome == BackgroundJob::Outcome::Cancelled) {
    emit cancelled();
  } else if (outcome == BackgroundJob::Outcome::Failed || !result) {
    const QString error = job_->error();
    emit failed(error.isEmpty() ? QStringLiteral("the pipeline returned no result") : error);
  } else {
    emit progress(100, QStringLiteral("done"));
    emit timeRemaining(0);
    emit finished(std::move(result));
  }
}

QString formatDuration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return QStringLiteral("--");
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return QStringLiteral("%1 s").arg(s);
  if (s < 3600) return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

}  // namespace mrwb::ui
