// GUI tests of the workbench views (label gui, under Xvfb): each view opens on a scenario and draws
// real content (colour counts of a grab, with a blank control), picking a vessel emits its segment,
// zoom / window-level propagate across linked comparison panes, and a small comparison run fills the
// metrics table and exports through core.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <set>

#include "fixtures.hpp"
#include "grappa_test_data.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/pipeline/recon_coil_maps.hpp"
#include "mrwb/recon/noncart_coil_raw.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/undersample.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/trajectory.hpp"
#include "mrwb_ui/coil_map_view.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/flow_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/kspace_view.hpp"
#include "mrwb_ui/sequence_diagram_view.hpp"
#include "mrwb_ui/trajectory_plot_view.hpp"
#include "mrwb_ui/vessel_tree_view.hpp"

using namespace mrwb::ui;

namespace {

using mrwb::test::cpu_preset;

// Distinct colours, and distinct clearly coloured ones (HSV saturation > 80): backgrounds here are
// grey gradients, so only drawn data (tubes, colormaps, traces) adds saturated colours.
struct ColourCount {
  std::size_t distinct = 0, saturated = 0;
};

ColourCount countColours(const QImage& img) {
  std::set<QRgb> all, sat;
  const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < rgb.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    for (int x = 0; x < rgb.width(); ++x) {
      all.insert(line[x]);
      if (QColor(line[x]).hsvSaturation() > 80) sat.insert(line[x]);
    }
  }
  return {all.size(), sat.size()};
}

// With MRWB_VIEW_SHOTS=DIR the grabs are also saved there (for docs and a look by eye).
QImage shot(const QImage& img, const char* name) {
  const QByteArray dir = qgetenv("MRWB_VIEW_SHOTS");
  if (!dir.isEmpty()) img.save(QDir(QString::fromLocal8Bit(dir)).filePath(QString(name) + ".png"));
  return img;
}

template <typename W>
bool showSized(W& w, int width = 640, int height = 480) {
  w.resize(width, height);
  w.show();
  return QTest::qWaitForWindowExposed(&w);
}

void wheel(QWidget* view, int delta) {
  const QPointF pos(view->width() / 2.0, view->height() / 2.0);
  QWheelEvent e(pos, view->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(view, &e);
}

}  // namespace

class TestGuiViews : public QObject {
  Q_OBJECT
 public:
  static void initMain() { VtkOpenGLWidget::setDefaultSurfaceFormat(); }

 private slots:
  void vesselTreeRendersAndPicks();
  void flowViewComputesField();
  void sequenceDiagramDraws();
  void trajectoryPlotMarksLines();
  void kspaceViewMarksLines();
  void coilMapsShowEveryCoil();
  void comparisonRunFillsTableAndLinksViews();
  void comparisonCgRegularizer();
  void comparisonCgMaps();
  void comparisonMapsInTheWorker();
  void comparisonGfactorMaps();
};

void TestGuiViews::vesselTreeRendersAndPicks() {
  VesselTreeView view;
  QVERIFY(showSized(view));
  const ColourCount empty = countColours(view.grabFramebuffer());

  view.setScenario(cpu_preset("bifurcation"));
  QVERIFY2(view.message().isEmpty(), qPrintable(view.message()));
  QCOMPARE(view.segmentCount(), 3);
  QCOMPARE(view.segmentVelocity().size(), std::size_t(3));
  for (double v : view.segmentVelocity()) QVERIFY(v > 0);
  const ColourCount drawn = countColours(shot(view.grabFramebuffer(), "vessel_tree"));
  qInfo("vessel tree: %zu colours (%zu saturated); empty view %zu saturated", drawn.distinct, drawn.saturated,
        empty.saturated);
  QVERIFY(drawn.saturated > 50);
  QVERIFY(drawn.saturated > 5 * (empty.saturated + 1));

  view.setColorBy(VesselTreeView::ColorBy::Velocity);
  QVERIFY(countColours(shot(view.grabFramebuffer(), "vessel_tree_velocity")).saturated > 50);

  // A real click on the middle of segment 2 picks it; a click on empty space picks nothing.
  QSignalSpy picked(&view, &VesselTreeView::segmentPicked);
  const QPoint onSegment = view.segmentScreenPosition(2);
  QVERIFY(view.rect().contains(onSegment));
  QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, onSegment);
  QCOMPARE(picked.count(), 1);
  QCOMPARE(picked.at(0).at(0).toInt(), 2);
  QCOMPARE(view.selectedSegment(), 2);
  shot(view.grabFramebuffer(), "vessel_tree_picked");
  QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, QPoint(3, view.height() - 3));
  QCOMPARE(picked.count(), 1);

  view.setScenario(cpu_preset("uniform_disc"));
  QCOMPARE(view.segmentCount(), 0);
  QVERIFY(!view.message().isEmpty());
}

void TestGuiViews::flowViewComputesField() {
  FlowView view;
  QVERIFY(showSized(view));
  const ColourCount empty = countColours(view.canvas()->grabFramebuffer());
  mrwb::Scenario s = cpu_preset("bifurcation");
  s.sequence.matrix = 64;
  view.setScenario(s);
  QSignalSpy done(&view, &FlowView::flowComputed);
  view.computeFlow();
  QVERIFY(view.busy());
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 30000);
  QVERIFY2(done.at(0).at(0).toBool(), qPrintable(view.errorText()));
  QVERIFY(view.hasField());
  QVERIFY(view.field()->max_speed_m_per_s() > 0);
  shot(view.grab().toImage(), "flow_view_widget");
  const ColourCount drawn = countColours(shot(view.canvas()->grabFramebuffer(), "flow_view"));
  qInfo("flow view: %zu colours (%zu saturated); before %zu saturated", drawn.distinct, drawn.saturated, empty.saturated);
  QVERIFY(drawn.saturated > 30);
  QVERIFY(drawn.saturated > 5 * (empty.saturated + 1));
}

void TestGuiViews::sequenceDiagramDraws() {
  SequenceDiagramView view;
  QVERIFY(showSized(view));
  view.setScenario(cpu_preset("straight_vessel"));
  QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
  QCOMPARE(view.diagram().traces.size(), std::size_t(5));
  for (const auto& tr : view.diagram().traces) QVERIFY2(tr.t_s.size() >= 2, tr.name.c_str());
  QVERIFY(!view.timingText().isEmpty());
  const ColourCount drawn = countColours(shot(view.grab().toImage(), "sequence_diagram"));
  qInfo("sequence diagram: %zu colours (%zu saturated), %s", drawn.distinct, drawn.saturated, qPrintable(view.timingText()));
  QVERIFY(drawn.saturated > 20);

  mrwb::Scenario bad = cpu_preset("straight_vessel");
  bad.sequence.TE_s = 1e-5;  // below the minimum TE: core says so, the view shows it
  view.setScenario(bad);
  QVERIFY(!view.errorText().isEmpty());
  QVERIFY(view.diagram().traces.empty());
  QVERIFY(countColours(view.grab().toImage()).saturated < drawn.saturated / 4);
}

void TestGuiViews::trajectoryPlotMarksLines() {
  TrajectoryPlotView view;
  QVERIFY(showSized(view, 480, 480));
  mrwb::Scenario s = cpu_preset("straight_vessel");
  s.sequence.matrix = 64;
  s.sequence.acceleration = 4;
  s.sequence.acs_lines = 12;
  view.setScenario(s);
  QVERIFY(view.cartesian());
  QCOMPARE(view.calibrationLines(), 12);
  // 16 lattice lines (every 4th) plus the 9 ACS lines off the lattice.
  QCOMPARE(view.acquiredLines(), 16 + 9);
  const ColourCount cart = countColours(shot(view.grab().toImage(), "trajectory_cartesian"));
  QVERIFY(cart.saturated > 10);
  // A Poisson-disc pattern: the plot marks the lines the sequence plays (16 of 64, the 12 ACS among them).
  s.sequence.undersampling = "poisson_disc";
  view.setScenario(s);
  QCOMPARE(view.acquiredLines(), 16);
  QCOMPARE(view.calibrationLines(), 12);
  shot(view.grab().toImage(), "trajectory_poisson_disc");
  s.sequence.undersampling = "regular";

  view.setTrajectory(mrwb::noncart::radial_2d(64, 16, 64, false), 0.24, "radial");
  QVERIFY(!view.cartesian());
  QCOMPARE(view.sampleCount(), std::size_t(16 * 64));
  const ColourCount radial = countColours(shot(view.grab().toImage(), "trajectory_radial"));
  qInfo("trajectory: Cartesian %zu saturated colours, radial %zu", cart.saturated, radial.saturated);
  QVERIFY(radial.saturated > 10);
}

// The K-space panel on GRAPPA-undersampled data: acquired, ACS and skipped lines counted as the flags say,
// skipped lines black in the log-magnitude image, the k-space centre brightest; non-Cartesian data refer
// to the Trajectory panel.
void TestGuiViews::kspaceViewMarksLines() {
  KspaceView view;
  QVERIFY(showSized(view, 480, 480));
  QVERIFY(!view.hasData());
  mrwb::RawData raw = grappa_test::phantom_raw(4, 64, 64);
  mrwb::undersample_cartesian(raw, 4, 12);
  view.setRawData(raw);
  QVERIFY(view.hasData());
  int acquired = 0, acs = 0, skipped = 0;
  for (int y = 0; y < raw.ny; ++y) {
    const auto f = raw.flags(y);
    (f & mrwb::kLineCalibration) ? ++acs : (f & mrwb::kLineAcquired) ? ++acquired : ++skipped;
  }
  const KspaceView::LineCounts c = view.lineCounts();
  qInfo("k-space lines: acquired %d, ACS %d, skipped %d", c.acquired, c.calibration, c.skipped);
  QCOMPARE(c.acquired, acquired);
  QCOMPARE(c.calibration, acs);
  QCOMPARE(c.skipped, skipped);
  QVERIFY(c.calibration == 12 && c.skipped > 0);
  const QImage& img = view.image();
  for (int y = 0; y < raw.ny; ++y)
    if (!(raw.flags(y) & mrwb::kLineAcquired)) QCOMPARE(qGray(img.pixel(raw.nx / 3, raw.ny - 1 - y)), 0);
  QCOMPARE(qGray(img.pixel(raw.k0_sample(), raw.ny - 1 - raw.k0_line())), 255);  // the peak is the centre
  const ColourCount colours = countColours(shot(view.grab().toImage(), "kspace"));
  QVERIFY(colours.saturated > 0);  // the line marks
  raw.traj_dims = 2;
  raw.traj.assign(2 * static_cast<std::size_t>(raw.nx) * raw.ny, 0.f);
  view.setRawData(raw);
  QVERIFY(!view.hasData());
  QVERIFY(view.message().contains(QStringLiteral("Trajectory")));
}

void TestGuiViews::coilMapsShowEveryCoil() {
  CoilMapView view;
  QVERIFY(showSized(view));
  mrwb::Scenario s = cpu_preset("straight_vessel");
  s.sequence.matrix = 64;
  s.coils.count = 4;
  s.coils.arrangement = "loops";
  QSignalSpy ready(&view, &CoilMapView::mapsReady);
  view.setScenario(s);
  QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 1, 20000);
  QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
  QCOMPARE(view.coilCount(), 4);
  QCOMPARE(view.mapSize(), 64);
  // Loop coils see different regions: their magnitude tiles differ.
  QVERIFY(view.tile(0) != view.tile(1));
  const ColourCount mag = countColours(shot(view.grab().toImage(), "coil_maps_magnitude"));
  QVERIFY(mag.distinct > 100);
  const QImage magTile = view.tile(0);
  view.setDisplay(CoilMapView::Display::Phase);
  QVERIFY(view.tile(0) != magTile);
  const ColourCount phase = countColours(shot(view.grab().toImage(), "coil_maps_phase"));
  qInfo("coil maps: magnitude %zu colours, phase %zu colours", mag.distinct, phase.distinct);
  QVERIFY(phase.saturated > 100);

  // ESPIRiT beside the true maps: nothing to estimate from before a run; then, from R = 2 data with 24 ACS
  // lines of an object seen by these coils, the maps match the true ones divided by their root sum of squares.
  view.setDisplay(CoilMapView::Display::Magnitude);
  view.setSource(CoilMapView::Source::Espirit);
  QVERIFY(view.errorText().contains("ACS"));
  QCOMPARE(view.coilCount(), 0);
  view.setSource(CoilMapView::Source::TrueNormalised);
  QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 2, 20000);
  const auto normalised = view.maps();
  std::vector<std::complex<float>> object(64 * 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      if (std::hypot(x - 32, y - 32) < 26) object[y * 64 + x] = 1.0f;
  mrwb::RawData raw = mrwb::multicoil_raw(object, mrwb::loop_coil_sensitivities(4, 64, 64, s.sequence.fov_m), 4, 64, 64,
                                          s.sequence.fov_m, s.sequence.fov_m);
  mrwb::undersample_cartesian(raw, 2, 24);
  view.setRawData(raw);
  view.setSource(CoilMapView::Source::Espirit);
  QTRY_VERIFY_WITH_TIMEOUT(ready.count() == 3, 20000);
  QVERIFY2(view.errorText().isEmpty(), qPrintable(view.errorText()));
  QCOMPARE(view.coilCount(), 4);
  const auto& espirit = view.maps();
  double num = 0, den = 0;
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 64 * 64; ++i)
      if (std::abs(object[i]) > 0) {
        const double d = std::abs(espirit[c * 64 * 64 + i]) - std::abs(normalised[c * 64 * 64 + i]);
        num += d * d;
        den += std::norm(normalised[c * 64 * 64 + i]);
      }
  qInfo("Coils panel: ESPIRiT vs true / RSS magnitude %.2f %% inside the object", 100 * std::sqrt(num / den));
  QVERIFY(std::sqrt(num / den) < 0.02);
  shot(view.grab().toImage(), "coil_maps_espirit");
}

// The CG's W from the comparison bar: finite differences, and the anatomical W with the truth as its
// reference (refused without a truth, with a one-line InputError that run() shows in the status line).
void TestGuiViews::comparisonCgRegularizer() {
  ComparisonView view;
  const mrwb::RawData raw = grappa_test::phantom_raw(1, 32, 32);
  view.setRawData(raw);
  view.setMethods({mrwb::ReconMethod::Cg});
  auto* box = view.findChild<QComboBox*>(QStringLiteral("cgRegularizer"));
  QVERIFY(box);
  QCOMPARE(box->count(), 3);
  QCOMPARE(view.requests().at(0).options.noncart.regularizer, std::string("identity"));
  view.setCgRegularizer("finite-difference");
  auto r = view.requests();
  QCOMPARE(r.size(), std::size_t(1));
  QCOMPARE(r[0].options.noncart.regularizer, std::string("finite-difference"));
  QVERIFY(r[0].options.noncart.prior.empty());
  view.setCgRegularizer("anatomical");
  QVERIFY_THROWS_EXCEPTION(mrwb::InputError, view.requests());
  const mrwb::Image2D truth = mrwb::reconstruct_fft(raw);
  view.setRawData(raw, truth);
  r = view.requests();
  QCOMPARE(r[0].options.noncart.regularizer, std::string("anatomical"));
  QCOMPARE(r[0].options.noncart.prior, truth.magnitude());
  QVERIFY(r[0].label.find("W anat.") != std::string::npos);
}

// The Compare panel's cg row on a trajectory takes the scenario's recon.maps as the pipeline does
// (recon_coil_maps): none when unset (the cg's own estimate), the simulator's coils for true, ESPIRiT's for espirit.
void TestGuiViews::comparisonCgMaps() {
  const int n = 32, coils = 4;
  mrwb::Scenario s;
  s.sequence.matrix = n;
  s.sequence.trajectory = mrwb::Trajectory::Radial;
  s.coils.count = coils;
  s.recon.method = mrwb::ReconMethod::Cg;
  const mrwb::noncart::Trajectory t = mrwb::noncart::radial_2d(n, 48, 2 * n, false);
  const mrwb::RawData raw = mrwb::noncart::multicoil_raw_noncart(
      std::vector<std::complex<float>>(static_cast<std::size_t>(n) * n, 1.0f),
      mrwb::scenario_image_coil_maps(s, n, n), n, coils, t.k, t.readouts, t.samples, s.sequence.fov_m);
  ComparisonView view;
  const auto cg_request = [&] {
    for (const auto& r : view.requests())
      if (r.options.method == mrwb::ReconMethod::Cg) return r;
    throw std::runtime_error("no cg row");
  };
  view.setScenario(s);
  view.setRawData(raw);
  QVERIFY(cg_request().options.noncart.sensitivities.empty());
  for (const char* maps : {"true", "espirit"}) {
    s.recon.maps = maps;
    view.setScenario(s);
    const auto sens = cg_request().options.noncart.sensitivities;
    QCOMPARE(sens.size(), static_cast<std::size_t>(coils) * n * n);
    QVERIFY(sens == mrwb::recon_coil_maps(s, raw));
  }
}

// ESPIRiT's coil maps for SENSE come from the run's worker, not the GUI thread: run() returns with them still
// unknown, the finished run leaves them known (kept for the next run) and equal to recon_coil_maps', and new data
// forgets them.
void TestGuiViews::comparisonMapsInTheWorker() {
  ComparisonView view;
  const int n = 48;
  const auto maps = mrwb::loop_coil_sensitivities(8, n, n, 0.2);
  std::vector<std::complex<float>> object(n * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (std::hypot(x - n / 2, y - n / 2) < 0.4 * n) object[y * n + x] = 1.0f;
  mrwb::RawData raw = mrwb::multicoil_raw(object, maps, 8, n, n, 0.2, 0.2);
  mrwb::undersample_cartesian(raw, 2, 24);
  mrwb::Scenario s;
  s.coils.count = 8;
  s.sequence.fov_m = 0.2;
  s.sequence.matrix = n;
  s.recon.method = mrwb::ReconMethod::Sense;
  s.recon.maps = "espirit";
  view.setScenario(s);
  view.setRawData(raw);
  view.setMethods({mrwb::ReconMethod::Sense});
  view.setBackend(mrwb::Backend::Cpu);
  QSignalSpy finished(&view, &ComparisonView::comparisonFinished);
  view.run();
  QVERIFY(view.busy());
  QVERIFY(!view.coilMapsKnown());
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
  QVERIFY(finished.at(0).at(0).toBool());
  QVERIFY(view.comparison().entries.at(0).ok());
  QVERIFY(view.coilMapsKnown());
  QVERIFY(view.requests().at(0).options.sense.maps == mrwb::recon_coil_maps(s, raw));
  view.setRawData(raw);
  QVERIFY(!view.coilMapsKnown());
}

// g-factor maps beside the error maps: SENSE on the R = 2 comb analytic (>= 1, > 1 where rows fold), GRAPPA by
// pseudo-multiple replicas, the FFT's too; the "g-factor" row shows them with a colorbar, the table notes the
// mean, and the selected method's map exports as a PNG.
void TestGuiViews::comparisonGfactorMaps() {
  ComparisonView view;
  QVERIFY(showSized(view, 1200, 800));
  const int n = 48;
  const auto maps = mrwb::loop_coil_sensitivities(8, n, n, 0.2);
  std::vector<std::complex<float>> object(n * n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (std::hypot(x - n / 2, y - n / 2) < 0.4 * n) object[y * n + x] = 1.0f + 0.5f * (x > n / 2);
  mrwb::RawData raw = mrwb::multicoil_raw(object, maps, 8, n, n, 0.2, 0.2);
  mrwb::undersample_cartesian(raw, 2, 24);
  mrwb::Scenario s;  // 8 loop coils on a 0.2 m field of view, as the maps above
  s.coils.count = 8;
  s.sequence.fov_m = 0.2;
  s.sequence.matrix = n;
  s.recon.method = mrwb::ReconMethod::Sense;
  view.setScenario(s);
  view.setRawData(raw);
  view.setMethods({mrwb::ReconMethod::Fft, mrwb::ReconMethod::Grappa, mrwb::ReconMethod::Sense});
  view.setBackend(mrwb::Backend::Cpu);
  view.setGfactorMaps(true, 16);
  QSignalSpy finished(&view, &ComparisonView::comparisonFinished);
  view.run();
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 60000);
  QVERIFY(finished.at(0).at(0).toBool());
  const auto& entries = view.comparison().entries;
  QCOMPARE(entries.size(), std::size_t(3));
  for (const auto& e : entries) QCOMPARE(e.gfactor.size(), std::size_t(n) * n);
  QCOMPARE(QString::fromStdString(entries[2].gfactor_source), QString("analytic"));
  QCOMPARE(QString::fromStdString(entries[1].gfactor_source), QString("16 replicas"));
  const auto& g = entries[2].gfactor;
  const float gmin = *std::min_element(g.begin(), g.end()), gmax = *std::max_element(g.begin(), g.end());
  qInfo("SENSE analytic g %.4f .. %.4f; GRAPPA note: %s", gmin, gmax, qPrintable(view.metricsTable()->item(1, 7)->text()));
  QVERIFY(gmin >= 1.0f - 1e-5f && gmax > 1.01f);
  QVERIFY(view.metricsTable()->item(1, 7)->text().contains("g mean "));
  // Beside each method's image and error map, its g-factor map (the same values), in one grid.
  QTest::qWait(50);
  for (int i = 0; i < 3; ++i) {
    QVERIFY(view.gfactorPane(i)->isVisible() && view.errorPane(i)->isVisible() && view.imagePane(i)->isVisible());
    QCOMPARE(view.gfactorPane(i)->values(), entries[i].gfactor);
  }
  QCOMPARE(view.gfactorPane(2)->values(), g);
  view.setErrorMode(ComparisonView::ErrorMode::Gfactor);
  QTest::qWait(50);
  QVERIFY(!view.gfactorPane(2)->isVisible());  // the error row shows them instead
  QTest::qWait(50);
  shot(view.grab().toImage(), "comparison_gfactor");
  QCOMPARE(view.errorPane(2)->values(), g);
  QVERIFY(countColours(view.errorPane(2)->grabFramebuffer()).saturated > 50);
  QTemporaryDir dir;
  QVERIFY(!view.exportGfactorPng(dir.filePath("none.png")));  // nothing selected
  view.selectPane(1);
  QVERIFY(view.exportGfactorPng(dir.filePath("g.png")));
  QVERIFY(QFileInfo(dir.filePath("g.png")).size() > 100);
}

void TestGuiViews::comparisonRunFillsTableAndLinksViews() {
  ComparisonView view;
  QVERIFY(showSized(view, 1200, 800));
  const int n = 64;
  mrwb::RawData raw = grappa_test::phantom_raw(4, n, n);
  const mrwb::Image2D truth = mrwb::reconstruct_fft(raw);
  mrwb::undersample_cartesian(raw, 2, 24);
  view.setRawData(raw, truth);
  view.setMethods({mrwb::ReconMethod::Fft, mrwb::ReconMethod::Grappa});
  view.setBackend(mrwb::Backend::Cpu);
  QSignalSpy finished(&view, &ComparisonView::comparisonFinished);
  view.run();
  QVERIFY(view.busy());
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
  QVERIFY(finished.at(0).at(0).toBool());
  QCOMPARE(view.paneCount(), 2);

  // The metrics table: one row per method with PSNR, error, NRMSE, SSIM, time and backend.
  QTableWidget* t = view.metricsTable();
  QCOMPARE(t->rowCount(), 2);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 7; ++c) QVERIFY2(!t->item(r, c)->text().isEmpty(), qPrintable(QString("row %1 col %2").arg(r).arg(c)));
  }
  QCOMPARE(t->item(1, 1)->text(), QString("grappa/cpu"));
  const double psnrFft = t->item(0, 3)->text().toDouble(), psnrGrappa = t->item(1, 3)->text().toDouble();
  qInfo("comparison table: FFT %.2f dB, GRAPPA %.2f dB", psnrFft, psnrGrappa);
  QCOMPARE(psnrGrappa, std::round(view.comparison().entries[1].metrics.psnr_db * 100) / 100);
  QVERIFY(psnrGrappa > psnrFft);

  // Panes show images (grey content in the image, coloured error maps).
  QTest::qWait(50);
  shot(view.grab().toImage(), "comparison");
  QVERIFY(countColours(view.imagePane(1)->grabFramebuffer()).distinct > 50);
  QVERIFY(countColours(view.errorPane(0)->grabFramebuffer()).saturated > 50);

  // Linked zoom: the wheel on one pane zooms every pane; window/level follows among the magnitudes.
  ImageView* a = view.imagePane(0);
  ImageView* b = view.imagePane(1);
  const double before = b->parallelScale();
  wheel(a, 120);
  QVERIFY(a->parallelScale() < before);
  QCOMPARE(b->parallelScale(), a->parallelScale());
  QCOMPARE(view.truthPane()->parallelScale(), a->parallelScale());
  // Error panes leave room for a colorbar: they follow the relative zoom.
  QVERIFY(std::abs(view.errorPane(1)->viewState().zoom - a->viewState().zoom) < 1e-9);
  QVERIFY(a->viewState().zoom > 1.05);
  const double errorWindow = view.errorPane(0)->colorWindow();
  const double windowBefore = a->colorWindow(), levelBefore = a->colorLevel();
  const QPoint c(a->width() / 2, a->height() / 2);
  QTest::mousePress(a, Qt::LeftButton, Qt::NoModifier, c);
  QTest::mouseMove(a, c + QPoint(40, 25));
  QTest::mouseRelease(a, Qt::LeftButton, Qt::NoModifier, c + QPoint(40, 25));
  QVERIFY(a->colorWindow() != windowBefore || a->colorLevel() != levelBefore);
  QCOMPARE(b->colorWindow(), a->colorWindow());
  QCOMPARE(b->colorLevel(), a->colorLevel());
  QCOMPARE(view.truthPane()->colorWindow(), a->colorWindow());
  QCOMPARE(view.errorPane(0)->colorWindow(), errorWindow);

  // Unlinked: panes keep their own camera.
  view.setLinked(false);
  const double bScale = b->parallelScale();
  wheel(a, 120);
  QCOMPARE(b->parallelScale(), bScale);
  QVERIFY(a->parallelScale() < bScale);

  // Absolute error maps are non-negative, drawn with a colormap; switching keeps the zoom (relinked).
  view.setLinked(true);
  view.setErrorMode(ComparisonView::ErrorMode::Absolute);
  QVERIFY(std::abs(view.errorPane(1)->viewState().zoom - a->viewState().zoom) < 1e-9);
  QVERIFY(a->viewState().zoom > 1.05);
  const auto absValues = view.errorPane(1)->values();
  QCOMPARE(absValues.size(), std::size_t(n) * n);
  QVERIFY(*std::min_element(absValues.begin(), absValues.end()) >= 0);
  shot(view.grab().toImage(), "comparison_absolute");

  // Exports through core: image (selected pane) to PNG and NIfTI, raw data to ISMRMRD and .cfl.
  QTemporaryDir dir;
  view.selectPane(1);
  QVERIFY2(view.exportImagePng(dir.filePath("grappa.png")), qPrintable(view.lastError()));
  const mrwb::PngPixels png = mrwb::read_png(dir.filePath("grappa.png").toStdString());
  QCOMPARE(png.width, n);
  QVERIFY(view.exportImageNifti(dir.filePath("grappa.nii")));
  const mrwb::Image2D nii = mrwb::read_nifti(dir.filePath("grappa.nii").toStdString());
  QCOMPARE(nii.nx, n);
  QVERIFY(view.exportRawIsmrmrd(dir.filePath("raw.h5")));
  QCOMPARE(mrwb::read_raw_ismrmrd(dir.filePath("raw.h5").toStdString()).ncoils, 4);
  QVERIFY(view.exportRawCfl(dir.filePath("raw.cfl")));
  QCOMPARE(mrwb::read_raw_cfl(dir.filePath("raw").toStdString()).ny, n);
  // A failing export reports one line and writes nothing.
  QVERIFY(!view.exportImagePng(dir.filePath("missing/dir/x.png")));
  QVERIFY(!view.lastError().isEmpty());
  QVERIFY(!QFileInfo::exists(dir.filePath("missing/dir/x.png")));
}

QTEST_MAIN(TestGuiViews)
#include "test_gui_views.moc"
