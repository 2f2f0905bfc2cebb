// GUI tests (label `gui`) of the simulation model as a choice of the scenario: the Scenario panel's model
// and flow-transport editors through edits, undo, save and load; Compare models running the Eulerian and the
// Lagrangian simulation of one scenario side by side in the Compare panel (difference map and relative RMS
// difference), agreeing on a still phantom, and cancelled without losing the shown results.
#include <QComboBox>
#include <QSpinBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "fixtures.hpp"
#include "gui.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/scenario_panel.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

using namespace mrwb::ui;
using Model = mrwb::SimulationModel;
using Transport = mrwb::FlowTransport;

namespace {

using mrwb::test::cpu_preset;
using mrwb::test::showQuietly;

// The shipped straight tube (Poiseuille flow) at 32 × 32 with 10 dummy TRs: seconds on the CPU.
mrwb::Scenario smallTube() {
  mrwb::Scenario s = cpu_preset("straight_tube", 32, 10);
  s.sequence.fov_m = 0.064;
  s.phantom.disc_radius_m = 0.03;
  return s;
}

QComboBox* combo(MainWindow& w, const char* key) {
  return qobject_cast<QComboBox*>(w.scenarioPanel()->fieldWidget(QString::fromLatin1(key)));
}

void choose(QComboBox* box, const char* value) {
  const int i = box->findData(QString::fromLatin1(value));
  QVERIFY2(i >= 0, value);
  box->setCurrentIndex(i);
}

}  // namespace

class TestGuiModels : public QObject {
  Q_OBJECT
 public:
  static void initMain() {
    VtkOpenGLWidget::setDefaultSurfaceFormat();
    QStandardPaths::setTestModeEnabled(true);
  }

 private slots:
  void modelChoiceRoundTrip();
  void compareModelsSideBySide();
  void compareModelsAgreeOnStillPhantom();
  void compareModelsCancelKeepsResults();
};

// The panel edits the scenario's "simulation" like any field: the transport only for the Eulerian model,
// each choice one undo step, and both survive Save and Open.
void TestGuiModels::modelChoiceRoundTrip() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  w.setScenario(smallTube());
  QComboBox* model = combo(w, "simulation.model");
  QComboBox* transport = combo(w, "simulation.flow_transport");
  QVERIFY(model && transport);
  QCOMPARE(model->currentData().toString(), QStringLiteral("eulerian"));
  QCOMPARE(transport->currentData().toString(), QStringLiteral("gradient_frame"));
  QVERIFY(transport->isEnabled());

  choose(transport, "donor_cell");
  QCOMPARE(w.scenario().simulation.flow_transport, Transport::DonorCell);
  choose(model, "lagrangian");
  QCOMPARE(w.scenario().simulation.model, Model::Lagrangian);
  QVERIFY(!transport->isEnabled());  // a Lagrangian engine has no cells to transport between

  w.undoAction()->trigger();
  QCOMPARE(w.scenario().simulation.model, Model::Eulerian);
  QCOMPARE(model->currentData().toString(), QStringLiteral("eulerian"));
  QVERIFY(transport->isEnabled());
  w.redoAction()->trigger();
  QCOMPARE(w.scenario().simulation.model, Model::Lagrangian);
  QCOMPARE(model->currentData().toString(), QStringLiteral("lagrangian"));
  auto* spins = w.findChild<QSpinBox*>(QStringLiteral("simulation.spins_per_axis"));
  QVERIFY(spins && spins->isEnabled());
  spins->setValue(6);
  QCOMPARE(w.scenario().simulation.spins_per_axis, 6);

  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("model.json"));
  QVERIFY(w.saveScenario(path));
  QFile f(path);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QByteArray text = f.readAll();
  QVERIFY2(text.contains("\"model\": \"lagrangian\"") && text.contains("\"flow_transport\": \"donor_cell\"") &&
               text.contains("\"spins_per_axis\": 6"),
           text.constData());

  w.setScenario(smallTube());
  QCOMPARE(model->currentData().toString(), QStringLiteral("eulerian"));
  QVERIFY(w.loadScenario(path));
  QCOMPARE(w.scenario().simulation.model, Model::Lagrangian);
  QCOMPARE(w.scenario().simulation.flow_transport, Transport::DonorCell);
  QCOMPARE(model->currentData().toString(), QStringLiteral("lagrangian"));
  QCOMPARE(transport->currentData().toString(), QStringLiteral("donor_cell"));
  QVERIFY(!transport->isEnabled());
  QCOMPARE(spins->value(), 6);
}

// Simulation > Compare models: the Lagrangian image in the reference pane, the Eulerian one beside it over
// their difference, the relative RMS difference in the table and the status line.
void TestGuiModels::compareModelsSideBySide() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  w.setScenario(smallTube());
  ComparisonView* view = w.comparisonView();
  QSignalSpy done(view, &ComparisonView::modelComparisonFinished);
  w.compareModelsAction()->trigger();
  QVERIFY(view->busy());
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 180000);
  QVERIFY2(done.at(0).at(0).toBool(), qPrintable(view->statusText()));

  QCOMPARE(view->paneCount(), 1);
  QVERIFY(view->truthPane()->hasImage());
  QVERIFY(view->imagePane(0)->hasImage());
  QVERIFY(view->errorPane(0)->hasImage());
  const auto& c = view->comparison();
  QVERIFY(c.has_truth);
  QCOMPARE(c.entries.size(), std::size_t(1));
  QVERIFY2(QString::fromStdString(c.entries[0].label).startsWith("Eulerian (gradient_frame)"), c.entries[0].label.c_str());
  QCOMPARE(c.entries[0].backend, std::string("cpu"));
  QVERIFY(c.entries[0].has_metrics);
  QVERIFY(view->modelDifference().has_value());
  const double d = *view->modelDifference();
  qInfo("straight tube 32 x 32: Eulerian vs Lagrangian relative RMS difference %.3f %%", 100 * d);
  QVERIFY2(d > 0 && d < 0.5, qPrintable(QString::number(d)));  // flowing blood differs; the object is the same
  QCOMPARE(view->metricsTable()->item(0, 4)->text(), QString::number(100 * d, 'f', 2));  // Error [%]
  QVERIFY2(view->statusText().contains("relative RMS difference") && view->statusText().contains("cpu-lagrangian"),
           qPrintable(view->statusText()));

  // A method comparison afterwards names the truth again.
  view->setComparison(c);
  QVERIFY(!view->modelDifference().has_value());
}

// Without flow the Lagrangian engine is the cell model (docs/architecture.md): the images agree.
void TestGuiModels::compareModelsAgreeOnStillPhantom() {
  ComparisonView view;
  view.resize(900, 600);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  mrwb::Scenario s = cpu_preset("straight_vessel", 32, 10);
  s.sequence.fov_m = 0.064;
  s.phantom.disc_radius_m = 0.025;
  s.phantom.vessel_radius_m = 0.004;
  view.setScenario(s);
  QSignalSpy done(&view, &ComparisonView::modelComparisonFinished);
  view.compareModels();
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 120000);
  QVERIFY2(done.at(0).at(0).toBool(), qPrintable(view.statusText()));
  QVERIFY(view.modelDifference().has_value());
  QVERIFY2(*view.modelDifference() < 1e-4, qPrintable(QString::number(*view.modelDifference())));
}

// Cancel from the panel: no new result, the shown comparison stays.
void TestGuiModels::compareModelsCancelKeepsResults() {
  ComparisonView view;
  view.resize(900, 600);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.setScenario(smallTube());
  QSignalSpy done(&view, &ComparisonView::modelComparisonFinished);
  view.compareModels();
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 180000);
  QVERIFY(done.at(0).at(0).toBool());
  const double before = *view.modelDifference();

  mrwb::Scenario big = cpu_preset("straight_tube", 128, 300);  // long enough to be cancelled
  view.setScenario(big);
  view.compareModels();
  QVERIFY(view.busy());
  QTest::qWait(200);
  view.cancel();
  QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 10000);
  QVERIFY(!done.at(1).at(0).toBool());
  QVERIFY2(view.statusText().contains("cancelled"), qPrintable(view.statusText()));
  QVERIFY(view.modelDifference().has_value());
  QCOMPARE(*view.modelDifference(), before);
  QVERIFY(view.truthPane()->hasImage());
}

QTEST_MAIN(TestGuiModels)
#include "test_gui_models.moc"
