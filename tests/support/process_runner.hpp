#pragma once
// Runs a program (the `mrwb` CLI, or a reference tool) and collects its exit code, stdout and stderr: the
// runner every CLI test uses.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace mrwb_test {

struct Run {
  int code;  // -1: did not finish within the timeout
  QString out, err;
};

inline Run run_program(const QString& program, const QStringList& args, int timeout_ms = 600000) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(timeout_ms)) return {-1, {}, "timeout"};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

#ifdef MRWB_CLI_PATH
inline Run run_mrwb(const QStringList& args) { return run_program(MRWB_CLI_PATH, args); }
#endif

}  // namespace mrwb_test
