#pragma once
// mrwb-gui's command line: its options, and whether it asks only for the usage or the version. Those two are
// answered by a QCoreApplication, before the QApplication (which aborts where no display is) exists.
#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QString>
#include <string_view>

#include "mrwb/base/version.hpp"

namespace mrwb::gui {

struct GuiOptions {
  QCommandLineOption scenario{QStringLiteral("scenario"), QStringLiteral("Scenario JSON to load."), QStringLiteral("S.json")};
  QCommandLineOption run{QStringLiteral("run"), QStringLiteral("Run the scenario at start.")};
  QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                QStringLiteral("Save the window as PNG (after the run with --run), then exit."),
                                QStringLiteral("P.png")};
  QCommandLineOption panel{QStringLiteral("panel"),
                           QStringLiteral("Show and raise this dock before the screenshot (scenario, run, metrics, ...)."),
                           QStringLiteral("NAME")};
  QCommandLineOption computeFlow{QStringLiteral("compute-flow"),
                                 QStringLiteral("Compute the flow field (after the run with --run) before the screenshot.")};
  QCommandLineOption importPulseq{QStringLiteral("import-pulseq"), QStringLiteral("Import this Pulseq file at start."),
                                  QStringLiteral("X.seq")};
  QCommandLineOption simulatePulseq{QStringLiteral("simulate-pulseq"),
                                    QStringLiteral("Play the imported Pulseq file on the scenario's phantom before the screenshot.")};
  QCommandLineOption segment{QStringLiteral("segment"),
                             QStringLiteral("Select this vessel segment in Phantom 3-D (its editor shows it)."), QStringLiteral("N")};
  QCommandLineOption backend{QStringLiteral("backend"),
                             QStringLiteral("Run on this backend (auto, cpu, cuda) whatever the scenario says."),
                             QStringLiteral("NAME")};

  void addTo(QCommandLineParser& parser) const {
    parser.setApplicationDescription(QStringLiteral("MR Workbench: MRI simulation and reconstruction"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({scenario, run, screenshot, panel, computeFlow, importPulseq, simulatePulseq, segment, backend});
  }
};

// The names --help and --version print; QCoreApplication's, so they can be set before any application exists.
inline void nameApplication() {
  QCoreApplication::setApplicationName(QStringLiteral("mrwb-gui"));
  QCoreApplication::setOrganizationName(QStringLiteral("mrwb"));
  QCoreApplication::setApplicationVersion(QString::fromLatin1(mrwb::version_string));
}

// True when argv asks for the usage or the version (QCommandLineParser's -h, --help, --help-all, -?, -v, --version).
inline bool asksUsageOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "-?" || a == "-v" || a == "--version") return true;
  }
  return false;
}

}  // namespace mrwb::gui
