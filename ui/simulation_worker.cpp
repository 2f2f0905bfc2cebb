#include "mrwb_ui/simulation_worker.hpp"

#include <QThread>
#include <algorithm>
#include <cmath>
#include <string>
#include <exception>
#include <string_view>

#include "mrwb/errors.hpp"

namespace mrwb::ui {

SimulationWorker::SimulationWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<mrwb::PipelineResult>>();
}

SimulationWorker::~SimulationWorker() {
  if (thread_) {
    cancel_.cancel();
    thread_->wait();
    delete thread_;
  }
}

bool SimulationWorker::start(const mrwb::Scenario& scenario) {
  if (running_) return false;
  // A token per run: a cancelled token stays cancelled, and the old thread keeps its own copy.
  cancel_ = mrwb::CancelToken{};
  running_ = true;
  lastPercent_ = -1;
  lastStage_.clear();
  lastEtaMs_ = -1;
  clock_.start();

  const mrwb::CancelToken token = cancel_;
  thread_ = QThread::create([this, scenario, token] {
    // Throttle: one queued event per 0.1 % step or stage change, not one per TR.
    int lastPermille = -1;
    std::string lastStage;
    const mrwb::ProgressFn progressFn = [&](double fraction, std::string_view stage) {
      const int permille = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 1000));
      if (permille == lastPermille && stage == lastStage) return;
      lastPermille = permille;
      lastStage.assign(stage);
      const QString qstage = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
      QMetaObject::invokeMethod(
          this, [this, fraction, qstage] { onProgress(fraction, qstage); }, Qt::QueuedConnection);
    };

    std::shared_ptr<mrwb::PipelineResult> result;
    QString error;
    bool inputError = false;
    bool wasCancelled = false;
    try {
      result = std::make_shared<mrwb::PipelineResult>(mrwb::run_pipeline(scenario, progressFn, token));
    } catch (const mrwb::Cancelled&) {
      wasCancelled = true;
    } catch (const mrwb::InputError& e) {
      error = QString::fromUtf8(e.what());
      inputError = true;
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    } catch (...) {
      error = QStringLiteral("unknown error in the simulation pipeline");
    }
    // A cancel that raced with the last step still means "discard": the user asked for no result.
    if (token.cancelled()) {
      wasCancelled = true;
      result.reset();
    }
    QMetaObject::invokeMethod(
        this, [this, result, error, inputError, wasCancelled] { onDone(result, error, inputError, wasCancelled); },
        Qt::QueuedConnection);
  });
  thread_->setObjectName(QStringLiteral("mrwb-pipeline"));
  thread_->start();
  emit started();
  emit progress(0, QStringLiteral("start"));
  emit timeRemaining(-1);
  return true;
}

void SimulationWorker::cancel() {
  if (running_) cancel_.cancel();
}

void SimulationWorker::onProgress(double fraction, const QString& stage) {
  if (!running_ || cancel_.cancelled()) return;
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

void SimulationWorker::onDone(std::shared_ptr<mrwb::PipelineResult> result, const QString& error,
                              bool inputError, bool wasCancelled) {
  if (thread_) {
    thread_->wait();  // the lambda has returned; this only joins the OS thread
    delete thread_;
    thread_ = nullptr;
  }
  running_ = false;
  lastFailureInput_ = !wasCancelled && inputError;
  if (wasCancelled) {
    emit cancelled();
  } else if (!error.isEmpty() || !result) {
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
