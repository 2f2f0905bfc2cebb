// The Sweep panel: 5 flip angles give 5 reconstructions in the strip and 5 points in the plot; the signal
// of the muscle follows the spoiled-GE (Ernst) curve across them; CSV and PNG exports are written whole;
// a value out of the scenario's range is refused before any run; Cancel stops a sweep.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/pipeline/parameter_sweep.hpp"
#include "mrwb/scenario/scenario_field.hpp"
#include "mrwb_ui/sweep_view.hpp"
#include "numeric.hpp"

using mrwb::ui::SweepView;

class TestGuiSweep : public QObject {
  Q_OBJECT
 private slots:
  void fiveFlipAnglesGiveFiveImagesAndAPlot() {
    SweepView view;
    view.resize(700, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setScenario(mrwb::test::cpu_preset("uniform_disc", 32, 2000));  // 20 s of TRs: the steady state
    QVERIFY(view.setField(QStringLiteral("sequence.flip_angle_deg")));
    view.setRange(5, 85, 5);
    view.setRegion(12, 12, 20, 20);  // the centre of the muscle disc
    view.setPlotted(2);
    QSignalSpy done(&view, &SweepView::sweepFinished);
    QVERIFY(view.start());
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 120000);
    QVERIFY2(done.first().at(0).toBool(), qPrintable(view.lastError()));
    QCOMPARE(view.imageCount(), 5);
    QCOMPARE(view.plottedPointCount(), 5);
    const auto& pts = view.result().points;
    QCOMPARE(pts.front().value, 5.0);
    QCOMPARE(pts.back().value, 85.0);
    // The muscle's signal against the flip angle follows the spoiled-GE steady state (Ernst): the ratios of
    // the points to the first, independent of M0 and T2 decay, within 2 %.
    const auto& muscle = mrwb::tissue_1p5T("muscle");
    const double TR = 0.01, TE = 0.004;
    auto ernst = [&](double deg) { return mrwb::test::ernst_signal(1.0, deg * M_PI / 180, TR, TE, muscle.T1_s, muscle.T2_s); };
    for (const auto& p : pts) {
      const double expected = ernst(p.value) / ernst(pts.front().value), got = p.region_mean / pts.front().region_mean;
      qInfo("flip %.0f: region mean %.4g, relative %.4f (Ernst %.4f), PSNR %.2f dB", p.value, p.region_mean, got, expected,
            p.metrics.psnr_db);
      QVERIFY(std::abs(got / expected - 1) < 0.02);
    }
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("sweep.csv")), png = dir.filePath(QStringLiteral("sweep.png"));
    QVERIFY2(view.exportCsv(csv), qPrintable(view.lastError()));
    QVERIFY2(view.exportPng(png), qPrintable(view.lastError()));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 6);
    QVERIFY(lines[0].startsWith(QStringLiteral("sequence.flip_angle_deg,psnr_db,ssim")));
    QImage shot(png);
    QVERIFY(!shot.isNull() && shot.width() > 100);
    QVERIFY(!view.exportCsv(dir.filePath(QStringLiteral("missing/sweep.csv"))));  // no folder: refused
  }

  void outOfRangeIsRefusedBeforeAnyRun() {
    const mrwb::Scenario s = mrwb::test::cpu_preset("uniform_disc", 32, 10);
    QVERIFY_THROWS_EXCEPTION(mrwb::InputError, mrwb::run_sweep(s, "sequence.flip_angle_deg", {10, 500}, {}, {}, {}));
    QVERIFY_THROWS_EXCEPTION(mrwb::InputError, mrwb::run_sweep(s, "sequence.no_such_field", {1, 2}, {}, {}, {}));
    QVERIFY_THROWS_EXCEPTION(mrwb::InputError, mrwb::sweep_values(1, 2, 1));
    QCOMPARE(mrwb::scenario_field_value(mrwb::scenario_with_field(s, "sequence.TE_s", 0.005, "t"), "sequence.TE_s"), 0.005);
  }

  void cancelStopsTheSweep() {
    SweepView view;
    view.setScenario(mrwb::test::cpu_preset("straight_vessel", 128, 2000));
    QVERIFY(view.setField(QStringLiteral("sequence.flip_angle_deg")));
    view.setRange(10, 50, 8);
    QSignalSpy done(&view, &SweepView::sweepFinished);
    QVERIFY(view.start());
    QTest::qWait(300);
    view.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 10000);
    QCOMPARE(done.first().at(0).toBool(), false);
    QCOMPARE(view.imageCount(), 0);
  }
};

QTEST_MAIN(TestGuiSweep)
#include "test_gui_sweep.moc"
