// mrwb-gui: the workbench window. Scripted use (docs, tests):
//   mrwb-gui [--scenario S.json] [--run] [--panel NAME] [--compute-flow] [--import-pulseq X.seq [--simulate-pulseq]]
//            [--segment N] [--backend auto|cpu|cuda] [--screenshot P.png]
// --run with --screenshot: run, save the window as PNG (atomically), exit 0; failure: one line on
// stderr, exit 1 (2 when the input is at fault: bad scenario file, unavailable backend).
// --screenshot alone: capture the window as opened. --panel NAME shows and raises that dock first
// (scenario, run, metrics, or any dock's objectName / title), so the README can show each panel.
// --compute-flow computes the flow field (after the run) before the screenshot; --import-pulseq X.seq
// imports a Pulseq file into the Pulseq dock (--simulate-pulseq plays it); --segment N selects vessel segment N for its editor.
// --backend overrides the scenario's backend (scripts/gpu-gui-check runs the workbench on CUDA this way).
// Interactive start (no --screenshot): an autosave newer than the scenario file is offered for recovery.
// --help and --version need no display (gui_command_line.hpp).
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QIcon>
#include <QImage>
#include <QTimer>
#include <cstdio>
#include <functional>

#include "gui_command_line.hpp"
#include "mrwb/base/backend.hpp"
#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/lbm_backends.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb_ui/flow_view.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/pulseq_panel.hpp"
#include "mrwb_ui/vessel_tree_view.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"
#include "mrwb_ui/workbench_style.hpp"

namespace {

void fail(const QString& message) { std::fprintf(stderr, "mrwb-gui: %s\n", message.toUtf8().constData()); }

// Written beside the target and renamed, so a reader never sees a half-written PNG.
bool savePngAtomically(const QImage& image, const QString& path) {
  const QString tmp = path + QStringLiteral(".tmp");
  if (image.isNull() || !image.save(tmp, "PNG")) {
    QFile::remove(tmp);
    return false;
  }
  QFile::remove(path);  // QFile::rename does not overwrite
  if (!QFile::rename(tmp, path)) {
    QFile::remove(tmp);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  mrwb::gui::nameApplication();
  const mrwb::gui::GuiOptions opts;
  if (mrwb::gui::asksUsageOrVersion(argc, argv)) {  // no display needed: no QApplication
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    opts.addTo(parser);
    parser.process(app);  // prints the usage / version and exits 0 (1 on an unknown option)
    return 0;
  }
  mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat();  // before the QApplication exists
  QApplication app(argc, argv);
  QApplication::setApplicationDisplayName(QStringLiteral("MR Workbench"));

  QCommandLineParser parser;
  opts.addTo(parser);
  parser.process(app);  // exits on unknown options

  const bool doRun = parser.isSet(opts.run);
  const QString shotPath = parser.value(opts.screenshot);
  const bool scripted = !shotPath.isEmpty();

  mrwb::ui::applyWorkbenchStyle(app);
  QApplication::setWindowIcon(mrwb::ui::applicationIcon());
  mrwb::ui::MainWindow window;
  window.setInteractive(false);  // a bad --scenario is one line on stderr, not a dialog
  // Compute Flow may run the LBM on the GPU (loading the CUDA module: base/cuda_backends.hpp).
  if (mrwb::cuda_device_available())
    window.flowView()->addLbmBackend(QStringLiteral("CUDA (%1)").arg(QString::fromStdString(mrwb::cuda_device_description())),
                                     mrwb::choose_lbm_runner(mrwb::Backend::Cuda));
  if (parser.isSet(opts.scenario) && !window.loadScenario(parser.value(opts.scenario))) {
    fail(window.lastError());
    return 2;
  }
  if (parser.isSet(opts.backend)) {
    const auto backend = mrwb::parse_backend(parser.value(opts.backend).toStdString());
    if (!backend) {
      fail(QStringLiteral("--backend: unknown backend '%1' (allowed: auto, cpu, cuda)").arg(parser.value(opts.backend)));
      return 2;
    }
    mrwb::Scenario s = window.scenario();
    s.backend = *backend;
    window.setScenario(s);
  }
  if (parser.isSet(opts.panel) && !window.showPanel(parser.value(opts.panel))) {
    fail(QStringLiteral("--panel: unknown panel '%1' (allowed: %2)")
             .arg(parser.value(opts.panel), window.panelNames().join(QStringLiteral(", "))));
    return 2;
  }
  if (parser.isSet(opts.importPulseq) && !window.importPulseq(parser.value(opts.importPulseq))) {
    fail(window.pulseqPanel()->lastError());
    return 2;
  }
  if (parser.isSet(opts.segment)) {
    bool ok = false;
    const int segment = parser.value(opts.segment).toInt(&ok);
    if (!ok || !window.selectSegment(segment)) {
      fail(QStringLiteral("--segment %1: no such segment (allowed: 0 .. %2)")
               .arg(parser.value(opts.segment))
               .arg(window.vesselTreeView()->segmentCount() - 1));
      return 2;
    }
  }
  window.setInteractive(!scripted);  // no modal dialogs when nobody is there to close them
  window.show();
  if (!scripted) QTimer::singleShot(0, &window, [&] { window.offerRecovery(); });

  int exitCode = 0;
  auto screenshotAndQuit = [&] {
    // Let pending paints and layouts settle, then grab (QWidget::grab includes QOpenGLWidgets).
    QTimer::singleShot(300, &window, [&] {
      const QString abs = QDir::current().absoluteFilePath(shotPath);
      if (!savePngAtomically(window.grab().toImage(), abs)) {
        fail(QStringLiteral("cannot write screenshot %1").arg(abs));
        exitCode = 1;
      }
      QApplication::exit(exitCode);
    });
  };

  // After the run (if any): play the imported Pulseq file and Compute Flow (if asked), then the screenshot.
  const bool computeFlow = parser.isSet(opts.computeFlow), simulatePulseq = parser.isSet(opts.simulatePulseq);
  auto afterStep = [&](bool ok, const QString& error, const std::function<void()>& next) {
    if (!ok) {
      fail(error);
      if (scripted) QApplication::exit(1);
      return;
    }
    next();
  };
  std::function<void()> finish = [&] {
    if (scripted) screenshotAndQuit();
  };
  std::function<void()> flowStep = [&] {
    if (!computeFlow) return finish();
    QObject::connect(window.flowView(), &mrwb::ui::FlowView::flowComputed, &window,
                     [&](bool ok) { afterStep(ok, window.flowView()->errorText(), finish); });
    window.flowView()->computeFlow();
  };
  std::function<void()> afterRun = [&] {
    if (!simulatePulseq || !window.pulseqPanel()->hasSequence()) return flowStep();
    QObject::connect(window.pulseqPanel(), &mrwb::ui::PulseqPanel::simulationFinished, &window,
                     [&](bool ok) { afterStep(ok, window.pulseqPanel()->lastError(), flowStep); });
    window.pulseqPanel()->simulate();
  };
  if (doRun) {
    QObject::connect(&window, &mrwb::ui::MainWindow::runFinished, &window, [&](bool ok) {
      if (!ok) {
        fail(window.lastError());
        if (scripted) QApplication::exit(window.lastErrorIsInputError() ? 2 : 1);
        return;
      }
      afterRun();
    });
    // Start once the event loop runs, so the window is mapped and the views have GL contexts.
    QTimer::singleShot(0, &window, [&] { window.run(); });
  } else {
    QTimer::singleShot(0, &window, [&] { afterRun(); });
  }

  const int rc = app.exec();
  return rc != 0 ? rc : exitCode;
}
