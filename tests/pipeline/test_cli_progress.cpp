// Progress in a log: with stderr a pipe (not a terminal) `mrwb simulate` and `mrwb recon` write one closing
// line each ("wrote …", which says what ran), no "\r stage NN %" redraws (which made one line of 1,717
// characters), and nothing with --quiet.
#include <QtTest>

#include <algorithm>

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

  // Runs simulate, recon fft and recon cs on the default scenario (plus `extra` on each); their stderr together.
  QString log_of_three_commands(const QStringList& extra) {
    const QList<QStringList> commands = {
        QStringList{"simulate", "--scenario", scenario(), "--out", path("raw.h5"), "--truth", path("truth.h5")},
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
  void quietWritesNothing() {
    const QString log = log_of_three_commands({"--quiet"});
    QVERIFY(log != "failed");
    QVERIFY2(log.isEmpty(), qPrintable(log));
  }
};

QTEST_GUILESS_MAIN(TestCliProgress)
#include "test_cli_progress.moc"
