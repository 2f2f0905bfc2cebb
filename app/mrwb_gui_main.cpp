// mrwb-gui: the workbench window. Scripted use (docs, tests):
//   mrwb-gui [--scenario S.json] [--run] [--panel NAME] [--screenshot P.png]
// --run with --screenshot: run, save the window as PNG (atomically), exit 0; failure: one line on
// stderr, exit 1 (2 when the input is at fault: bad scenario file, unavailable backend).
// --screenshot alone: capture the window as opened. --panel NAME shows and raises that dock first
// (scenario, run, metrics, or any dock's objectName / title), so the README can show each panel.
// Interactive start (no --screenshot): an autosave newer than the scenario file is offered for recovery.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QTimer>
#include <cstdio>

#include "mrwb/errors.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/version.hpp"
#include "mrwb_ui/main_window.hpp"
#include "mrwb_ui/vtk_opengl_widget.hpp"
#include "mrwb_ui/workbench_style.hpp"

#if defined(MRWB_HAVE_CUDA)
#include "mrwb_gpu/register_backends.hpp"
#endif

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
  mrwb::ui::VtkOpenGLWidget::setDefaultSurfaceFormat();  // before the QApplication exists
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("mrwb-gui"));
  QApplication::setApplicationDisplayName(QStringLiteral("MR Workbench"));
  QApplication::setOrganizationName(QStringLiteral("mrwb"));
  QApplication::setApplicationVersion(QString::fromLatin1(mrwb::version_string));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("MR Workbench: MRI simulation and reconstruction"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption scenarioOpt(QStringLiteral("scenario"), QStringLiteral("Scenario JSON to load."),
                                       QStringLiteral("S.json"));
  const QCommandLineOption runOpt(QStringLiteral("run"), QStringLiteral("Run the scenario at start."));
  const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
                                   QStringLiteral("Save the window as PNG (after the run with --run), then exit."),
                                   QStringLiteral("P.png"));
  const QCommandLineOption panelOpt(QStringLiteral("panel"),
                                    QStringLiteral("Show and raise this dock before the screenshot (scenario, run, metrics, ...)."),
                                    QStringLiteral("NAME"));
  parser.addOptions({scenarioOpt, runOpt, shotOpt, panelOpt});
  parser.process(app);  // exits on --help / --version / unknown options

  const bool doRun = parser.isSet(runOpt);
  const QString shotPath = parser.value(shotOpt);
  const bool scripted = !shotPath.isEmpty();

#if defined(MRWB_HAVE_CUDA)
  mrwb::gpu::register_backends();
#endif

  mrwb::ui::applyWorkbenchStyle(app);
  mrwb::ui::MainWindow window;
  window.setInteractive(false);  // a bad --scenario is one line on stderr, not a dialog
  if (parser.isSet(scenarioOpt) && !window.loadScenario(parser.value(scenarioOpt))) {
    fail(window.lastError());
    return 2;
  }
  if (parser.isSet(panelOpt) && !window.showPanel(parser.value(panelOpt))) {
    fail(QStringLiteral("--panel: unknown panel '%1' (allowed: %2)")
             .arg(parser.value(panelOpt), window.panelNames().join(QStringLiteral(", "))));
    return 2;
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

  if (doRun) {
    QObject::connect(&window, &mrwb::ui::MainWindow::runFinished, &window, [&](bool ok) {
      if (!ok) {
        fail(window.lastError());
        if (scripted) QApplication::exit(window.lastErrorIsInputError() ? 2 : 1);
        return;
      }
      if (scripted) screenshotAndQuit();
    });
    // Start once the event loop runs, so the window is mapped and the views have GL contexts.
    QTimer::singleShot(0, &window, [&] { window.run(); });
  } else if (scripted) {
    screenshotAndQuit();
  }

  const int rc = app.exec();
  return rc != 0 ? rc : exitCode;
}
