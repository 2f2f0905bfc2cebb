// `mrwb recon --method cg | gridding` over MPI ranks (noncart_ranks.hpp: exact F^H d and Q by voxels, gridded
// operators and gridding by samples, the CG's vectors by rows): `mpirun -np 2` and `-np 3`, and `--ranks 3`
// (BART and ISMRMRD input), equal the one-process run within 1e-6 relative RMS (the exact CG bit for bit) on a
// radial case whose voxels (26^2 = 676), rows (26), Q half (2n (n + 1) = 1,404) and samples (41 x 53 = 2,173)
// are not all divisible by the ranks; so do 3 ranks over two hosts (a network namespace as the second); a failing
// rank ends the run with one line naming it, exit 2 and nothing written; bad --ranks values are refused. Skipped
// when the build has no MPI or mpirun is missing.
#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include "cli_refusal.hpp"
#include "mpirun.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/phantom/analytic_phantom.hpp"
#include "mrwb/sequence/trajectory.hpp"
#include "noncart_cli_test_support.hpp"
#include "mpirun.hpp"
#include "process_runner.hpp"
#include "two_hosts.hpp"

using namespace mrwb;
using mrwb_test::Run;

namespace {

constexpr int k_n = 26;  // 676 voxels: 676 % 3 = 1
constexpr int k_timeout_ms = 60000;

using mrwb_test::mpirun_prefix;

}  // namespace

class TestReconRanks : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString mpirun_;

  QString path(const QString& name) const { return dir_.filePath(name); }
  // BART k-space and trajectory, or (ismrmrd) the same samples as one ISMRMRD file.
  // The ranks' image `many` against the one-process image `one`: within 1e-6 relative RMS, the exact CG's bit for
  // bit (noncart_cg.cpp: dot products added in row order). QVERIFY inside.
  static void expect_equal_to_one(const QString& many, const QString& one, const QStringList& method, const QString& what) {
    const auto a = read_cfl(many.toStdString()).data, b = read_cfl(one.toStdString()).data;
    QCOMPARE(a.size(), std::size_t{k_n * k_n});
    QCOMPARE(b.size(), a.size());
    const double e = relative_l2(a, b);
    qInfo("%s: relative RMS against one process %.3g", qPrintable(what), e);
    QVERIFY2(e <= 1e-6, qPrintable(QString::number(e)));
    if (method.contains("--exact")) QVERIFY2(a == b, "the exact CG over ranks is not one process's image bit for bit");
  }
  QStringList recon_args(const QStringList& method, const QString& out, const QString& backend = "cpu",
                         bool ismrmrd = false) const {
    const QStringList in = ismrmrd ? QStringList{"--in", path("k.h5")} : QStringList{"--in", path("k.cfl"), "--traj", path("t.cfl")};
    return QStringList{"recon"} + in +
           QStringList{"--out", out, "--quiet", "--backend", backend, "--matrix", QString::number(k_n)} + method;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QString why;
    mpirun_ = mrwb_test::find_mpirun(why);
    if (mpirun_.isEmpty()) QSKIP(qPrintable(why));
    const auto t = noncart::radial_2d(k_n, 41, 53, true);
    QCOMPARE(t.count(), std::size_t{2173});
    mrwb_test::write_bart(path("k").toStdString(), path("t").toStdString(), t,
                          noncart::AnalyticPhantom::shepp_logan(2).kspace(t.k));
    write_raw_ismrmrd(path("k.h5").toStdString(), read_raw(path("k.cfl").toStdString(), path("t.cfl").toStdString()));
  }

  void ranks_equal_one_process_data() {
    QTest::addColumn<QStringList>("method");
    QTest::addColumn<int>("np");
    QTest::addColumn<bool>("ranks_option");
    QTest::addColumn<bool>("ismrmrd");
    const QStringList exact = {"--method", "cg", "--exact", "--iterations", "12"};
    const QStringList gridding = {"--method", "gridding"};
    // Point 4 for the CG: gridded F^H d and Q by samples; the circulant preconditioner gathers the residual.
    const QStringList gridded = {"--method", "cg", "--gridded", "--iterations", "12", "--preconditioner", "circulant"};
    QTest::newRow("cg exact, mpirun -np 2") << exact << 2 << false << false;
    QTest::newRow("cg exact, mpirun -np 3") << exact << 3 << false << false;
    QTest::newRow("cg exact, --ranks 3") << exact << 3 << true << false;
    QTest::newRow("gridding, mpirun -np 2") << gridding << 2 << false << false;
    QTest::newRow("gridding, mpirun -np 3") << gridding << 3 << false << false;
    QTest::newRow("cg gridded circulant, mpirun -np 3") << gridded << 3 << false << false;
    // libismrmrd opens its file for writing (HDF5 locks it): the ranks read it in turn.
    QTest::newRow("gridding, ISMRMRD input, --ranks 3") << gridding << 3 << true << true;
  }
  void ranks_equal_one_process() {
    QFETCH(QStringList, method);
    QFETCH(int, np);
    QFETCH(bool, ranks_option);
    QFETCH(bool, ismrmrd);
    static int row = 0;
    const QString tag = QString("row%1").arg(row++);
    const QString one = path(tag + "_one.cfl"), many = path(tag + "_ranks.cfl");
    Run r = mrwb_test::run_mrwb(recon_args(method, one, "cpu", ismrmrd));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QStringList args = recon_args(method, many, "cpu", ismrmrd);
    if (ranks_option) args << "--ranks" << QString::number(np);
    r = ranks_option ? mrwb_test::run_program(MRWB_CLI_PATH, args, k_timeout_ms)
                     : mrwb_test::run_program(mpirun_, mpirun_prefix(np) + args, k_timeout_ms);
    QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
    expect_equal_to_one(many, one, method, QTest::currentDataTag());
  }

  // Across two hosts (two_hosts.hpp: a network namespace for the second), two ranks on host A and one on host B,
  // the dot products and the voxels' and samples' sums crossing over TCP: the exact CG bit for bit, gridding
  // within 1e-6 of the one-process run.
  void ranks_across_two_hosts() {
    mrwb_test::TwoHosts hosts(dir_.path());
    if (!hosts.ok()) QSKIP(qPrintable(hosts.why()));
    const QStringList exact = {"--method", "cg", "--exact", "--iterations", "12"}, gridding = {"--method", "gridding"};
    for (const QStringList& method : {exact, gridding}) {
      const QString tag = method == exact ? "hosts_cg" : "hosts_gridding";
      const QString one = path(tag + "_one.cfl"), many = path(tag + "_ranks.cfl");
      Run r = mrwb_test::run_mrwb(recon_args(method, one));
      QVERIFY2(r.code == 0, qPrintable(r.err));
      r = mrwb_test::run_program(mpirun_, hosts.mpirun_args(2, 1) + QStringList{MRWB_CLI_PATH} + recon_args(method, many), 120000);
      QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
      expect_equal_to_one(many, one, method, method.join(' ') + ", 3 ranks on two hosts (2 + 1)");
      if (QTest::currentTestFailed()) return;
    }
  }

  // A rank that fails inside its run ends every rank: exit 2, one line naming it, nothing written.
  void failing_rank_ends_the_run() {
    QTemporaryDir out;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("MRWB_TEST_FAIL_RANK", "1");
    p.setProcessEnvironment(env);
    p.start(MRWB_CLI_PATH, recon_args({"--method", "gridding"}, out.filePath("img.cfl")) << "--ranks" << "2");
    QVERIFY2(p.waitForFinished(k_timeout_ms), "the run hangs");
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitCode() == 2, qPrintable(QString("exit %1: %2").arg(p.exitCode()).arg(err)));
    QCOMPARE(err.trimmed(), QString("rank 1: out of memory"));
    const QStringList left = QDir(out.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(' ')));
  }

  void bad_ranks_refused() {
    QTemporaryDir out;
    const QStringList cg = recon_args({"--method", "cg"}, out.filePath("img.cfl"));
    for (const char* n : {"0", "257"})
      mrwb_test::expect_refused(out.path(), cg + QStringList{"--ranks", n}, {"--ranks", "allowed: 1 to 256"});
    if (QTest::currentTestFailed()) return;
    // Refused before mpirun starts: a method or backend the ranks do not run.
    mrwb_test::expect_refused(out.path(), recon_args({"--method", "fft"}, out.filePath("img.cfl")) << "--ranks" << "2",
                              {"--ranks", "allowed: --method cg or gridding"});
    if (QTest::currentTestFailed()) return;
    mrwb_test::expect_refused(out.path(), recon_args({"--method", "cg"}, out.filePath("img.cfl"), "cuda") << "--ranks" << "2",
                              {"--ranks", "allowed: --backend cpu or auto"});
    if (QTest::currentTestFailed()) return;
    // Under mpirun, --ranks must match its -np.
    const Run r = mrwb_test::run_program(mpirun_, mpirun_prefix(2) + cg + QStringList{"--ranks", "3"}, k_timeout_ms);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--ranks 3: mpirun started 2 processes"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestReconRanks)
#include "test_recon_ranks.moc"
