// Progress in a log: with stderr a pipe (not a terminal) `mrwb simulate` and `mrwb recon` write one closing
// line each ("wrote …", which says what ran), no "\r stage NN %" redraws (which made one line of 1,717
// characters), and nothing with --quiet.
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

#include "files.hpp"
#include "process_runner.hpp"

namespace {

using mrwb_test::Run;
using mrwb_test::run_mrwb;

// The longest line of `text`, carriage returns counted as characters (a log keeps every one).
qsizetype longest_line(const QString& text) {
  qsizetype longest = 0;
  for (const QString& line : text.split('\n')) longest = std::max(longest, line.size());
  return longest;
}

}  // namespace

class TestCliProgress : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const char* n) const { return dir_.filePath(n); }
  QString scenario() const { return QString(MRWB_SOURCE_DIR) + "/phantoms/default.json"; }

  // Runs simulate, recon fft and recon cs on the default scenario (under the sanitizer at matrix 64: files.hpp;
  // plus `extra` on each); their stderr together.
  QString log_of_three_commands(const QStringList& extra) {
    const QString default_scenario = mrwb::test::default_scenario_file(MRWB_SOURCE_DIR, dir_.path());
    if (default_scenario.isEmpty()) return QStringLiteral("failed");
    const QList<QStringList> commands = {
        QStringList{"simulate", "--scenario", default_scenario, "--out", path("raw.h5"), "--truth", path("truth.h5")},
        QStringList{"recon", "--in", path("raw.h5"), "--method", "fft", "--out", path("fft.h5")},
        QStringList{"recon", "--in", path("raw.h5"), "--method", "cs", "--maps", "espirit", "--out", path("cs.h5")}};
    QString log;
    for (const QStringList& args : commands) {
      const Run r = run_mrwb(args + extra);
      if (r.code != 0) qWarning("mrwb %s: %s", qPrintable(args.join(' ')), qPrintable(r.err));
      if (r.code != 0) return QStringLiteral("failed");
      log += r.err;
    }
    return log;
  }

 private slots:
  void logHoldsSummaryLinesOnly() {
    const QString log = log_of_three_commands({});
    QVERIFY(log != "failed");
    const qsizetype lines = log.count('\n');
    qInfo("stderr of simulate + recon fft + recon cs in a log: %lld lines, the longest %lld characters",
          static_cast<long long>(lines), static_cast<long long>(longest_line(log)));
    QVERIFY2(!log.contains('\r') && !log.contains(" %"), qPrintable(log));
    QCOMPARE(lines, qsizetype{3});  // one closing line a command
    QVERIFY2(longest_line(log) <= 200, qPrintable(log));
    for (const char* what : {"eulerian", "hard RF", "fft) from ", "cs) from ", "1 coil(s)"})
      QVERIFY2(log.contains(QLatin1String(what)), what);
  }
  // Played with cell states, the plan is a line of its own before the closing line (orders and bytes per
  // cell, and that the states diffuse), each under 200 characters; without them no such line.
  void cellStatesNamedOnTheirOwnLine() {
    QFile shipped(scenario());
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    QJsonObject j = QJsonDocument::fromJson(shipped.readAll()).object();
    j.remove("flow");  // states run on still phantoms
    QJsonObject q = j["sequence"].toObject();
    q["matrix"] = 32;
    q["dummy_scans"] = 10;
    q["fidelity"] = QJsonObject{{"spoiling", "states"}};
    j["sequence"] = q;
    QFile still(path("still_states.json"));
    QVERIFY(still.open(QIODevice::WriteOnly));
    still.write(QJsonDocument(j).toJson());
    still.close();
    const Run r = run_mrwb({"simulate", "--scenario", still.fileName(), "--out", path("states.h5")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QStringList lines = r.err.trimmed().split('\n');
    qInfo("%s", qPrintable(r.err.trimmed()));
    QCOMPARE(lines.size(), qsizetype{2});
    QVERIFY2(QRegularExpression("^cell states: \\d+ orders \\(\\d+ B per cell").match(lines[0]).hasMatch(), qPrintable(lines[0]));
    QVERIFY2(lines[0].endsWith("; diffusion included"), qPrintable(lines[0]));  // the muscle disc's ADC
    QVERIFY2(lines[1].startsWith("wrote ") && lines[1].contains("spoiling in cell states"), qPrintable(lines[1]));
    QVERIFY2(longest_line(r.err) <= 200, qPrintable(r.err));
  }
  void quietWritesNothing() {
    const QString log = log_of_three_commands({"--quiet"});
    QVERIFY(log != "failed");
    QVERIFY2(log.isEmpty(), qPrintable(log));
  }
};

QTEST_GUILESS_MAIN(TestCliProgress)
#include "test_cli_progress.moc"
