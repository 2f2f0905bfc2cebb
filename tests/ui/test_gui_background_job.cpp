// GUI tests (label `gui`) of BackgroundJob, the worker thread the views and panels share: the result
// handed back with throttled progress in the GUI thread, cancel (also racing with the job's end and on
// destruction), errors (InputError flagged as bad input), one job at a time, the progress bar and the
// start / cancel controls.
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "mrwb/base/errors.hpp"
#include "mrwb_ui/background_job.hpp"

using mrwb::ui::BackgroundJob;
using Outcome = BackgroundJob::Outcome;

namespace {
// Polls `cancel` until it is set (as core's loops do), failing the job after 10 s.
void wait_for_cancel(const mrwb::CancelToken& cancel) {
  for (int k = 0; k < 1000; ++k) {
    cancel.throw_if_cancelled();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw std::runtime_error("never cancelled");
}
}  // namespace

class TestGuiBackgroundJob : public QObject {
  Q_OBJECT
 private slots:
  // The work's result arrives with `finished`, off the GUI thread; 10000 progress calls reach the GUI
  // thread as at most 1001 signals, in order, ending at 1.
  void doneHandsBackResultAndThrottledProgress() {
    BackgroundJob job;
    QSignalSpy finished(&job, &BackgroundJob::finished);
    QSignalSpy progress(&job, &BackgroundJob::progress);
    auto result = std::make_shared<int>(0);
    auto workThread = std::make_shared<QThread*>(nullptr);
    QVERIFY(job.start([result, workThread](const mrwb::ProgressFn& p, const mrwb::CancelToken&) {
      *workThread = QThread::currentThread();
      for (int i = 1; i <= 10000; ++i) p(i / 10000.0, "stage");
      *result = 42;
    }));
    QVERIFY(job.busy());
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.count(), 1);
    QVERIFY(!job.busy());
    QCOMPARE(job.outcome(), Outcome::Done);
    QVERIFY(job.error().isEmpty());
    QCOMPARE(*result, 42);
    QVERIFY(*workThread != QThread::currentThread());
    QVERIFY(progress.count() >= 2);
    QVERIFY(progress.count() <= 1001);
    double last = -1;
    for (const auto& args : progress) {
      QVERIFY(args.at(0).toDouble() > last);
      last = args.at(0).toDouble();
      QCOMPARE(args.at(1).toString(), QStringLiteral("stage"));
    }
    QCOMPARE(last, 1.0);
  }

  void cancelStopsTheWork() {
    BackgroundJob job;
    QSignalSpy finished(&job, &BackgroundJob::finished);
    QSignalSpy progress(&job, &BackgroundJob::progress);
    QVERIFY(job.start([](const mrwb::ProgressFn& p, const mrwb::CancelToken& cancel) {
      p(0.5, "half");
      wait_for_cancel(cancel);
    }));
    QVERIFY(progress.wait(10000));
    job.cancel();
    QVERIFY(job.cancelRequested());
    QVERIFY(finished.wait(10000));
    QCOMPARE(job.outcome(), Outcome::Cancelled);
    QCOMPARE(progress.count(), 1);
  }

  // A cancel after the work returned but before `finished` was handled still discards the result.
  void cancelRacingTheEndCountsAsCancelled() {
    BackgroundJob job;
    QSignalSpy finished(&job, &BackgroundJob::finished);
    std::atomic<bool> returned{false};
    QVERIFY(job.start([&returned](const mrwb::ProgressFn&, const mrwb::CancelToken&) { returned = true; }));
    while (!returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    QVERIFY(job.busy());  // `finished` waits for the GUI thread's event loop
    job.cancel();
    QVERIFY(finished.wait(10000));
    QCOMPARE(job.outcome(), Outcome::Cancelled);
  }

  void errorsAreReportedAndInputErrorsFlagged() {
    BackgroundJob job;
    QSignalSpy finished(&job, &BackgroundJob::finished);
    QVERIFY(job.start([](const mrwb::ProgressFn&, const mrwb::CancelToken&) { throw std::runtime_error("boom"); }));
    QVERIFY(finished.wait(10000));
    QCOMPARE(job.outcome(), Outcome::Failed);
    QCOMPARE(job.error(), QStringLiteral("boom"));
    QVERIFY(!job.errorWasInput());

    QVERIFY(job.start([](const mrwb::ProgressFn&, const mrwb::CancelToken&) {
      throw mrwb::InputError("scenario.json: flow.tau = 3 is out of range [0.51, 2]");
    }));
    QVERIFY(finished.wait(10000));
    QCOMPARE(job.outcome(), Outcome::Failed);
    QCOMPARE(job.error(), QStringLiteral("scenario.json: flow.tau = 3 is out of range [0.51, 2]"));
    QVERIFY(job.errorWasInput());

    // The next success clears the error.
    QVERIFY(job.start([](const mrwb::ProgressFn&, const mrwb::CancelToken&) {}));
    QVERIFY(finished.wait(10000));
    QCOMPARE(job.outcome(), Outcome::Done);
    QVERIFY(job.error().isEmpty());
    QVERIFY(!job.errorWasInput());
  }

  void oneJobAtATime() {
    BackgroundJob job;
    QSignalSpy finished(&job, &BackgroundJob::finished);
    std::atomic<int> runs{0};
    QVERIFY(job.start([&runs](const mrwb::ProgressFn&, const mrwb::CancelToken& cancel) {
      ++runs;
      wait_for_cancel(cancel);
    }));
    QVERIFY(!job.start([&runs](const mrwb::ProgressFn&, const mrwb::CancelToken&) { runs += 100; }));
    job.cancel();
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(runs.load(), 1);
  }

  // Destroying the owner cancels the running work and waits for it: nothing runs on afterwards.
  void destructionCancelsAndWaits() {
    auto stopped = std::make_shared<std::atomic<bool>>(false);
    {
      BackgroundJob job;
      QVERIFY(job.start([stopped](const mrwb::ProgressFn&, const mrwb::CancelToken& cancel) {
        try {
          wait_for_cancel(cancel);
        } catch (const mrwb::Cancelled&) {
          *stopped = true;
          throw;
        }
      }));
    }
    QVERIFY(stopped->load());
  }

  void progressBarFollowsTheJob() {
    BackgroundJob job;
    QProgressBar bar;
    job.driveProgressBar(&bar);
    QCOMPARE(bar.maximum(), 1000);
    QSignalSpy finished(&job, &BackgroundJob::finished);
    QVERIFY(job.start([](const mrwb::ProgressFn& p, const mrwb::CancelToken&) { p(0.25, "quarter"); }));
    QVERIFY(finished.wait(10000));
    QCOMPARE(bar.value(), 250);
  }

  // The start control is disabled while the job runs; the cancel button only then, and cancels it.
  void controlsFollowTheJob() {
    BackgroundJob job;
    QPushButton start, cancel;
    job.attachControls(&start, &cancel);
    QVERIFY(start.isEnabled());
    QVERIFY(!cancel.isEnabled());
    QSignalSpy finished(&job, &BackgroundJob::finished);
    QVERIFY(job.start([](const mrwb::ProgressFn&, const mrwb::CancelToken& c) { wait_for_cancel(c); }));
    QVERIFY(!start.isEnabled());
    QVERIFY(cancel.isEnabled());
    cancel.click();
    QVERIFY(finished.wait(10000));
    QCOMPARE(job.outcome(), Outcome::Cancelled);
    QVERIFY(start.isEnabled());
    QVERIFY(!cancel.isEnabled());
  }
};

QTEST_MAIN(TestGuiBackgroundJob)
#include "test_gui_background_job.moc"
