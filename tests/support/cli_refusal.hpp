#pragma once
// The CLI's contract for bad input, checked on one `mrwb` run: exit 2 within the timeout, exactly one line on
// stderr holding every expected piece (the input file, the field or line), nothing on stdout, nothing left in
// the output folder (no output, no temp file) and under 1 GB of peak memory.
#include <QDir>
#include <QTest>

#include <sys/resource.h>

#include "process_runner.hpp"

namespace mrwb_test {

// Peak resident memory of every child reaped so far, in bytes. A high-water mark over all children (not per
// child): read right after each run, it exceeds the limit as soon as one run has. RSS, not RLIMIT_AS, since
// CUDA and ASan builds reserve far more address space than they touch.
inline long long peak_child_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<long long>(u.ru_maxrss) * 1024;  // KiB on Linux
}

#ifdef MRWB_CLI_PATH
// QVERIFY inside: the caller checks QTest::currentTestFailed() before going on.
inline void expect_refused(const QString& out_dir, const QStringList& args, const QStringList& expect,
                           int timeout_ms = 15000) {
  const Run r = run_program(MRWB_CLI_PATH, args, timeout_ms);
  const QString what = "mrwb " + args.join(' ') + "\n" + r.err;
  QVERIFY2(r.code == 2, qPrintable(QString("exit %1: ").arg(r.code) + what));
  QVERIFY2(!r.err.trimmed().isEmpty() && !r.err.trimmed().contains('\n'), qPrintable("not one line: " + what));
  for (const QString& e : expect) QVERIFY2(r.err.contains(e), qPrintable("missing '" + e + "' in: " + what));
  QVERIFY2(r.out.isEmpty(), qPrintable("stdout: " + r.out));
  const QStringList left = QDir(out_dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
  QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(' ') + "\n" + what));
  const long long peak = peak_child_rss_bytes();
  QVERIFY2(peak < 1000LL * 1000 * 1000, qPrintable(QString("peak memory %1 MB").arg(peak / 1000000)));
}
#endif

}  // namespace mrwb_test
