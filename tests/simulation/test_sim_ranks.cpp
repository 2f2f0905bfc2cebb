// `mrwb simulate` over MPI ranks (mpi/, the CPU engine in slabs of z planes or y rows): `mpirun -np 2` and `-np 3`,
// `--ranks 2`, and `mpirun --host` over two hosts (a network namespace as the second), equal the one-process run on
// a moving 3-D phantom whose vessels cross the slab boundaries; a failing or killed rank ends the run with one line
// naming it, exit 2 and nothing written; bad --ranks values are refused, and so, in one line, is --ranks as root
// without OpenMPI's consent. Skipped when the build has no MPI or mpirun is missing.
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSysInfo>
#include <QTest>

#include <unistd.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "cli_refusal.hpp"
#include "files.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"
#include "numeric.hpp"
#include "mpirun.hpp"
#include "process_runner.hpp"
#include "sanitizer_scale.hpp"
#include "sim_ranks_fixture.hpp"
#include "two_hosts.hpp"

using namespace mrwb;
using mrwb_test::Run;

using mrwb_test::k_ranks_scenario;
using mrwb_test::mpirun_prefix;
using mrwb_test::Output;
using mrwb_test::read_output;

class TestSimRanks : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString scenario_, mpirun_;
  Output one_;

  QString path(const QString& name) const { return dir_.filePath(name); }
  QStringList simulate_args(const QString& tag) const {
    return {"simulate", "--scenario", scenario_, "--out", path(tag + ".h5"), "--truth", path(tag + "_truth.h5"), "--quiet"};
  }
  // The ranks' output `tag` against the one-process run `one`: k-space and truth within 1e-6 relative RMS.
  // QVERIFY inside: the caller returns when QTest::currentTestFailed().
  void expect_equal_to_one(const QString& tag, const Output& one, const QString& what) {
    const Output o = read_output(path(tag + ".h5"), path(tag + "_truth.h5"));
    QCOMPARE(o.k.size(), one.k.size());
    QCOMPARE(o.truth.size(), one.truth.size());
    const double ek = mrwb::test::rel_rms(o.k, one.k), et = mrwb::test::rel_rms(o.truth, one.truth);
    qInfo("%s: relative RMS k-space %.3g, truth %.3g", qPrintable(what), ek, et);
    QVERIFY2(ek <= 1e-6, qPrintable(QString::number(ek)));
    QVERIFY2(et <= 1e-6, qPrintable(QString::number(et)));
  }

 private slots:
  void initTestCase() {
    QString why;
    mpirun_ = mrwb_test::find_mpirun(why);
    if (mpirun_.isEmpty()) QSKIP(qPrintable(why));
    QVERIFY(dir_.isValid());
    scenario_ = path("vessel_tree_3d.json");
    // Under the sanitizer half the partitions (64 TRs instead of 128): the same cells, slabs and halos, each run
    // half as long (an entry of three sanitized runs took 62 s on 2 cores).
    QByteArray scenario(k_ranks_scenario);
    if (mrwb::test::sanitized()) {
      const QByteArray full = "\"partitions\": 8", small = "\"partitions\": 4";
      QVERIFY(scenario.contains(full));
      scenario.replace(full, small);
    }
    QVERIFY(mrwb::test::write_file(scenario_, scenario));
    const Run r = mrwb_test::run_mrwb(simulate_args("one"));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.isEmpty(), qPrintable("a plain run prints no decomposition: " + r.out));
    one_ = read_output(path("one.h5"), path("one_truth.h5"));
  }

  // Blood crosses every boundary of the 2- and 3-rank splits: moving cells on both sides of each.
  void flow_crosses_rank_boundaries() {
    const CellPhantom ph = build_phantom(load_scenario(scenario_.toStdString()));
    QVERIFY(ph.nz > 1 && ph.uz.size() == ph.size());
    for (int ranks : {2, 3}) {
      const SlabSplit s = slab_split(ph, ranks, k_transport_halo_planes, SplitAxis::Z);
      for (int r = 1; r < ranks; ++r)
        for (int z : {s.begin(r) - 1, s.begin(r)}) {
          int crossing = 0;
          for (std::size_t i = z * ph.slice_size(); i < (z + 1) * ph.slice_size(); ++i) crossing += ph.uz[i] != 0.f;
          QVERIFY2(crossing > 0, qPrintable(QString("no through-plane flow in plane %1 (%2 ranks)").arg(z).arg(ranks)));
        }
    }
  }

  void mpirun_equals_one_process_data() {
    QTest::addColumn<int>("np");
    QTest::addColumn<bool>("ranks_option");
    QTest::addColumn<QString>("transport");  // empty: the scenario's (gradient_frame)
    QTest::addColumn<QString>("axis");       // --split-axis; empty: not given (auto)
    QTest::newRow("mpirun -np 2, z planes") << 2 << false << QString() << QString("z");
    QTest::newRow("mpirun -np 3, z planes") << 3 << false << QString() << QString("z");
    QTest::newRow("--ranks 2, z planes") << 2 << true << QString() << QString("z");
    // y rows of a 3-D grid: played with y and z swapped, the truth swapped back.
    QTest::newRow("mpirun -np 2, y rows") << 2 << false << QString() << QString("y");
    QTest::newRow("mpirun -np 3, y rows") << 3 << false << QString() << QString("y");
    QTest::newRow("--ranks 3, the axis chosen") << 3 << true << QString() << QString();
    // The limited second-order transport reads two planes beyond a cell: a halo of 2.
    QTest::newRow("mpirun -np 3, limited transport, z planes") << 3 << false << QString("gradient_frame_limited") << QString("z");
    QTest::newRow("mpirun -np 3, limited transport, y rows") << 3 << false << QString("gradient_frame_limited") << QString("y");
  }
  void mpirun_equals_one_process() {
    QFETCH(int, np);
    QFETCH(bool, ranks_option);
    QFETCH(QString, transport);
    QFETCH(QString, axis);
    const QString tag =
        QString("np%1%2%3%4").arg(np).arg(ranks_option ? "r" : "").arg(transport.isEmpty() ? "" : "l").arg(axis.isEmpty() ? "a" : axis);
    QStringList args = simulate_args(tag);
    if (ranks_option) args << "--ranks" << QString::number(np);
    if (!axis.isEmpty()) args << "--split-axis" << axis;
    Output one = one_;
    int halo = 1;
    if (!transport.isEmpty()) {
      args << "--flow-transport" << transport;
      const Run r1 = mrwb_test::run_mrwb(simulate_args("one_" + transport) << "--flow-transport" << transport);
      QVERIFY2(r1.code == 0, qPrintable(r1.err));
      one = read_output(path("one_" + transport + ".h5"), path("one_" + transport + "_truth.h5"));
      halo = transport_halo_planes(*parse_flow_transport(transport.toStdString()));
    }
    const Run r = ranks_option ? mrwb_test::run_mrwb(args) : mrwb_test::run_program(mpirun_, mpirun_prefix(np) + args);
    QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
    // The decomposition, once: the 16 z planes or 32 y rows in slabs of equal work (the tree's fluid cells in a
    // few planes).
    const SlabSplit split = slab_split(build_phantom(load_scenario(scenario_.toStdString())), np, halo,
                                       *parse_split_axis(axis.isEmpty() ? "auto" : axis.toStdString()));
    QCOMPARE(r.out, QString::fromStdString(decomposition_text(split)) + "\n");
    if (axis == "z")
      QVERIFY(r.out.startsWith(QString("ranks %1: z planes [0,").arg(np)) && r.out.endsWith(QString(",16), halo %1\n").arg(halo)));
    if (axis == "y")
      QVERIFY(r.out.startsWith(QString("ranks %1: y rows [0,").arg(np)) && r.out.endsWith(QString(",32), halo %1\n").arg(halo)));
    if (!transport.isEmpty()) QVERIFY(mrwb::test::rel_rms(one.k, one_.k) > 1e-4);  // the transports differ here
    expect_equal_to_one(tag, one, r.out.trimmed() + (transport.isEmpty() ? QString() : ", " + transport));
  }

  // A rank that fails inside its run (the test hook: out of memory, or killed) ends every rank: exit 2, one
  // line naming the rank, no output. Under --ranks mpirun's own reports are folded into that line.
  void failing_rank_ends_the_run_data() {
    QTest::addColumn<QString>("fail");
    QTest::addColumn<bool>("ranks_option");
    QTest::addColumn<QString>("line");
    QTest::newRow("out of memory, --ranks") << "1" << true << "rank 1: out of memory";
    QTest::newRow("killed, --ranks") << "1:kill" << true << "rank 1: killed by signal 9 (Killed)";
    QTest::newRow("out of memory, mpirun") << "2" << false << "rank 2: out of memory";
  }
  void failing_rank_ends_the_run() {
    QFETCH(QString, fail);
    QFETCH(bool, ranks_option);
    QFETCH(QString, line);
    QTemporaryDir out;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("MRWB_TEST_FAIL_RANK", fail);
    p.setProcessEnvironment(env);
    QStringList args = {"simulate", "--scenario", scenario_, "--out", out.filePath("raw.h5"), "--truth", out.filePath("t.h5"),
                        "--quiet"};
    QElapsedTimer t;
    t.start();
    if (ranks_option) {
      p.start(MRWB_CLI_PATH, args << "--ranks" << "3");
    } else {
      p.start(mpirun_, mpirun_prefix(3) + args);
    }
    QVERIFY2(p.waitForFinished(60000), "the run hangs");
    const QString err = QString::fromUtf8(p.readAllStandardError());
    qInfo("ended in %.1f s", t.elapsed() / 1000.0);
    QVERIFY2(p.exitCode() == 2, qPrintable(QString("exit %1: %2").arg(p.exitCode()).arg(err)));
    // Direct mpirun adds its MPI_ABORT notice; --ranks leaves the one line alone.
    if (ranks_option)
      QCOMPARE(err.trimmed(), line);
    else
      QVERIFY2(err.split('\n').contains(line), qPrintable(err));
    const QStringList left = QDir(out.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(' ')));
  }

  // `mrwb bench --suite scale --quick` without GPUs: the simulator's strong and weak scaling rows over 1 and 2
  // CPU ranks, each run started through mpirun (the timing itself belongs to the bench, not to this test).
  void bench_scale_runs_over_ranks() {
    QTemporaryDir out;
    const QString json = out.filePath("scale.json");
    const Run r = mrwb_test::run_mrwb({"bench", "--suite", "scale", "--quick", "--backend", "cpu", "--json", json});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    const auto report = nlohmann::json::parse(mrwb::test::read_file(json.toStdString()));
    const auto& rows = report.at("scale").at("simulator_ranks").at("rows");
    QCOMPARE(rows.size(), std::size_t{2});
    for (std::size_t i = 0; i < rows.size(); ++i) {
      QCOMPARE(rows[i].at("ranks").get<int>(), 1 << i);
      QVERIFY(rows[i].at("strong_s").get<double>() > 0 && rows[i].at("weak_s").get<double>() > 0);
    }
    QCOMPARE(rows[1].at("weak_nz").get<int>(), 2 * rows[0].at("weak_nz").get<int>());
    // Each rank's own seconds, said by rank 0 of every run over 2 ranks.
    QVERIFY2(r.err.contains("scale-sim rank 0: ") && r.err.contains("scale-sim rank 1: ") && r.err.contains("own seconds"),
             qPrintable(r.err.right(2000)));
    // Beyond one process: a stack of copies over 2 ranks against one copy alone (a sub-volume).
    const auto& beyond = report.at("scale").at("simulator_ranks").at("beyond_one_device");
    QCOMPARE(beyond.at("ranks").get<int>(), 2);
    QVERIFY(beyond.at("copies").get<int>() > 1);
    QVERIFY2(beyond.at("relative_rms").get<double>() <= 1e-6, qPrintable(QString::number(beyond.at("relative_rms").get<double>())));
  }

  // A rank of the scale suite timed alone (MRWB_SCALE_SIM_SOLO, a GPU rank's timing): a setting out of range or a CPU
  // case is refused with one line naming the variable and what it allows, exit 2.
  void bench_solo_rank_setting_refused() {
    qputenv("MRWB_SCALE_SIM_RANK", "96 96 16 16 0.002 cuda");
    for (const char* bad : {"4 4", "0 1", "x 4"}) {
      qputenv("MRWB_SCALE_SIM_SOLO", bad);
      const Run r = mrwb_test::run_mrwb({"bench", "--suite", "scale"});
      QCOMPARE(r.code, 2);
      QCOMPARE(r.err.trimmed(), QString("mrwb: MRWB_SCALE_SIM_SOLO: '%1' (allowed: r N with 2 <= N <= 1024, 0 <= r < N, a cuda case)").arg(bad));
    }
    qputenv("MRWB_SCALE_SIM_RANK", "96 96 16 16 0.002 cpu");
    qputenv("MRWB_SCALE_SIM_SOLO", "1 4");
    const Run r = mrwb_test::run_mrwb({"bench", "--suite", "scale"});
    qunsetenv("MRWB_SCALE_SIM_SOLO");
    qunsetenv("MRWB_SCALE_SIM_RANK");
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("MRWB_SCALE_SIM_SOLO: '1 4'") && r.err.contains("a cuda case"), qPrintable(r.err));
  }

  void bad_ranks_refused() {
    QTemporaryDir out;
    const QStringList base = {"simulate", "--scenario", scenario_, "--out", out.filePath("raw.h5"), "--quiet"};
    for (const char* n : {"0", "257"})
      mrwb_test::expect_refused(out.path(), base + QStringList{"--ranks", n}, {"--ranks", "allowed: 1 to 256"});
    if (QTest::currentTestFailed()) return;
    // More ranks than z planes and y rows: found by the ranks themselves, said once by rank 0; along z, more than
    // its planes; an axis that is none.
    mrwb_test::expect_refused(out.path(), base + QStringList{"--ranks", "33"},
                              {"--ranks", "16 z planes and 32 y rows", "allowed: 1 to 32"}, 60000);
    if (QTest::currentTestFailed()) return;
    mrwb_test::expect_refused(out.path(), base + QStringList{"--ranks", "17", "--split-axis", "z"},
                              {"--ranks", "16 z planes", "allowed: 1 to 16"}, 60000);
    if (QTest::currentTestFailed()) return;
    mrwb_test::expect_refused(out.path(), base + QStringList{"--ranks", "2", "--split-axis", "x"},
                              {"--split-axis", "'x'", "allowed: auto, y, z"}, 60000);
    if (QTest::currentTestFailed()) return;
    // Under mpirun, --ranks must match its -np.
    const Run r = mrwb_test::run_program(mpirun_, mpirun_prefix(2) + base + QStringList{"--ranks", "3"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--ranks 3: mpirun started 2 processes"), qPrintable(r.err));
  }

  // Across two hosts (two_hosts.hpp: a network namespace for the second), as a cluster's user runs it with mpirun
  // --host: two ranks on host A and one on host B, the slab halos crossing between the hosts over TCP, equal the
  // one-process run; a rank that fails on host B ends the run with its line, exit 2, nothing written.
  void mpirun_across_two_hosts() {
    mrwb_test::TwoHosts hosts(dir_.path());
    if (!hosts.ok()) QSKIP(qPrintable(hosts.why()));
    // Where the ranks run: the ranks on each one's host (OpenMPI's local size), its host name and network namespace.
    const Run where = mrwb_test::run_program(
        mpirun_, hosts.mpirun_args(2, 1) + QStringList{"/bin/sh", "-c", "echo $OMPI_COMM_WORLD_RANK $OMPI_COMM_WORLD_LOCAL_SIZE "
                                                                         "$(cat /proc/sys/kernel/hostname) $(readlink /proc/self/ns/net)"}, 60000);
    QVERIFY2(where.code == 0, qPrintable(QString("exit %1: %2").arg(where.code).arg(where.err)));
    QStringList seen(3);
    for (const QString& l : where.out.split('\n', Qt::SkipEmptyParts)) {
      const int r = l.section(' ', 0, 0).toInt();
      QVERIFY2(r >= 0 && r < 3 && l.count(' ') == 3, qPrintable(where.out));
      seen[r] = l.section(' ', 1);
    }
    char here[64] = {};
    QVERIFY(readlink("/proc/self/ns/net", here, sizeof here - 1) > 0);
    const QString a = QString("2 %1 %2").arg(QSysInfo::machineHostName(), here);
    QVERIFY2(seen[0] == a && seen[1] == a && seen[2].startsWith("1 " + mrwb_test::TwoHosts::host_b_name() + " net:") &&
                 !seen[2].endsWith(here),
             qPrintable(where.out));

    QStringList args = simulate_args("hosts") << "--split-axis" << "z";
    const Run r = mrwb_test::run_program(mpirun_, hosts.mpirun_args(2, 1) + QStringList{MRWB_CLI_PATH} + args, 240000);
    QVERIFY2(r.code == 0, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
    const SlabSplit split = slab_split(build_phantom(load_scenario(scenario_.toStdString())), 3, 1, SplitAxis::Z);
    QCOMPARE(r.out, QString::fromStdString(decomposition_text(split)) + "\n");
    expect_equal_to_one("hosts", one_, "3 ranks on two hosts (2 + 1), " + r.out.trimmed());
    if (QTest::currentTestFailed()) return;

    QTemporaryDir out;
    qputenv("MRWB_TEST_FAIL_RANK", "2");
    const Run f = mrwb_test::run_program(mpirun_, hosts.mpirun_args(2, 1, {"MRWB_TEST_FAIL_RANK"}) + QStringList{MRWB_CLI_PATH} +
                                                      QStringList{"simulate", "--scenario", scenario_, "--out", out.filePath("raw.h5"),
                                                                  "--truth", out.filePath("t.h5"), "--quiet"}, 120000);
    qunsetenv("MRWB_TEST_FAIL_RANK");
    QVERIFY2(f.code == 2, qPrintable(QString("exit %1: %2").arg(f.code).arg(f.err)));
    QVERIFY2(f.err.split('\n').contains("rank 2: out of memory"), qPrintable(f.err));
    const QStringList left = QDir(out.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QVERIFY2(left.isEmpty(), qPrintable("left behind: " + left.join(' ')));
  }

  // As root without OpenMPI's two variables (a container's default), mpirun refuses to start: --ranks says so in
  // one line with what allows it, instead of mpirun's paragraph.
  void ranks_as_root_say_what_allows_them() {
    if (geteuid() != 0) QSKIP("not root: OpenMPI's root check does not apply");
    QTemporaryDir out;
    struct Unset {  // the two variables left out of this case only
      const char* name;
      QByteArray was = qgetenv(name);
      explicit Unset(const char* n) : name(n) { qunsetenv(name); }
      ~Unset() {
        if (!was.isNull()) qputenv(name, was);
      }
    } allow{"OMPI_ALLOW_RUN_AS_ROOT"}, confirm{"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"};
    mrwb_test::expect_refused(out.path(), {"simulate", "--scenario", scenario_, "--out", out.filePath("raw.h5"), "--quiet", "--ranks", "2"},
                              {"mrwb: --ranks 2: OpenMPI's mpirun refuses to run as root",
                               "allowed: another user, or OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}, 60000);
  }
};

QTEST_GUILESS_MAIN(TestSimRanks)
#include "test_sim_ranks.moc"
