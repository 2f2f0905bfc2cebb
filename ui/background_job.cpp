#include "mrwb_ui/background_job.hpp"

#include <QAbstractButton>
#include <QPointer>
#include <QProgressBar>
#include <QThread>
#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "mrwb/base/errors.hpp"

namespace mrwb::ui {

// Written by the job's thread, read in the GUI thread after the thread has ended.
struct BackgroundJob::Report {
  bool cancelled = false;
  bool failed = false;
  bool inputError = false;
  QString error;
};

namespace {
// Forwards core's progress to the GUI thread as queued calls, one per 0.1 % step or change of stage
// (not one per TR), none after a cancel.
mrwb::ProgressFn queued_progress(BackgroundJob* job, const mrwb::CancelToken& cancel) {
  struct Last {
    std::mutex mutex;
    int permille = -1;
    std::string stage;
  };
  auto last = std::make_shared<Last>();
  QPointer<BackgroundJob> target(job);
  return [last, target, cancel](double fraction, std::string_view stage) {
    // floor, so a fraction just below 1 does not hide the final 1.
    const int permille = static_cast<int>(std::floor(std::clamp(fraction, 0.0, 1.0) * 1000));
    {
      const std::lock_guard lock(last->mutex);
      if (permille == last->permille && stage == last->stage) return;
      last->permille = permille;
      last->stage.assign(stage);
    }
    const QString text = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
    QMetaObject::invokeMethod(
        target.data(),
        [target, cancel, fraction, text] {
          if (target && !cancel.cancelled()) emit target->progress(fraction, text);
        },
        Qt::QueuedConnection);
  };
}
}  // namespace

BackgroundJob::BackgroundJob(QObject* parent) : QObject(parent) {}

BackgroundJob::~BackgroundJob() {
  if (!thread_) return;
  cancel_.cancel();
  thread_->wait();
  delete thread_;
}

bool BackgroundJob::start(Work work, const QString& threadName) {
  if (thread_) return false;
  // A token per job: a cancelled token stays cancelled, and an old thread keeps its own copy.
  cancel_ = mrwb::CancelToken{};
  auto report = std::make_shared<Report>();
  report_ = report;
  const mrwb::CancelToken cancel = cancel_;
  const mrwb::ProgressFn progress = queued_progress(this, cancel);
  thread_ = QThread::create([work = std::move(work), report, progress, cancel] {
    try {
      work(progress, cancel);
    } catch (const mrwb::Cancelled&) {
      report->cancelled = true;
    } catch (const mrwb::InputError& e) {
      report->failed = report->inputError = true;
      report->error = QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
      report->failed = true;
      report->error = QString::fromUtf8(e.what());
    } catch (...) {
      report->failed = true;
      report->error = QStringLiteral("unknown error");
    }
  });
  thread_->setObjectName(threadName);
  connect(thread_, &QThread::finished, this, &BackgroundJob::onThreadFinished);
  thread_->start();
  emit started();
  return true;
}

void BackgroundJob::driveProgressBar(QProgressBar* bar) {
  bar->setRange(0, 1000);
  connect(this, &BackgroundJob::progress, bar,
          [bar](double fraction, const QString&) { bar->setValue(static_cast<int>(1000 * std::clamp(fraction, 0.0, 1.0))); });
}

void BackgroundJob::attachControls(QWidget* start, QAbstractButton* cancel) {
  cancel->setEnabled(busy());
  connect(cancel, &QAbstractButton::clicked, this, &BackgroundJob::cancel);
  connect(this, &BackgroundJob::started, start, [start, cancel] {
    start->setEnabled(false);
    cancel->setEnabled(true);
  });
  connect(this, &BackgroundJob::finished, start, [start, cancel] {
    start->setEnabled(true);
    cancel->setEnabled(false);
  });
}

void BackgroundJob::cancel() {
  if (thread_) cancel_.cancel();
}

void BackgroundJob::onThreadFinished() {
  thread_->wait();  // the work has returned; this only joins the OS thread
  delete thread_;
  thread_ = nullptr;
  const Report& r = *report_;
  inputError_ = false;
  error_.clear();
  if (r.cancelled || cancel_.cancelled()) {
    outcome_ = Outcome::Cancelled;
  } else if (r.failed) {
    outcome_ = Outcome::Failed;
    error_ = r.error;
    inputError_ = r.inputError;
  } else {
    outcome_ = Outcome::Done;
  }
  emit finished();
}

}  // namespace mrwb::ui
