// GUI tests (label `gui`): real widgets under Xvfb (QT_QPA_PLATFORM=xcb). A small scenario runs
// end to end and the reconstruction view must show an image; Cancel must stop a large run quickly
// and leave the views untouched.
#include <QApplication>
#include <QImage>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <set>

#include "mrwb/scenario.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/simulation_worker.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

using mrwb::ui::MainWindow;

namespace {

struct GreyStats {
  std::size_t distinct = 0;
  double stddev = 0;
  int max = 0;
};

GreyStats greyStats(const QImage& img) {
  const QImage grey = img.convertToFormat(QImage::Format_Grayscale8);
  GreyStats st;
  std::set<int> values;
  double sum = 0, sum2 = 0;
  const double n = static_cast<double>(grey.width()) * grey.height();
  for (int y = 0; y < grey.height(); ++y) {
    const uchar* row = grey.constScanLine(y);
    for (int x = 0; x < grey.width(); ++x) {
      values.insert(row[x]);
      st.max = std::max<int>(st.max, row[x]);
      sum += row[x];
      sum2 += static_cast<double>(row[x]) * row[x];
    }
  }
  const double mean = sum / n;
  st.distinct = values.size();
  st.stddev = std::sqrt(std::max(0.0, sum2 / n - mean * mean));
  return st;
}

// Shows a non-interactive window (no dialogs) and waits until it is on screen.
bool showQuietly(mrwb::ui::MainWindow& w) {
  w.setInteractive(false);
  w.show();
  return QTest::qWaitForWindowExposed(&w);
}

// The default scenario on the CPU at a given matrix and number of dummy TRs.
mrwb::Scenario cpuScenario(int matrix, int dummy_scans) {
  mrwb::Scenario s = mrwb::scenario_preset("default");
  s.sequence.matrix = matrix;
  s.sequence.dummy_scans = dummy_scans;
  s.backend = "cpu";
  return s;
}

}  // namespace

class TestGui : public QObject {
  Q_OBJECT
 public:
  // QTEST_MAIN calls this before it creates the QApplication: VTK needs a 3.2 core context.
  static void initMain() { mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat(); }

 private slots:
  void windowOpens();
  void smallRunShowsImage();
  void cancelStopsQuickly();
  void cancelMidRun();
  void invalidScenarioIsReported();
};

void TestGui::windowOpens() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  QVERIFY(w.width() >= 1280 && w.height() >= 800);
  QVERIFY(w.reconView() != nullptr);
  QVERIFY(w.reconView()->isVisible());
  QVERIFY(!w.reconView()->hasImage());
  QVERIFY(w.psnrText().isEmpty());
  // Control for the content check below: an empty view fails it.
  const QImage frame = w.reconView()->grabFramebuffer();
  QVERIFY(!frame.isNull());
  const GreyStats st =
      greyStats(frame.copy(frame.width() / 4, frame.height() / 4, frame.width() / 2, frame.height() / 2));
  qInfo("empty recon view, centre: %zu distinct grey levels, stddev %.2f, max %d", st.distinct, st.stddev, st.max);
  QVERIFY(st.stddev < 20.0 || st.max <= 128);
}

void TestGui::smallRunShowsImage() {
  MainWindow w;
  QVERIFY(showQuietly(w));

  const mrwb::Scenario s = cpuScenario(32, 50);
  w.setScenario(s);

  QSignalSpy finished(&w, &MainWindow::runFinished);
  w.run();
  QVERIFY(w.isRunning());
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 60000);
  QCOMPARE(finished.count(), 1);
  QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(w.lastError()));
  QVERIFY(!w.isRunning());

  QVERIFY(w.reconView()->hasImage());
  QCOMPARE(w.reconView()->updateCount(), quint64(1));
  const QImage frame = w.reconView()->grabFramebuffer();
  QVERIFY(!frame.isNull());
  QVERIFY(frame.width() > 50 && frame.height() > 50);
  // The centre half of the view is where the image lies; the background gradient and the text
  // alone stay far below these thresholds there.
  const QImage centre = frame.copy(frame.width() / 4, frame.height() / 4, frame.width() / 2, frame.height() / 2);
  const GreyStats st = greyStats(centre);
  qInfo("recon view %dx%d, centre: %zu distinct grey levels, stddev %.2f, max %d", frame.width(),
        frame.height(), st.distinct, st.stddev, st.max);
  QVERIFY2(st.distinct > 10, "reconstruction view looks blank (too few grey levels)");
  QVERIFY2(st.stddev > 20.0, "reconstruction view looks blank (no contrast)");
  QVERIFY2(st.max > 128, "reconstruction view has no bright tissue");

  // Qt input reaches VTK: the wheel zooms, a left drag changes window/level.
  mrwb::ui::ImageView* view = w.reconView();
  const QPointF centrePos(view->width() / 2.0, view->height() / 2.0);
  const double scaleBefore = view->parallelScale();
  QWheelEvent wheel(centrePos, view->mapToGlobal(centrePos), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(view, &wheel);
  QVERIFY2(view->parallelScale() < scaleBefore, "wheel did not zoom in");
  const double windowBefore = view->colorWindow();
  const double levelBefore = view->colorLevel();
  const QPointF to = centrePos + QPointF(40, 30);
  QMouseEvent press(QEvent::MouseButtonPress, centrePos, view->mapToGlobal(centrePos), Qt::LeftButton,
                    Qt::LeftButton, Qt::NoModifier);
  QMouseEvent move(QEvent::MouseMove, to, view->mapToGlobal(to), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
  QMouseEvent release(QEvent::MouseButtonRelease, to, view->mapToGlobal(to), Qt::LeftButton, Qt::NoButton,
                      Qt::NoModifier);
  QApplication::sendEvent(view, &press);
  QApplication::sendEvent(view, &move);
  QApplication::sendEvent(view, &release);
  QVERIFY2(view->colorWindow() != windowBefore || view->colorLevel() != levelBefore,
           "left drag did not change window/level");
  view->resetView();
  QCOMPARE(view->colorWindow(), windowBefore);

  const QString psnr = w.psnrText();
  QVERIFY(!psnr.isEmpty());
  bool ok = false;
  const double value = psnr.toDouble(&ok);
  QVERIFY2(ok && std::isfinite(value), qPrintable(QStringLiteral("PSNR text: '%1'").arg(psnr)));
}

void TestGui::cancelStopsQuickly() {
  MainWindow w;
  QVERIFY(showQuietly(w));

  const mrwb::Scenario s = cpuScenario(128, 2000);
  w.setScenario(s);

  const quint64 reconBefore = w.reconView()->updateCount();
  const quint64 truthBefore = w.truthView()->updateCount();
  const quint64 errorBefore = w.errorView()->updateCount();

  QSignalSpy cancelled(w.worker(), &mrwb::ui::SimulationWorker::cancelled);
  QSignalSpy workerFinished(w.worker(), &mrwb::ui::SimulationWorker::finished);
  QSignalSpy runFinished(&w, &MainWindow::runFinished);
  w.run();
  QVERIFY(w.isRunning());
  w.cancel();
  QTRY_VERIFY_WITH_TIMEOUT(cancelled.count() > 0, 5000);
  QCOMPARE(runFinished.count(), 1);
  QCOMPARE(runFinished.at(0).at(0).toBool(), false);
  QVERIFY(!w.isRunning());

  // Nothing partial reaches the views, not even late.
  QTest::qWait(300);
  QCOMPARE(workerFinished.count(), 0);
  QCOMPARE(w.reconView()->updateCount(), reconBefore);
  QCOMPARE(w.truthView()->updateCount(), truthBefore);
  QCOMPARE(w.errorView()->updateCount(), errorBefore);
  QVERIFY(!w.reconView()->hasImage());
  QVERIFY(w.psnrText().isEmpty());
  // Still the empty view: no partial image was drawn.
  const QImage frame = w.reconView()->grabFramebuffer();
  QVERIFY(!frame.isNull());
  const GreyStats st =
      greyStats(frame.copy(frame.width() / 4, frame.height() / 4, frame.width() / 2, frame.height() / 2));
  QVERIFY(st.stddev < 20.0 || st.max <= 128);
}

void TestGui::cancelMidRun() {
  MainWindow w;
  QVERIFY(showQuietly(w));

  const mrwb::Scenario s = cpuScenario(128, 2000);
  w.setScenario(s);

  QSignalSpy progress(w.worker(), &mrwb::ui::SimulationWorker::progress);
  QSignalSpy cancelled(w.worker(), &mrwb::ui::SimulationWorker::cancelled);
  QSignalSpy workerFinished(w.worker(), &mrwb::ui::SimulationWorker::finished);
  w.run();
  // Wait until the simulation is really under way (past 1 %), then cancel.
  QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(0).toInt() >= 1, 30000);
  w.cancel();
  QTRY_VERIFY_WITH_TIMEOUT(cancelled.count() > 0, 5000);
  QTest::qWait(200);
  QCOMPARE(workerFinished.count(), 0);
  QCOMPARE(w.reconView()->updateCount(), quint64(0));
  QVERIFY(w.psnrText().isEmpty());
}

void TestGui::invalidScenarioIsReported() {
  MainWindow w;
  QVERIFY(showQuietly(w));

  mrwb::Scenario s = mrwb::scenario_preset("default");
  s.sequence.TE_s = 2 * s.sequence.TR_s;  // the echo cannot come after the next pulse
  w.setScenario(s);
  const QString shown = w.statusBar()->currentMessage();
  QVERIFY2(shown.contains(QStringLiteral("TE")), qPrintable(shown));

  QSignalSpy finished(&w, &MainWindow::runFinished);
  w.run();
  QCOMPARE(finished.count(), 1);
  QCOMPARE(finished.at(0).at(0).toBool(), false);
  QVERIFY(w.lastErrorIsInputError());
  QVERIFY(!w.isRunning());
  QCOMPARE(w.reconView()->updateCount(), quint64(0));
}

QTEST_MAIN(TestGui)
#include "test_gui.moc"
