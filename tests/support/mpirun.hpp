#pragma once
// What the suites that run `mrwb` under mpirun share (test_sim_ranks, test_gpu_sim_ranks, test_recon_ranks):
// finding mpirun, and its arguments before mrwb's.
#include <QStandardPaths>
#include <QString>
#include <QStringList>

namespace mrwb_test {

// mpirun's path, or empty with the reason the suite skips in `why` (a build without MPI, no mpirun on PATH).
inline QString find_mpirun(QString& why) {
#ifndef MRWB_HAVE_MPI
  why = "this build has no MPI (MRWB_MPI off)";
  return {};
#else
  const QString m = QStandardPaths::findExecutable("mpirun");
  if (m.isEmpty()) why = "mpirun not found (openmpi-bin)";
  return m;
#endif
}

#ifdef MRWB_CLI_PATH
// mpirun's arguments for N ranks of mrwb: root allowed (CI containers run as root), more ranks than cores
// allowed (the 2-core CI machine).
inline QStringList mpirun_prefix(int np) {
  return {"--allow-run-as-root", "--oversubscribe", "-np", QString::number(np), MRWB_CLI_PATH};
}
#endif

}  // namespace mrwb_test
