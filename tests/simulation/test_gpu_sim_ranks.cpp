// `mrwb simulate --backend cuda` over MPI ranks, one GPU each, halos through CUDA IPC between the GPUs of one
// host (peer stores in the step kernels) or (MRWB_HALO_TRANSPORT=nccl) through NCCL: `mpirun -np 2` (and 4 where the host has 4 GPUs) against the one-GPU run
// (relative RMS <= 1e-6, the bar of the CPU ranks) and the CPU reference (<= 1e-4, CUDA against its CPU twin),
// on the moving 3-D tree of test_sim_ranks (in z planes and in y rows) and on a 2-D bifurcation split in y rows; the deep halo (exchanged
// every H steps) at the engine's default H and at 1 and 8 planes; each transport. SKIPs visibly without two
// CUDA devices, MPI or NCCL.
#include <QRegularExpression>
#include <QTest>

#include "files.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "numeric.hpp"
#include "mpirun.hpp"
#include "process_runner.hpp"
#include "sim_ranks_fixture.hpp"

using mrwb_test::Output;
using mrwb_test::Run;

class TestGpuSimRanks : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString mpirun_;
  QString last_err_;  // the last run's stderr
  QString transport_;  // the row's --flow-transport (empty: none)
  QString axis_;       // the row's --split-axis for the ranks (empty: none, auto)

  QString path(const QString& name) const { return dir_.filePath(name); }
  QStringList simulate_args(const QString& scenario, const QString& tag, const QString& backend) const {
    return {"simulate", "--scenario", scenario, "--out", path(tag + ".h5"), "--truth", path(tag + "_truth.h5"),
            "--backend", backend, "--quiet"};
  }
  Output simulate(const QString& scenario, const QString& tag, const QString& backend, int np) {
    QStringList args = simulate_args(scenario, tag, backend);
    if (!transport_.isEmpty()) args << "--flow-transport" << transport_;
    if (np > 1 && !axis_.isEmpty()) args << "--split-axis" << axis_;
    const Run r = np == 1 ? mrwb_test::run_program(MRWB_CLI_PATH, args, 600000)
                          : mrwb_test::run_program(mpirun_, mrwb_test::mpirun_prefix(np) + args, 600000);
    last_err_ = r.err;
    if (r.code != 0) qWarning("%s: exit %d: %s", qPrintable(tag), r.code, qPrintable(r.err));
    if (r.code != 0) return {};
    if (np > 1) qInfo("%s: %s", qPrintable(tag), qPrintable(r.out.trimmed()));
    return mrwb_test::read_output(path(tag + ".h5"), path(tag + "_truth.h5"));
  }

 private slots:
  void initTestCase() {
    if (mrwb::gpu::device_count() < 2) QSKIP("no CUDA device pair (GPU ranks take one GPU each)");
    QString why;
    mpirun_ = mrwb_test::find_mpirun(why);
    if (mpirun_.isEmpty()) QSKIP(qPrintable(why));
    QVERIFY(dir_.isValid());
    QVERIFY(mrwb::test::write_file(path("tree_3d.json"), mrwb_test::k_ranks_scenario));
    QVERIFY(mrwb::test::write_file(path("thin_vessel.json"), mrwb_test::k_idle_ranks_scenario));
  }

  void gpu_ranks_equal_one_gpu_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("np");
    QTest::addColumn<int>("halo");  // MRWB_HALO_PLANES, the deep halo's most planes; 0: the engine's default
    // MRWB_HALO_TRANSPORT: ipc (CUDA IPC by peer stores in the step kernels where the GPUs reach each other; the
    // default) or nccl.
    QTest::addColumn<QString>("exchange");
    QTest::addColumn<int>("stepping");  // the ranks that time-step fluid cells (and name their exchange); 0: all
    QTest::addColumn<QString>("transport");  // --flow-transport; empty: the scenario's (gradient_frame)
    QTest::addColumn<QString>("axis");       // --split-axis; empty: not given (auto; a 2-D grid's y rows)
    const QString bifurcation = QString(MRWB_SOURCE_DIR) + "/phantoms/bifurcation.json";
    QTest::newRow("3-D tree, 2 GPUs") << "tree_3d.json" << 2 << 0 << QString("nccl") << 0 << QString() << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, halo 1 (exchange every step)") << "tree_3d.json" << 2 << 1 << QString("nccl") << 0 << QString() << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, halo 8") << "tree_3d.json" << 2 << 8 << QString("nccl") << 0 << QString() << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, peer stores") << "tree_3d.json" << 2 << 0 << QString("ipc") << 0 << QString() << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, peer stores, halo 1") << "tree_3d.json" << 2 << 1 << QString("ipc") << 0 << QString() << QString("z");
    QTest::newRow("2-D bifurcation, 2 GPUs") << bifurcation << 2 << 0 << QString("nccl") << 0 << QString() << QString();
    QTest::newRow("2-D bifurcation, 2 GPUs, peer stores") << bifurcation << 2 << 0 << QString("ipc") << 0 << QString() << QString();
    // The limited second-order transport reads two planes a step: with the default 4 halo planes an exchange every
    // 2 steps, with 2 every step.
    const QString limited = "gradient_frame_limited";
    QTest::newRow("3-D tree, 2 GPUs, limited transport") << "tree_3d.json" << 2 << 0 << QString("nccl") << 0 << limited << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, limited transport, halo 2") << "tree_3d.json" << 2 << 2 << QString("nccl") << 0 << limited << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, limited transport, peer stores") << "tree_3d.json" << 2 << 0 << QString("ipc") << 0 << limited << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, y rows, peer stores, halo 8") << "tree_3d.json" << 2 << 8 << QString("ipc") << 0 << QString() << QString("y");
    QTest::newRow("3-D tree, 2 GPUs, limited transport, peer stores, halo 2 (exchange every step)")
        << "tree_3d.json" << 2 << 2 << QString("ipc") << 0 << QString("gradient_frame_limited") << QString("z");
    // y rows of the 3-D tree (played with y and z swapped), and the axis the engine picks.
    QTest::newRow("3-D tree, 2 GPUs, y rows") << "tree_3d.json" << 2 << 0 << QString("nccl") << 0 << QString() << QString("y");
    QTest::newRow("3-D tree, 2 GPUs, y rows, peer stores") << "tree_3d.json" << 2 << 0 << QString("ipc") << 0 << QString() << QString("y");
    QTest::newRow("3-D tree, 2 GPUs, y rows, limited transport, peer stores")
        << "tree_3d.json" << 2 << 0 << QString("ipc") << 0 << limited << QString("y");
    QTest::newRow("3-D tree, 2 GPUs, the axis chosen, peer stores") << "tree_3d.json" << 2 << 0 << QString("ipc") << 0 << QString() << QString();
    if (mrwb::gpu::device_count() >= 4) {
      QTest::newRow("3-D tree, 4 GPUs, y rows, peer stores") << "tree_3d.json" << 4 << 0 << QString("ipc") << 0 << QString() << QString("y");
      QTest::newRow("3-D tree, 4 GPUs") << "tree_3d.json" << 4 << 0 << QString("nccl") << 0 << QString() << QString("z");
      QTest::newRow("3-D tree, 4 GPUs, peer stores") << "tree_3d.json" << 4 << 0 << QString("ipc") << 0 << QString() << QString("z");
      // Rank 0 holds no fluid (test_rank_decomposition): it steps and exchanges nothing, yet joins the CUDA
      // IPC collective set-up, and rank 1 skips it.
      QTest::newRow("thin vessel, 4 GPUs, rank 0 idle") << "thin_vessel.json" << 4 << 0 << QString("nccl") << 3 << QString() << QString("z");
      QTest::newRow("thin vessel, 4 GPUs, rank 0 idle, peer stores") << "thin_vessel.json" << 4 << 0 << QString("ipc") << 3 << QString() << QString("z");
    }
  }
  void gpu_ranks_equal_one_gpu() {
    QFETCH(QString, scenario);
    QFETCH(int, np);
    QFETCH(int, halo);
    QFETCH(QString, exchange);
    QFETCH(int, stepping);
    QFETCH(QString, transport);
    QFETCH(QString, axis);
    transport_ = transport;
    axis_ = axis;
    if (!scenario.startsWith('/')) scenario = path(scenario);
    const QString tag = QString("s%1_%2_%3%4_%5").arg(qHash(scenario)).arg(np).arg(halo).arg(transport.isEmpty() ? "" : "_l").arg(axis);
    const Output one = simulate(scenario, tag + "_one", "cuda", 1);
    const Output cpu = simulate(scenario, tag + "_cpu", "cpu", 1);
    if (halo > 0) qputenv("MRWB_HALO_PLANES", QByteArray::number(halo));
    qputenv("MRWB_HALO_TRANSPORT", exchange.toUtf8());
    qputenv("MRWB_SIM_TIMING", "1");  // the engine names its halo transport
    const Output ranks = simulate(scenario, tag + "_ranks", "cuda", np);
    qunsetenv("MRWB_HALO_PLANES");
    qunsetenv("MRWB_HALO_TRANSPORT");
    qunsetenv("MRWB_SIM_TIMING");
    // CUDA IPC where asked and the GPUs reach each other (GPU ranks take devices 0, 1, ... of this host).
    const QString expected = exchange == "nccl" || !mrwb::gpu::peer_access(0, 1) ? "halo exchange through NCCL"
                                                  : "halo exchange through CUDA IPC by peer stores in the step kernels";
    QVERIFY2(last_err_.contains(expected), qPrintable("expected '" + expected + "' in: " + last_err_.right(3000)));
    qInfo("%s", qPrintable(expected));
    QCOMPARE(static_cast<int>(last_err_.count("cuda engine: halo exchange")), stepping > 0 ? stepping : np);
    if (!transport.isEmpty()) {  // two planes read a step: H halo planes last H / 2 steps (H = 4 by default here)
      const QString every = QString("halo traffic every %1 steps").arg((halo > 0 ? halo : 4) / 2);
      QVERIFY2(last_err_.contains(every), qPrintable("expected '" + every + "' in: " + last_err_.right(3000)));
    }
    QVERIFY(!one.k.empty() && !cpu.k.empty() && !ranks.k.empty());
    QCOMPARE(ranks.k.size(), one.k.size());
    QCOMPARE(ranks.truth.size(), one.truth.size());
    const double ek = mrwb::test::rel_rms(ranks.k, one.k), et = mrwb::test::rel_rms(ranks.truth, one.truth);
    const double ck = mrwb::test::rel_rms(ranks.k, cpu.k), ct = mrwb::test::rel_rms(ranks.truth, cpu.truth);
    qInfo("%d GPU ranks: relative RMS against one GPU k-space %.3g, truth %.3g; against the CPU %.3g, %.3g", np, ek, et, ck, ct);
    QVERIFY2(ek <= 1e-6 && et <= 1e-6, qPrintable(QString("%1 %2").arg(ek).arg(et)));
    QVERIFY2(ck <= 1e-4 && ct <= 1e-4, qPrintable(QString("%1 %2").arg(ck).arg(ct)));
  }

  // The step kernels' blocks in the orders the exchange asks, with light last rounds (step_layout): forced on rounds
  // of 3 blocks (MRWB_STEP_SLOTS, MRWB_STEP_TAIL=2), so that every step of a rank, storing, reading or neither, holds
  // light blocks launched last; peer stores. Against the one-GPU run, <= 1e-6.
  void lightRoundsInTheExchangesOrders_data() {
    QTest::addColumn<int>("np");
    QTest::addColumn<QString>("axis");
    QTest::newRow("3-D tree, 2 GPUs, z planes") << 2 << QString("z");
    QTest::newRow("3-D tree, 2 GPUs, y rows") << 2 << QString("y");
    if (mrwb::gpu::device_count() >= 4) QTest::newRow("3-D tree, 4 GPUs, y rows") << 4 << QString("y");
  }
  void lightRoundsInTheExchangesOrders() {
    QFETCH(int, np);
    QFETCH(QString, axis);
    transport_.clear();
    axis_ = axis;
    const QString scenario = path("tree_3d.json"), tag = QString("light_%1_%2").arg(np).arg(axis);
    const Output one = simulate(scenario, tag + "_one", "cuda", 1);
    qputenv("MRWB_STEP_SLOTS", "3");
    qputenv("MRWB_STEP_TAIL", "2");
    qputenv("MRWB_HALO_TRANSPORT", "ipc");
    qputenv("MRWB_SIM_TIMING", "1");
    const Output ranks = simulate(scenario, tag + "_ranks", "cuda", np);
    for (const char* v : {"MRWB_STEP_SLOTS", "MRWB_STEP_TAIL", "MRWB_HALO_TRANSPORT", "MRWB_SIM_TIMING"}) qunsetenv(v);
    QVERIFY(!one.k.empty() && !ranks.k.empty());
    // Each rank's steps that store and read a halo hold light blocks (the timing lines list them).
    for (const char* role : {"stores a halo", "reads a halo"}) {
      const QRegularExpression re(QString("step \\d+ of \\d+ \\(") + role + "\\): \\d+ fluid cells, \\d+ blocks in rounds of 3 \\(([1-9]\\d*) in a light last round");
      QVERIFY2(re.match(last_err_).hasMatch(), qPrintable(QString("no '") + role + "' step with light blocks in: " + last_err_.right(3000)));
    }
    const double ek = mrwb::test::rel_rms(ranks.k, one.k), et = mrwb::test::rel_rms(ranks.truth, one.truth);
    qInfo("%d GPU ranks, light rounds in the exchange's orders: relative RMS against one GPU k-space %.3g, truth %.3g", np, ek, et);
    QVERIFY2(ek <= 1e-6 && et <= 1e-6, qPrintable(QString("%1 %2").arg(ek).arg(et)));
  }
};

QTEST_GUILESS_MAIN(TestGpuSimRanks)
#include "test_gpu_sim_ranks.moc"
