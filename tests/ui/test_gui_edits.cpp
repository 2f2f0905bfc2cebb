// GUI tests (label `gui`) of the workbench's editing and import paths: a vessel segment picked in the
// 3-D view and edited (radius, stenosis, delete) through the undo stack, with the scenario's
// segment_edits round trip and their one-line errors; Pulseq export of the scenario's sequence, its
// import (facts as core derives them), playing it on the phantom, and a malformed file shown in the
// window; the main Run reconstructing with every method chosen in the Compare panel; the LBM backend
// choice of Compute Flow; the trajectory plot of a non-Cartesian scenario.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <atomic>
#include <cmath>

#include "fixtures.hpp"
#include "gui.hpp"
#include "input_error.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/flow.hpp"
#include "mrwb/phantom/vessel_generators.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_sequence.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/flow_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/pulseq_panel.hpp"
#include "mrwb_ui/scenario_document.hpp"
#include "mrwb_ui/segment_editor.hpp"
#include "mrwb_ui/sequence_diagram_view.hpp"
#include "mrwb_ui/trajectory_plot_view.hpp"
#include "mrwb_ui/vessel_tree_view.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

using namespace mrwb::ui;

namespace {

using mrwb::test::cpu_preset;
using mrwb::test::input_error;
using mrwb::test::showQuietly;

double minOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

}  // namespace

class TestGuiEdits : public QObject {
  Q_OBJECT
 public:
  static void initMain() {
    VtkOpenGLWidget::setDefaultSurfaceFormat();
    QStandardPaths::setTestModeEnabled(true);
  }

 private slots:
  void segmentEditsRoundTripAndErrors();
  void pickedSegmentEditedThroughUndo();
  void pulseqExportImportSimulate();
  void pulseqBadFileShowsError();
  void runComparesChosenMethods();
  void flowBackendChoice();
  void trajectoryOfNonCartesianScenario();
};

// Core: the edits survive the JSON round trip exactly, change the generated tree as documented, and
// bad ones are one-line errors naming the field.
void TestGuiEdits::segmentEditsRoundTripAndErrors() {
  mrwb::Scenario s = cpu_preset("bifurcation");
  const mrwb::VesselTree plain = mrwb::generate_vessel_tree(s.phantom.tree);
  QCOMPARE(plain.segments.size(), std::size_t(3));
  s.phantom.tree.segment_edits = {{1, 0.5, 0, false}, {2, 1, 60, false}};
  QTemporaryDir dir;
  const std::string path = dir.filePath("edits.json").toStdString();
  mrwb::save_scenario(s, path);
  const mrwb::Scenario back = mrwb::load_scenario(path);
  QVERIFY(back.phantom.tree == s.phantom.tree);
  QCOMPARE(ScenarioDocument::jsonText(back), ScenarioDocument::jsonText(s));

  const mrwb::VesselTree t = mrwb::generate_vessel_tree(s.phantom.tree);
  QCOMPARE(t.segments.size(), std::size_t(3));
  for (std::size_t i = 0; i < t.segments[1].radius_m.size(); ++i)
    QCOMPARE(t.segments[1].radius_m[i], 0.5 * plain.segments[1].radius_m[0]);
  // Stenosis: the throat is (1 - 0.6) of the lumen, the ends keep it (children start there).
  const double r2 = plain.segments[2].radius_m[0];
  QVERIFY(std::abs(minOf(t.segments[2].radius_m) - 0.4 * r2) < 1e-12 * r2);
  QCOMPARE(t.segments[2].radius_m.front(), r2);
  QCOMPARE(t.segments[2].radius_m.back(), r2);
  QCOMPARE(t.segments[2].centreline_m.front(), plain.segments[2].centreline_m.front());
  QCOMPARE(t.segments[2].centreline_m.back(), plain.segments[2].centreline_m.back());

  // Removing a branch renumbers; the map says where each segment came from.
  mrwb::VesselTreeSpec spec = s.phantom.tree;
  spec.segment_edits = {{1, 1, 0, true}};
  std::vector<int> generated;
  const mrwb::VesselTree cut = mrwb::generate_vessel_tree(spec, "phantom.tree", &generated);
  QCOMPARE(cut.segments.size(), std::size_t(2));
  QCOMPARE(generated, (std::vector<int>{0, 2}));
  QCOMPARE(cut.segments[0].children, std::vector<int>{1});
  QCOMPARE(cut.segments[1].centreline_m, plain.segments[2].centreline_m);

  auto bad = [&](std::vector<mrwb::VesselSegmentEdit> e) {
    mrwb::Scenario x = s;
    x.phantom.tree.segment_edits = std::move(e);
    return input_error([&] {
      mrwb::validate_scenario(x, "s.json");
      mrwb::generate_vessel_tree(x.phantom.tree);
    });
  };
  QVERIFY(bad({{1, 3, 0, false}}).contains("phantom.tree.segment_edits[0].radius_scale = 3 is out of range"));
  QVERIFY(bad({{2, 1, 99, false}}).contains("segment_edits[0].stenosis_degree_percent = 99 is out of range"));
  QVERIFY(bad({{0, 1, 0, true}}).contains("is the root"));
  QVERIFY(bad({{1, 0.5, 0, false}, {1, 1, 10, false}}).contains("edited twice"));
  QVERIFY(bad({{7, 0.5, 0, false}}).contains("segment = 7 is out of range: allowed [0, 2]"));
  // A child made wider than its parent: core's tree check names the segment.
  QVERIFY(!bad({{1, 2, 0, false}}).isEmpty());
  QVERIFY(bad({{0, 1, 0, false}}).isEmpty());  // an identity edit is valid

  // Unknown field and wrong type in the file: one line naming the field.
  QFile f(dir.filePath("bad.json"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  QString text = QString::fromStdString(mrwb::scenario_to_json_text(s));
  text.replace("\"remove\"", "\"delete\"");
  f.write(text.toUtf8());
  f.close();
  const QString e = input_error([&] { mrwb::load_scenario(f.fileName().toStdString()); });
  QVERIFY2(e.contains("phantom.tree.segment_edits[0].delete is not a known field"), qPrintable(e));
}

// The user's path: click a vessel, edit it in the editor, see the tree change, undo, delete a branch.
void TestGuiEdits::pickedSegmentEditedThroughUndo() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  w.setScenario(cpu_preset("bifurcation"));
  QVERIFY(w.showPanel(QStringLiteral("phantomDock")));
  VesselTreeView* view = w.vesselTreeView();
  SegmentEditor* editor = w.segmentEditor();
  QTRY_VERIFY(view->isVisible() && view->width() > 100);
  QCOMPARE(view->segmentCount(), 3);
  QVERIFY(!editor->radiusScaleBox()->isEnabled());
  const double r2 = view->segmentRadius()[2];

  const QPoint onSegment = view->segmentScreenPosition(2);
  QVERIFY(view->rect().contains(onSegment));
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, onSegment);
  QCOMPARE(editor->segment(), 2);
  QVERIFY(editor->radiusScaleBox()->isEnabled());
  QVERIFY(editor->deleteButton()->isEnabled());

  editor->radiusScaleBox()->setValue(0.5);
  QCOMPARE(w.scenario().phantom.tree.segment_edits.size(), std::size_t(1));
  QCOMPARE(w.scenario().phantom.tree.segment_edits[0], (mrwb::VesselSegmentEdit{2, 0.5, 0, false}));
  QCOMPARE(view->segmentRadius()[2], 0.5 * r2);
  QCOMPARE(view->selectedSegment(), 2);  // the selection stays on the edited segment
  QVERIFY(w.runAction()->isEnabled());

  editor->stenosisBox()->setValue(50);
  QCOMPARE(w.scenario().phantom.tree.segment_edits[0].stenosis_degree_percent, 50.0);
  QVERIFY(minOf(view->tree().segments[2].radius_m) < 0.5 * 0.51 * r2);

  // Undo: the stenosis, then the radius; redo brings the radius back.
  QUndoStack* undo = w.document()->undoStack();
  undo->undo();
  QCOMPARE(w.scenario().phantom.tree.segment_edits[0].stenosis_degree_percent, 0.0);
  QCOMPARE(editor->stenosisBox()->value(), 0.0);
  undo->undo();
  QVERIFY(w.scenario().phantom.tree.segment_edits.empty());
  QCOMPARE(view->segmentRadius()[2], r2);
  QCOMPARE(editor->radiusScaleBox()->value(), 1.0);
  undo->redo();
  QCOMPARE(view->segmentRadius()[2], 0.5 * r2);

  // Delete the branch (segment 1 here): the tree loses it; undo restores it.
  const QPoint onOther = view->segmentScreenPosition(1);
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, onOther);
  QCOMPARE(editor->segment(), 1);
  editor->deleteButton()->click();
  QCOMPARE(view->segmentCount(), 2);
  QCOMPARE(view->generatedIndex(1), 2);
  QCOMPARE(view->segmentRadius()[1], 0.5 * r2);  // the other edit still applies
  undo->undo();
  QCOMPARE(view->segmentCount(), 3);

  // The root cannot be deleted.
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, view->segmentScreenPosition(0));
  QCOMPARE(editor->segment(), 0);
  QVERIFY(!editor->deleteButton()->isEnabled());
}

void TestGuiEdits::pulseqExportImportSimulate() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  mrwb::Scenario s = cpu_preset("straight_vessel", 32, 0);
  w.setScenario(s);
  QTemporaryDir dir;
  const QString path = dir.filePath("scenario.seq");
  QVERIFY2(w.exportPulseq(path), qPrintable(w.pulseqPanel()->lastError()));
  QVERIFY(QFile::exists(path));

  QVERIFY(w.importPulseq(path));
  PulseqPanel* p = w.pulseqPanel();
  QVERIFY(p->hasSequence());
  // The facts shown are core's: the built sequence's blocks, ADC samples and TE.
  const mrwb::seq::BuiltSequence built = mrwb::seq::scenario_blocks(s.sequence);
  QCOMPARE(p->sequence()->blocks.size(), built.seq.blocks.size());
  QCOMPARE(p->sequence()->adc_samples(), built.seq.adc_samples());
  const QString info = p->infoText();
  qInfo("%s", qPrintable(info));
  QVERIFY(info.contains(QStringLiteral("%1 blocks").arg(built.seq.blocks.size())));
  QVERIFY(info.contains(QStringLiteral("%1 ADC samples").arg(built.seq.adc_samples())));
  QVERIFY(info.contains(QStringLiteral("TE %1 ms").arg(built.TE_s * 1e3, 0, 'f', 2)));
  QCOMPARE(p->diagramView()->diagram().traces.size(), std::size_t(5));
  QVERIFY(p->diagramView()->errorText().isEmpty());

  // Played on the scenario's phantom: an image of the matrix, not blank.
  QSignalSpy done(p, &PulseqPanel::simulationFinished);
  p->simulate();
  QVERIFY(p->busy());
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
  QVERIFY2(done.at(0).at(0).toBool(), qPrintable(p->lastError()));
  QVERIFY(p->simulatedSegments() >= 1);
  QVERIFY(p->imageView()->hasImage());

  // An export the builder refuses (TE below its minimum) is an error in the window, no file.
  mrwb::Scenario bad = s;
  bad.sequence.TE_s = 1e-5;
  w.setScenario(bad);
  const QString badPath = dir.filePath("bad.seq");
  QVERIFY(!w.exportPulseq(badPath));
  QVERIFY(!QFile::exists(badPath));
  QVERIFY(p->lastError().contains("TE"));
}

void TestGuiEdits::pulseqBadFileShowsError() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  QTemporaryDir dir;
  QFile f(dir.filePath("broken.seq"));
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("[VERSION]\nmajor 1\nminor 4\nrevision 1\n\n[BLOCKS]\n1 10 7 0 0 0 0\n");  // a block line one value short
  f.close();
  QVERIFY(!w.importPulseq(f.fileName()));
  QVERIFY(!w.pulseqPanel()->hasSequence());
  const QString e = w.pulseqPanel()->lastError();
  qInfo("%s", qPrintable(e));
  QVERIFY(e.contains("broken.seq"));
  QVERIFY(!w.importPulseq(dir.filePath("missing.seq")));
}

// Run simulates once, then reconstructs with every method chosen in the Compare panel; the run ends
// when the comparison does, with its table filled.
void TestGuiEdits::runComparesChosenMethods() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  mrwb::Scenario s = cpu_preset("straight_vessel", 48, 20);
  s.coils.count = 8;
  s.sequence.acceleration = 2;
  s.sequence.acs_lines = 16;
  s.recon.method = mrwb::ReconMethod::Grappa;
  w.setScenario(s);
  ComparisonView* c = w.comparisonView();
  QCOMPARE(c->methods(), (std::vector<mrwb::ReconMethod>{mrwb::ReconMethod::Fft, mrwb::ReconMethod::Grappa}));
  QVERIFY(c->compareOnRun());
  c->setBackend(mrwb::Backend::Cpu);

  QSignalSpy finished(&w, &MainWindow::runFinished);
  QSignalSpy compared(c, &ComparisonView::comparisonFinished);
  w.run();
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
  QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(w.lastError()));
  QCOMPARE(compared.count(), 1);  // the run finished only after the comparison
  QVERIFY(!w.isRunning());
  const auto& entries = c->comparison().entries;
  QCOMPARE(entries.size(), std::size_t(2));
  for (const auto& e : entries) QVERIFY2(e.ok() && e.has_metrics, e.error.c_str());
  QCOMPARE(c->metricsTable()->rowCount(), 2);
  qInfo("run comparison: FFT %.2f dB, GRAPPA %.2f dB", entries[0].metrics.psnr_db, entries[1].metrics.psnr_db);
  QVERIFY(entries[1].metrics.psnr_db > entries[0].metrics.psnr_db);  // zero-filled R = 2 aliases
  // The GRAPPA entry ran with the scenario's GRAPPA parameters: the same image as the main run's.
  QCOMPARE(entries[1].metrics.psnr_db, w.lastResult()->metrics.psnr_db);
  QVERIFY(w.runMessage().contains("2 method(s) compared"));

  // Off: Run does not start a comparison.
  c->setCompareOnRun(false);
  finished.clear();
  w.run();
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
  QCOMPARE(compared.count(), 1);
}

// Compute Flow runs the LBM of the backend chosen in the box (the application adds CUDA when a device
// is present; here a counting wrapper of the CPU solver stands in for it).
void TestGuiEdits::flowBackendChoice() {
  FlowView view;
  view.resize(640, 480);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QCOMPARE(view.backendBox()->count(), 1);
  auto calls = std::make_shared<std::atomic<int>>(0);
  const int i = view.addLbmBackend(QStringLiteral("Counting CPU"),
                                   [calls](const mrwb::LbmDomain& d, const mrwb::LbmParams& p, const mrwb::ProgressFn& pr,
                                           const mrwb::CancelToken& c) {
                                     ++*calls;
                                     return mrwb::lbm_run_cpu(d, p, pr, c);
                                   });
  QCOMPARE(i, 1);
  QCOMPARE(view.backendBox()->currentIndex(), 1);
  mrwb::Scenario s = cpu_preset("straight_tube");
  s.sequence.matrix = 32;
  s.flow.solver = "lbm";
  s.flow.lbm_max_steps = 2000;
  view.setScenario(s);
  QSignalSpy done(&view, &FlowView::flowComputed);
  view.computeFlow();
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
  QVERIFY2(done.at(0).at(0).toBool(), qPrintable(view.errorText()));
  QCOMPARE(calls->load(), 1);
  QCOMPARE(view.fieldBackend(), QStringLiteral("Counting CPU"));

  view.backendBox()->setCurrentIndex(0);  // back to the CPU: the wrapper is not called
  view.computeFlow();
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 60000);
  QCOMPARE(calls->load(), 1);
  QCOMPARE(view.fieldBackend(), QStringLiteral("CPU"));
}

// A spiral scenario shows its spiral samples (core's scenario_trajectory) before any run, not a grid.
void TestGuiEdits::trajectoryOfNonCartesianScenario() {
  TrajectoryPlotView view;
  mrwb::Scenario s = cpu_preset("straight_vessel");
  s.sequence.trajectory = mrwb::Trajectory::Spiral;
  s.sequence.interleaves = 16;
  s.sequence.matrix = 64;
  s.sequence.fov_m = 0.128;
  s.sequence.bandwidth_Hz_per_pixel = 500;
  s.sequence.TE_s = 0.003;
  s.sequence.TR_s = 0.03;
  s.recon.method = mrwb::ReconMethod::Cg;
  view.setScenario(s);
  const mrwb::noncart::Trajectory t = mrwb::seq::scenario_trajectory(s);
  QVERIFY(!view.cartesian());
  QCOMPARE(view.sampleCount(), static_cast<std::size_t>(t.readouts) * t.samples);
  QVERIFY2(view.kindText().startsWith("spiral"), qPrintable(view.kindText()));
  // A sequence core rejects (the readout after the echo does not fit in TR): no samples, its message.
  s.sequence.TE_s = 0.05;
  view.setScenario(s);
  QCOMPARE(view.sampleCount(), std::size_t(0));
  QVERIFY2(view.kindText().contains("TR_s"), qPrintable(view.kindText()));
  view.setScenario(cpu_preset("straight_vessel"));
  QVERIFY(view.cartesian());
}

QTEST_MAIN(TestGuiEdits)
#include "test_gui_edits.moc"
