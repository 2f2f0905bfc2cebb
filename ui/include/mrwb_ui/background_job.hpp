#pragma once
// One piece of core work at a time off the GUI thread, for the views and panels: starts it in a thread
// with a fresh CancelToken, brings its progress to the GUI thread (throttled), catches its outcome
// (done, cancelled, failed with a message) and says `finished` in the GUI thread. The work hands its
// result back through state it shares with the caller (e.g. a std::shared_ptr it captured), which the
// caller reads on `finished`.
#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include "mrwb/base/progress.hpp"

class QAbstractButton;
class QProgressBar;
class QWidget;
class QThread;

namespace mrwb::ui {

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  // Runs off the GUI thread: touches only what it captured by value. Throws mrwb::Cancelled when
  // cancelled and any std::exception on failure.
  using Work = std::function<void(const mrwb::ProgressFn& progress, const mrwb::CancelToken& cancel)>;
  enum class Outcome { Done, Cancelled, Failed };

  explicit BackgroundJob(QObject* parent = nullptr);
  // Cancels a running job and waits for its thread, so no work outlives its owner.
  ~BackgroundJob() override;

  bool busy() const { return thread_ != nullptr; }
  // Starts `work`; returns false (and does nothing) while a job runs.
  bool start(Work work, const QString& threadName = QStringLiteral("mrwb-job"));
  // Asks the running job to stop; `finished` follows with Outcome::Cancelled once core has unwound.
  void cancel();
  bool cancelRequested() const { return cancel_.cancelled(); }
  // Shows the progress of every job on `bar` (range 0..1000).
  void driveProgressBar(QProgressBar* bar);
  // `start` is disabled while a job runs, `cancel` only then (and cancels it when clicked).
  void attachControls(QWidget* start, QAbstractButton* cancel);

  // The last finished job's outcome; a cancel that raced with the job's end still counts as Cancelled
  // (the user asked for no result).
  Outcome outcome() const { return outcome_; }
  QString error() const { return error_; }             // Failed: the exception's message
  bool errorWasInput() const { return inputError_; }   // Failed by mrwb::InputError (bad input)

 signals:
  // In the GUI thread, at most one per 0.1 % or change of stage; none after cancel().
  void progress(double fraction, const QString& stage);
  void started();
  // In the GUI thread; busy() is false again, so a handler may start the next job.
  void finished();

 private:
  struct Report;
  void onThreadFinished();

  QThread* thread_ = nullptr;
  mrwb::CancelToken cancel_;
  std::shared_ptr<Report> report_;
  Outcome outcome_ = Outcome::Done;
  QString error_;
  bool inputError_ = false;
};

}  // namespace mrwb::ui
