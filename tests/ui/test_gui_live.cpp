// Live mode: an edit re-simulates and re-reconstructs without Run (debounced); a second edit during a run
// cancels it and no image of the older scenario is ever shown; a live update keeps the view's zoom;
// scenarios too heavy for live mode say so and keep Run.
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "fixtures.hpp"
#include "gui.hpp"
#include "mrwb/pipeline/live_mode.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/scenario_panel.hpp"
#include "mrwb_ui/simulation_worker.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

using mrwb::ui::MainWindow;

namespace {

using mrwb::test::cpu_preset;
using mrwb::test::showQuietly;

// Sets a spin box of the Scenario panel as a user does (the panel turns it into one edit).
void setField(MainWindow& w, const QString& key, double value) {
  QWidget* f = w.scenarioPanel()->fieldWidget(key);
  if (auto* d = qobject_cast<QDoubleSpinBox*>(f)) d->setValue(value);
  else if (auto* i = qobject_cast<QSpinBox*>(f)) i->setValue(static_cast<int>(value));
  else QFAIL(qPrintable(key));
}

}  // namespace

class TestGuiLive : public QObject {
  Q_OBJECT
 public:
  static void initMain() { mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat(); }

 private slots:
  void editRerunsWithoutRun() {
    MainWindow w;
    QVERIFY(showQuietly(w));
    QVERIFY(w.liveAction()->isChecked());  // on by default
    w.setLiveDebounceMs(50);
    w.setScenario(cpu_preset("straight_vessel", 32, 50));
    QVERIFY(w.liveActive());
    QVERIFY(!w.isRunning());  // loading is not an edit
    QSignalSpy finished(&w, &MainWindow::runFinished);
    QSignalSpy live(&w, &MainWindow::liveRunStarted);
    setField(w, QStringLiteral("sequence.flip_angle_deg"), 30);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    QCOMPARE(finished.first().at(0).toBool(), true);
    QCOMPARE(live.count(), 1);
    QCOMPARE(live.first().at(0).toString(), QStringLiteral("sequence.flip_angle_deg"));
    QVERIFY(w.reconView()->hasImage());
    QCOMPARE(w.lastResult()->raw.flip_angle_deg, 30.0);

    // The user zooms; the next live update keeps it (and the automatic window follows the new image).
    mrwb::ui::ImageView::ViewState zoomed = w.reconView()->viewState();
    zoomed.zoom = 2.5;
    w.reconView()->setViewState(zoomed, false);
    const quint64 before = w.reconView()->updateCount();
    setField(w, QStringLiteral("sequence.flip_angle_deg"), 60);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 2, 60000);
    QCOMPARE(w.reconView()->updateCount(), before + 1);
    QCOMPARE(w.lastResult()->raw.flip_angle_deg, 60.0);
    QVERIFY(std::abs(w.reconView()->viewState().zoom - 2.5) < 1e-9);

    // Live off: an edit waits for Run.
    w.liveAction()->setChecked(false);
    setField(w, QStringLiteral("sequence.flip_angle_deg"), 45);
    QTest::qWait(300);
    QVERIFY(!w.isRunning());
    QCOMPARE(finished.count(), 2);
  }

  void secondEditCancelsTheRunInFlight() {
    MainWindow w;
    QVERIFY(showQuietly(w));
    w.setLiveDebounceMs(50);
    w.setScenario(cpu_preset("straight_vessel", 128, 2000));  // a run of many seconds on the CPU
    QSignalSpy finished(&w, &MainWindow::runFinished);
    QSignalSpy cancelled(&w, &MainWindow::runCancelled);
    QSignalSpy progress(w.worker(), &mrwb::ui::SimulationWorker::progress);
    setField(w, QStringLiteral("sequence.flip_angle_deg"), 25);
    QTRY_VERIFY_WITH_TIMEOUT(w.isRunning() && !progress.isEmpty() && progress.last().at(0).toInt() >= 1, 30000);
    const quint64 before = w.reconView()->updateCount();
    // The second edit (a matrix that runs fast) arrives while the first run is under way.
    setField(w, QStringLiteral("sequence.matrix"), 32);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 2 && finished.last().at(0).toBool(), 60000);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(finished.first().at(0).toBool(), false);  // the first run ended without results
    // One image only, of the scenario as last edited: nothing of the 128 matrix run was ever shown.
    QCOMPARE(w.reconView()->updateCount(), before + 1);
    QCOMPARE(w.reconView()->imageWidth(), 32);
    QCOMPARE(w.lastResult()->raw.flip_angle_deg, 25.0);
    QCOMPARE(w.lastResult()->raw.nx, 32);
  }

  void heavyScenarioKeepsRun() {
    MainWindow w;
    QVERIFY(showQuietly(w));
    w.setLiveDebounceMs(50);
    w.setScenario(cpu_preset("straight_vessel", 256, 50));
    QVERIFY(!w.liveActive());
    setField(w, QStringLiteral("sequence.flip_angle_deg"), 30);
    QTest::qWait(300);
    QVERIFY(!w.isRunning());
    QVERIFY2(w.runMessage().contains(QStringLiteral("Live mode off")) && w.runMessage().contains(QStringLiteral("press Run")),
             qPrintable(w.runMessage()));
    mrwb::Scenario volume = cpu_preset("straight_vessel", 32, 50);
    volume.sequence.partitions = 8;
    QVERIFY(!mrwb::live_mode_refusal(volume).empty());
  }
};

QTEST_MAIN(TestGuiLive)
#include "test_gui_live.moc"
