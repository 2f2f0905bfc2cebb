// GUI tests (label `gui`): real widgets under Xvfb (QT_QPA_PLATFORM=xcb). A small scenario runs
// end to end and the reconstruction view must show an image; Cancel must stop a large run quickly
// and leave the views untouched. The document model is driven through the real editors: edits,
// undo / redo, Save / Open, the unsaved-changes answer, autosave and recovery, inline validation,
// the Teaching menu and every dock. Settings and autosaves live in QStandardPaths' test locations.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QToolButton>
#include <QCheckBox>
#include <QComboBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <set>

#include "fixtures.hpp"
#include "gui.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb_ui/autosave.hpp"
#include "mrwb_ui/comparison_view.hpp"
#include "mrwb_ui/image_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/recent_files.hpp"
#include "mrwb_ui/scenario_document.hpp"
#include "mrwb_ui/scenario_panel.hpp"
#include "mrwb_ui/simulation_worker.hpp"
#include "mrwb_ui/teaching_menu.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"

using mrwb::ui::MainWindow;
using mrwb::ui::ScenarioDocument;

namespace {

using mrwb::test::cpu_preset;
using mrwb::test::showQuietly;

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

QString json(const mrwb::Scenario& s) { return ScenarioDocument::jsonText(s); }

// Types a value into the spin box of a scenario key, as a user would (Enter applies it).
void setSpin(MainWindow& w, const QString& key, double value) {
  auto* box = qobject_cast<QDoubleSpinBox*>(w.scenarioPanel()->fieldWidget(key));
  QVERIFY2(box, qPrintable(key));
  box->setValue(value);
}

}  // namespace

class TestGui : public QObject {
  Q_OBJECT
 public:
  // QTEST_MAIN calls this before it creates the QApplication: VTK needs a 3.2 core context.
  static void initMain() {
    mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat();
    QStandardPaths::setTestModeEnabled(true);  // settings and autosaves away from the user's
  }

 private slots:
  void initTestCase();
  void windowOpens();
  void everyPanelOpens();
  void editUndoRedo();
  void saveThenOpenRestoresScenario();
  void unsavedChangesAnswer();
  void autosaveAndRecovery();
  void badFieldDisablesRun();
  void fidelityShownAndEdited();
  void teachingMenuLoadsScenario();
  void smallRunShowsImage();
  void cancelStopsQuickly();
  void cancelMidRun();
  void invalidScenarioIsReported();
};

void TestGui::initTestCase() {
  QCoreApplication::setOrganizationName(QStringLiteral("mrwb-test"));
  QCoreApplication::setApplicationName(QStringLiteral("test_gui"));
  QSettings().clear();
  QDir(QFileInfo(mrwb::ui::Autosave::autosavePathFor({})).absolutePath()).removeRecursively();
}

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

  // At 1280 x 800 the three central views are narrow: each title is laid out to fit its view.
  for (const char* name : {"reconView", "truthView", "errorView"}) {
    const auto* v = w.findChild<mrwb::ui::ImageView*>(QString::fromLatin1(name));
    QVERIFY(v);
    const int width = qRound(v->width() * v->devicePixelRatioF());
    qInfo("%s: %d px wide, title \"%s\" %d px on %d line(s)", name, width, qPrintable(v->title()),
          v->titleWidthPx(), v->titleLineCount());
    QVERIFY(v->titleWidthPx() > 0);
    QVERIFY2(v->titleWidthPx() <= width, name);
  }
}

void TestGui::smallRunShowsImage() {
  MainWindow w;
  QVERIFY(showQuietly(w));

  const mrwb::Scenario s = cpu_preset("straight_vessel", 32, 50);
  w.setScenario(s);

  QSignalSpy finished(&w, &MainWindow::runFinished);
  w.run();
  QVERIFY(w.isRunning());
  QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, 60000);
  QCOMPARE(finished.count(), 1);
  QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(w.lastError()));
  QVERIFY(!w.isRunning());
  // The status names how the sequence was played (sequence.fidelity).
  QVERIFY2(w.runMessage().contains(QStringLiteral("sequence played with hard RF, gradient moments, ideal spoiling")),
           qPrintable(w.runMessage()));

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

  // The metrics table shows the run: numbers in the metric columns, the backend by name.
  QTableWidget* table = w.metricsTable();
  for (int c = 0; c < 4; ++c) {
    bool isNumber = false;
    const double v = table->item(0, c)->text().toDouble(&isNumber);
    QVERIFY2(isNumber && std::isfinite(v), qPrintable(table->item(0, c)->text()));
  }
  QCOMPARE(table->item(0, 4)->text(), QStringLiteral("cpu"));
  QCOMPARE(table->item(0, 0)->text(), w.psnrText());
  // The Compare room got the run's raw data, so other methods can be compared on it.
  auto* comparison = w.findChild<mrwb::ui::ComparisonView*>();
  QVERIFY(comparison);
  QVERIFY(comparison->hasRawData());

  const QString psnr = w.psnrText();
  QVERIFY(!psnr.isEmpty());
  bool ok = false;
  const double value = psnr.toDouble(&ok);
  QVERIFY2(ok && std::isfinite(value), qPrintable(QStringLiteral("PSNR text: '%1'").arg(psnr)));
}

void TestGui::cancelStopsQuickly() {
  MainWindow w;
  QVERIFY(showQuietly(w));

  const mrwb::Scenario s = cpu_preset("straight_vessel", 128, 2000);
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

  const mrwb::Scenario s = cpu_preset("straight_vessel", 128, 2000);
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

  mrwb::Scenario s = mrwb::scenario_preset("straight_vessel");
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

void TestGui::everyPanelOpens() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  const QStringList names = w.panelNames();
  for (const char* dock : {"scenarioDock", "runDock", "metricsDock", "phantomDock", "flowDock", "sequenceDock",
                           "trajectoryDock", "coilsDock", "velocityDock", "compare"})
    QVERIFY2(names.contains(QLatin1String(dock)), qPrintable(names.join(u',')));
  // Compare is a room of the central area: --panel compare opens it, and a dock's name leaves it again.
  QVERIFY(w.showPanel(QStringLiteral("compare")));
  QVERIFY(w.inCompareRoom());
  QVERIFY(w.showPanel(QStringLiteral("run")));
  QVERIFY(!w.inCompareRoom());
  QMenu* panels = nullptr;
  for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
    if (m->title() == QStringLiteral("&Panels")) panels = m;
  QVERIFY(panels);
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    d->hide();
    QVERIFY(!d->isVisible());
    // Short name (scenario, run, metrics) as `mrwb-gui --panel` takes it.
    QString shortName = d->objectName();
    shortName.chop(4);
    QVERIFY2(w.showPanel(shortName), qPrintable(shortName));
    QTRY_VERIFY(d->isVisible());
    QVERIFY(d->widget()->isVisible());
    QVERIFY(panels->actions().contains(d->toggleViewAction()));
  }
  QVERIFY(!w.showPanel(QStringLiteral("no such panel")));

  // The hook for other views: a docked widget gets a View entry and can be raised by name.
  auto* extra = new QLabel(QStringLiteral("extra view"));
  QDockWidget* dock = w.addPanelDock(QStringLiteral("extraDock"), QStringLiteral("Extra"), extra, Qt::RightDockWidgetArea);
  QVERIFY(panels->actions().contains(dock->toggleViewAction()));
  dock->hide();
  QVERIFY(w.showPanel(QStringLiteral("extra")));
  QTRY_VERIFY(extra->isVisible());

  // The Run dock shows the backends core found, and the run controls.
  auto* backend = w.findChild<QComboBox*>(QStringLiteral("backend"));
  QVERIFY(backend && backend->count() >= 2);  // auto + cpu at least
  QVERIFY(backend->findData(QStringLiteral("cpu")) >= 0);
  QVERIFY(w.findChild<QProgressBar*>(QStringLiteral("runProgress")));
}

void TestGui::editUndoRedo() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  const mrwb::Scenario original = cpu_preset("straight_vessel", 32, 50);
  w.setScenario(original);
  QVERIFY(!w.document()->isDirty());
  QSignalSpy changed(&w, &MainWindow::scenarioChanged);

  // Two edits of TE merge into one undo step; the flip angle is a second one.
  setSpin(w, QStringLiteral("sequence.TE_s"), 5.0);
  QCOMPARE(w.scenario().sequence.TE_s, 0.005);
  setSpin(w, QStringLiteral("sequence.TE_s"), 6.0);
  setSpin(w, QStringLiteral("sequence.flip_angle_deg"), 35.0);
  QCOMPARE(w.scenario().sequence.TE_s, 0.006);
  QCOMPARE(w.scenario().sequence.flip_angle_deg, 35.0);
  QVERIFY(w.document()->isDirty());
  QVERIFY(w.isWindowModified());
  QCOMPARE(w.document()->undoStack()->count(), 2);
  QCOMPARE(changed.count(), 3);
  const mrwb::Scenario edited = w.scenario();

  w.undoAction()->trigger();
  QCOMPARE(w.scenario().sequence.flip_angle_deg, original.sequence.flip_angle_deg);
  QCOMPARE(w.scenario().sequence.TE_s, 0.006);
  w.undoAction()->trigger();
  QCOMPARE(json(w.scenario()), json(original));
  QVERIFY(!w.document()->isDirty());  // back at the clean state
  // The editor shows the restored value, not the edited one.
  auto* te = qobject_cast<QDoubleSpinBox*>(w.scenarioPanel()->fieldWidget(QStringLiteral("sequence.TE_s")));
  QCOMPARE(te->value(), original.sequence.TE_s * 1e3);
  QVERIFY(!w.undoAction()->isEnabled());

  w.redoAction()->trigger();
  w.redoAction()->trigger();
  QCOMPARE(json(w.scenario()), json(edited));
  QCOMPARE(te->value(), 6.0);
  QCOMPARE(changed.count(), 7);
  QCOMPARE(json(changed.last().at(0).value<mrwb::Scenario>()), json(edited));

  // A checkbox edit is undoable too, and the flow editors follow it.
  auto* flow = qobject_cast<QCheckBox*>(w.scenarioPanel()->fieldWidget(QStringLiteral("flow")));
  QWidget* solver = w.scenarioPanel()->fieldWidget(QStringLiteral("flow.solver"));
  QVERIFY(flow && solver && !flow->isChecked() && !solver->isEnabled());
  flow->setChecked(true);
  QVERIFY(w.scenario().flow.enabled);
  QVERIFY(solver->isEnabled());
  w.undoAction()->trigger();
  QVERIFY(!w.scenario().flow.enabled);
  QVERIFY(!flow->isChecked() && !solver->isEnabled());
}

void TestGui::saveThenOpenRestoresScenario() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("edited.json"));
  QString savedText;
  {
    MainWindow w;
    QVERIFY(showQuietly(w));
    w.setScenario(cpu_preset("straight_vessel", 32, 50));
    setSpin(w, QStringLiteral("phantom.vessel_angle_deg"), 42.0);
    setSpin(w, QStringLiteral("sequence.bandwidth_Hz_per_pixel"), 650.0);
    QVERIFY(w.document()->isDirty());
    QVERIFY(w.saveScenario(path));
    QVERIFY(!w.document()->isDirty());
    QCOMPARE(w.document()->path(), QFileInfo(path).absoluteFilePath());
    savedText = json(w.scenario());
  }
  MainWindow w2;
  QVERIFY(showQuietly(w2));
  QVERIFY(json(w2.scenario()) != savedText);
  QVERIFY2(w2.loadScenario(path), qPrintable(w2.lastError()));
  QCOMPARE(json(w2.scenario()), savedText);
  QCOMPARE(w2.scenario().phantom.vessel_angle_deg, 42.0);
  QVERIFY(!w2.document()->isDirty());
  QVERIFY(w2.document()->undoStack()->count() == 0);

  // Open Recent has it first; a file that disappears is pruned from the list.
  QCOMPARE(mrwb::ui::RecentFiles::list().value(0), QFileInfo(path).absoluteFilePath());
  QVERIFY(QFile::remove(path));
  QVERIFY(!mrwb::ui::RecentFiles::list().contains(QFileInfo(path).absoluteFilePath()));

  // A bad file keeps the current document and names the problem.
  const QString bad = dir.filePath(QStringLiteral("bad.json"));
  QFile f(bad);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(QByteArray("{\"format\": \"mrwb-scenario\", \"version\": 1, \"sequence\": {\"TR_s\": -1}}"));
  f.close();
  QVERIFY(!w2.loadScenario(bad));
  QVERIFY2(w2.lastError().contains(QStringLiteral("bad.json")), qPrintable(w2.lastError()));
  QCOMPARE(json(w2.scenario()), savedText);
}

void TestGui::unsavedChangesAnswer() {
  QTemporaryDir dir;
  MainWindow w;
  QVERIFY(showQuietly(w));
  w.setScenario(cpu_preset("straight_vessel", 32, 50));
  setSpin(w, QStringLiteral("sequence.flip_angle_deg"), 33.0);
  QVERIFY(w.document()->isDirty());

  w.setUnsavedChangesAnswer(QMessageBox::Cancel);
  QVERIFY(!w.newScenario());
  QCOMPARE(w.scenario().sequence.flip_angle_deg, 33.0);
  QVERIFY(w.document()->isDirty());

  // Save without a file cannot ask for a name when non-interactive: it acts as Cancel.
  w.setUnsavedChangesAnswer(QMessageBox::Save);
  QVERIFY(!w.newScenario());
  QCOMPARE(w.scenario().sequence.flip_angle_deg, 33.0);

  // With a file, Save writes it and goes on.
  const QString path = dir.filePath(QStringLiteral("kept.json"));
  QVERIFY(w.saveScenario(path));
  setSpin(w, QStringLiteral("sequence.flip_angle_deg"), 44.0);
  QVERIFY(w.newScenario());
  QCOMPARE(mrwb::load_scenario(path.toStdString()).sequence.flip_angle_deg, 44.0);
  QCOMPARE(json(w.scenario()), json(mrwb::scenario_preset("default")));
  QVERIFY(w.document()->path().isEmpty());

  w.setScenario(cpu_preset("straight_vessel", 32, 50));
  setSpin(w, QStringLiteral("sequence.flip_angle_deg"), 55.0);
  w.setUnsavedChangesAnswer(QMessageBox::Discard);
  QVERIFY(w.newScenario());
  QVERIFY(!w.document()->isDirty());
  QCOMPARE(mrwb::load_scenario(path.toStdString()).sequence.flip_angle_deg, 44.0);  // untouched
}

void TestGui::autosaveAndRecovery() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("work.json"));
  mrwb::save_scenario(cpu_preset("straight_vessel", 32, 50), path.toStdString());
  const QString autosavePath = mrwb::ui::Autosave::autosavePathFor(path);
  QVERIFY2(autosavePath.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)),
           qPrintable(autosavePath));
  QString editedText;
  {
    MainWindow w;
    QVERIFY(showQuietly(w));
    QVERIFY(w.loadScenario(path));
    QVERIFY(!w.recoverableAutosave());
    QSignalSpy autosaved(w.autosave(), &mrwb::ui::Autosave::autosaved);
    w.setAutosaveIntervalMs(50);
    QTest::qWait(150);
    QCOMPARE(autosaved.count(), 0);  // a clean document is not autosaved
    QTest::qWait(20);                // the autosave must be newer than the file
    setSpin(w, QStringLiteral("phantom.vessel_offset_m"), 7.0);
    QTRY_VERIFY_WITH_TIMEOUT(autosaved.count() > 0, 3000);
    QCOMPARE(autosaved.last().at(0).toString(), autosavePath);
    editedText = json(w.scenario());
    QCOMPARE(json(mrwb::load_scenario(autosavePath.toStdString())), editedText);
    QVERIFY(w.recoverableAutosave());
    w.setAutosaveIntervalMs(mrwb::ui::Autosave::kDefaultIntervalMs);
    // The window goes away without saving, as after a crash: the autosave stays.
  }
  QVERIFY(QFileInfo::exists(autosavePath));
  MainWindow w;
  QVERIFY(showQuietly(w));
  QVERIFY(w.loadScenario(path));
  QVERIFY(json(w.scenario()) != editedText);
  QCOMPARE(w.recoverableAutosave().value_or(QString()), autosavePath);
  QVERIFY(!w.offerRecovery());  // non-interactive: never asks, restores nothing
  QVERIFY(w.restoreAutosave());
  QCOMPARE(json(w.scenario()), editedText);
  QCOMPARE(w.document()->path(), QFileInfo(path).absoluteFilePath());
  QVERIFY(w.document()->isDirty());
  // Saving makes the autosave obsolete: it is removed and nothing is offered any more.
  QVERIFY(w.saveScenario(path));
  QVERIFY(!QFileInfo::exists(autosavePath));
  QVERIFY(!w.recoverableAutosave());
  QCOMPARE(json(mrwb::load_scenario(path.toStdString())), editedText);
}

void TestGui::badFieldDisablesRun() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  w.setScenario(cpu_preset("straight_vessel", 32, 50));
  QVERIFY(w.runAction()->isEnabled());
  QVERIFY(w.scenarioPanel()->fieldMessage(QStringLiteral("sequence.TE_s")).isEmpty());

  setSpin(w, QStringLiteral("sequence.TE_s"), 20.0);  // TE beyond TR = 10 ms
  QVERIFY(!w.runAction()->isEnabled());
  auto* runButton = w.findChild<QToolButton*>(QStringLiteral("runButton"));
  QVERIFY(runButton && !runButton->isEnabled());
  const QString atField = w.scenarioPanel()->fieldMessage(QStringLiteral("sequence.TE_s"));
  QVERIFY2(atField.contains(QStringLiteral("TE_s")) && atField.contains(QStringLiteral("out of range")),
           qPrintable(atField));
  QVERIFY(w.scenarioPanel()->generalMessage().isEmpty());
  QVERIFY2(w.runMessage().contains(QStringLiteral("TE_s")), qPrintable(w.runMessage()));
  // Other fields carry no message.
  QVERIFY(w.scenarioPanel()->fieldMessage(QStringLiteral("sequence.TR_s")).isEmpty());

  setSpin(w, QStringLiteral("sequence.TE_s"), 4.0);
  QVERIFY(w.runAction()->isEnabled());
  QVERIFY(w.scenarioPanel()->fieldMessage(QStringLiteral("sequence.TE_s")).isEmpty());
  QVERIFY(w.runMessage().isEmpty());

  // A combination error lands on the field core names (GRAPPA needs R >= 2).
  auto* method = qobject_cast<QComboBox*>(w.scenarioPanel()->fieldWidget(QStringLiteral("recon.method")));
  QVERIFY(method);
  method->setCurrentIndex(method->findData(QStringLiteral("grappa")));
  QCOMPARE(w.scenario().recon.method, mrwb::ReconMethod::Grappa);
  QVERIFY(!w.runAction()->isEnabled());
  QVERIFY(!w.scenarioPanel()->fieldMessage(QStringLiteral("recon.method")).isEmpty());
  w.undoAction()->trigger();
  QVERIFY(w.runAction()->isEnabled());
}

// The Scenario panel shows how the sequence is played (sequence.fidelity) and edits it through undo.
void TestGui::fidelityShownAndEdited() {
  MainWindow w;
  QVERIFY(showQuietly(w));
  mrwb::Scenario s = cpu_preset("straight_vessel", 32, 50);
  s.sequence.fidelity.rf = mrwb::RfFidelity::Shaped;
  w.setScenario(s);
  auto combo = [&](const char* key) { return qobject_cast<QComboBox*>(w.scenarioPanel()->fieldWidget(QString::fromLatin1(key))); };
  QVERIFY(combo("sequence.fidelity.rf") && combo("sequence.fidelity.gradients") && combo("sequence.fidelity.spoiling"));
  QCOMPARE(combo("sequence.fidelity.rf")->currentData().toString(), QStringLiteral("shaped"));
  QCOMPARE(combo("sequence.fidelity.spoiling")->currentData().toString(), QStringLiteral("ideal"));
  QComboBox* spoiling = combo("sequence.fidelity.spoiling");
  spoiling->setCurrentIndex(spoiling->findData(QStringLiteral("gradients")));
  QCOMPARE(w.scenario().sequence.fidelity.spoiling, mrwb::SpoilingFidelity::Gradients);
  QVERIFY(w.runAction()->isEnabled());
  w.undoAction()->trigger();
  QCOMPARE(w.scenario().sequence.fidelity.spoiling, mrwb::SpoilingFidelity::Ideal);
  QCOMPARE(spoiling->currentData().toString(), QStringLiteral("ideal"));
}

void TestGui::teachingMenuLoadsScenario() {
  QTemporaryDir dir;
  mrwb::Scenario teaching = cpu_preset("straight_vessel", 32, 50);
  teaching.name = "flow void";
  teaching.description = "Spin echo: blood that leaves the slice between 90 and 180 degrees gives no echo.";
  teaching.sequence.type = mrwb::SequenceType::SpinEcho;
  teaching.sequence.TE_s = 0.02;
  teaching.sequence.TR_s = 0.05;
  mrwb::save_scenario(teaching, dir.filePath(QStringLiteral("teaching_flow_void.json")).toStdString());
  mrwb::Scenario described = cpu_preset("straight_vessel", 32, 50);
  described.name = "described";
  described.description = "A scenario with a description.";
  mrwb::save_scenario(described, dir.filePath(QStringLiteral("a_described.json")).toStdString());
  mrwb::Scenario plain = cpu_preset("straight_vessel", 32, 50);
  plain.description.clear();
  mrwb::save_scenario(plain, dir.filePath(QStringLiteral("b_plain.json")).toStdString());

  const auto entries = mrwb::ui::TeachingMenu::scan(dir.path());
  QCOMPARE(entries.size(), 2);  // the plain file (no description) is not a teaching entry
  QCOMPARE(entries[0].title, QStringLiteral("flow void"));  // teaching_* first
  QCOMPARE(entries[1].title, QStringLiteral("described"));

  qputenv("MRWB_PHANTOMS_DIR", dir.path().toUtf8());
  MainWindow w;
  QVERIFY(showQuietly(w));
  QCOMPARE(mrwb::ui::TeachingMenu::phantomsDir(), QFileInfo(dir.path()).absoluteFilePath());
  QMenu* menu = nullptr;
  for (QMenu* m : w.menuBar()->findChildren<QMenu*>())
    if (m->title() == QStringLiteral("&Teaching")) menu = m;
  QVERIFY(menu);
  w.teachingMenu()->refresh();
  QAction* entry = nullptr;
  for (QAction* a : menu->actions())
    if (a->text() == QStringLiteral("flow void")) entry = a;
  QVERIFY(entry);
  QCOMPARE(entry->statusTip(), QString::fromStdString(teaching.description));
  entry->trigger();
  qunsetenv("MRWB_PHANTOMS_DIR");
  QCOMPARE(json(w.scenario()), json(teaching));
  QVERIFY(w.document()->path().isEmpty());  // Save must not overwrite the shipped file
  auto* about = w.findChild<QLabel*>(QStringLiteral("scenarioDescription"));
  QVERIFY(about && about->isVisible());
  QCOMPARE(about->text(), QString::fromStdString(teaching.description));
}

QTEST_MAIN(TestGui)
#include "test_gui.moc"
