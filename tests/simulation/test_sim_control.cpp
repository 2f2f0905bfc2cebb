// Control of long simulations: progress once per TR on the static and the time-stepped
// paths, cancellation honoured promptly with nothing written (engine and `mrwb simulate` under SIGINT),
// and the GPU-memory refusal message from its host-side size estimate.
#include <QDir>
#include <QProcess>
#include <QTest>

#include <chrono>
#include <csignal>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/cancel_latency.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/internal/gpu_memory.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

using namespace mrwb;
using clock_type = std::chrono::steady_clock;

namespace {

using mrwb::test::spoiled_ge;

// A square of fluid cells in a stationary frame; `u` > 0 gives it a plug flow along x.
CellPhantom square(int n, float u) {
  CellPhantom ph = uniform_phantom(n, n, 1e-3, 0.9f, 1.2f, 0.2f, CellType::Stationary);
  for (int y = n / 4; y < 3 * n / 4; ++y)
    for (int x = 0; x < n; ++x) {
      ph.type[static_cast<std::size_t>(y) * n + x] = static_cast<std::uint8_t>(CellType::Fluid);
      ph.ux[static_cast<std::size_t>(y) * n + x] = u;
    }
  ph.flow_dt_s = u > 0 ? 1e-3 : 0.0;
  return ph;
}

struct ProgressLog {
  std::vector<double> fractions;
  bool other_stage = false;
  ProgressFn fn() {
    return [this](double f, std::string_view stage) {
      other_stage |= stage != "simulate";
      fractions.push_back(f);
    };
  }
};

}  // namespace

class TestSimControl : public QObject {
  Q_OBJECT
 private slots:
  // One report per TR (dummy TRs included), increasing, ending at 1: static (exact) path and
  // time-stepped path.
  void progressOncePerTr() {
    const SequenceProgram prog = spoiled_ge(32, 0.064, 4);
    for (float u : {0.f, 0.5f}) {
      const CellPhantom ph = square(128, u);  // several cell chunks on the static path
      std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(ph.size());
      CpuSimulationEngine engine(2);
      ProgressLog log;
      engine.run(ph, prog, samples, truth, log.fn(), {});
      qInfo("%s path: %zu progress reports for 4 dummy TRs + %d lines", u > 0 ? "time-stepped" : "static",
            log.fractions.size(), prog.readouts);
      QVERIFY(!log.other_stage);
      QCOMPARE(static_cast<int>(log.fractions.size()), 4 + prog.readouts);
      for (std::size_t k = 1; k < log.fractions.size(); ++k) QVERIFY(log.fractions[k] > log.fractions[k - 1]);
      QCOMPARE(log.fractions.back(), 1.0);
    }
  }

  // Cancel mid-run: the engine throws Cancelled and returns promptly (the 100 ms figure is measured by
  // `mrwb bench`; here a generous bar so a loaded CI machine does not fail it).
  void cancelReturnsPromptly() {
    const SequenceProgram prog = spoiled_ge(128, 0.064, 2000);  // long enough that it is still running when cancelled
    for (float u : {0.f, 0.5f}) {
      const CellPhantom ph = square(256, u);
      CpuSimulationEngine engine(2);
      const double latency = cancel_latency_s(engine, ph, prog, 0.2);
      qInfo("%s path, 256x256 cells: cancel honoured after %.1f ms", u > 0 ? "time-stepped" : "static", latency * 1e3);
      QVERIFY(latency >= 0);  // it was still running, and threw Cancelled
      QVERIFY(latency < 1.0);
    }
  }

  // `mrwb simulate` interrupted by SIGINT: exit 130, one line saying so, no output file.
  void simulateWritesNothingWhenInterrupted() {
    QTemporaryDir dir;
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.matrix = 256;
    s.sequence.dummy_scans = 3000;
    const QString scenario = dir.filePath("long.json"), out = dir.filePath("raw.h5"), truth = dir.filePath("truth.h5");
    save_scenario(s, scenario.toStdString());
    QProcess p;
    p.start(MRWB_CLI_PATH, {"simulate", "--scenario", scenario, "--out", out, "--truth", truth, "--backend", "cpu"});
    QVERIFY(p.waitForStarted());
    // Its stderr is a pipe, so no progress says the run is under way: a second in, it is (the run takes minutes).
    QVERIFY(!p.waitForFinished(1000));
    QByteArray err = p.readAllStandardError();
    QVERIFY2(p.state() == QProcess::Running, err.constData());
    const auto at = clock_type::now();
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(60000));
    const double latency = std::chrono::duration<double>(clock_type::now() - at).count();
    err += p.readAllStandardError();
    qInfo("mrwb simulate: SIGINT to exit %.0f ms", latency * 1e3);
    QCOMPARE(p.exitCode(), 130);
    QVERIFY2(err.contains("cancelled; nothing written"), err.constData());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"long.json"});
  }

  // The GPU-memory estimate and the refusal: one line with the bytes asked and free and the way out.
  void gpuMemoryRefusalNamesBytesAndRemedy() {
    const SequenceProgram prog = spoiled_ge(64, 0.064, 10);
    const CellPhantom still = square(128, 0.f), moving = square(128, 0.5f);
    const std::size_t a = cuda_simulation_bytes(still, prog, 1), b = cuda_simulation_bytes(moving, prog, 1),
                      c = cuda_simulation_bytes(still, prog, 8);
    const std::size_t n = still.size();
    qInfo("estimate for %zu cells: static %zu B, moving %zu B, 8 coils %zu B", n, a, b, c);
    QVERIFY(a >= n * (3 + 4) * sizeof(float));  // at least state and tissue arrays
    QVERIFY(b >= a + n * 3 * sizeof(float));    // second state buffer and flow arrays when it moves
    QVERIFY(c >= a + n * 8 * 2 * sizeof(float));  // eight complex coil maps
    QVERIFY(b < 1 << 30 && c < 1 << 30);         // and not absurd
    std::size_t fluid = 0;                        // the engine passes what it has counted already
    for (auto t : moving.type) fluid += t == static_cast<std::uint8_t>(CellType::Fluid);
    QCOMPARE(cuda_simulation_bytes(moving, prog, 1, true, fluid), b);
    QCOMPARE(cuda_simulation_bytes(still, prog, 1, false, 0), a);
    check_gpu_memory(a, a);                      // fits exactly: no error
    try {
      check_gpu_memory(a, a / 3);
      QFAIL("no error when the GPU memory is too small");
    } catch (const InputError& e) {
      const QString msg = e.what();
      qInfo("%s", e.what());
      QVERIFY(!msg.contains('\n'));
      QVERIFY(msg.contains(QString::number(a) + " bytes"));
      QVERIFY(msg.contains(QString::number(a / 3) + " bytes"));
      QVERIFY(msg.contains("coarser cells"));
      QVERIFY(msg.contains("--backend cpu"));
    }
  }
};

QTEST_GUILESS_MAIN(TestSimControl)
#include "test_sim_control.moc"
