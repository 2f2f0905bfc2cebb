// The CLI end to end on the shipped default scenario, and its bad-input contract (exit 2, one line,
// no output file).
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include <algorithm>

#include "files.hpp"
#include "process_runner.hpp"

#include <nlohmann/json.hpp>

namespace {

using mrwb_test::Run;
using mrwb_test::run_mrwb;

}  // namespace

class TestCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const char* n) const { return dir_.filePath(n); }
  void write(const char* name, const QByteArray& text) { QVERIFY(mrwb::test::write_file(path(name), text)); }

 private slots:
  void info() {
    const Run r = run_mrwb({"info"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("backend cpu: available"));
    QVERIFY(r.out.contains("auto picks:"));
  }
  // The shipped default scenario (under the sanitizer at matrix 64: files.hpp).
  void simulateReconCompareOnDefaultScenario() {
    const QString scenario = mrwb::test::default_scenario_file(MRWB_SOURCE_DIR, dir_.path());
    QVERIFY(!scenario.isEmpty());
    Run r = run_mrwb({"simulate", "--scenario", scenario, "--out", path("raw.h5"), "--truth", path("truth.h5"), "--truth",
                  path("truth.png"), "--backend", "cpu", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("raw.h5"), "--method", "fft", "--out", path("recon.h5"), "--out", path("recon.png"),
              "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"compare", "--image", path("recon.h5"), "--reference", path("truth.h5"), "--error-map", path("err.png"),
              "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const auto j = nlohmann::json::parse(r.out.toStdString());
    const double psnr = j.at("psnr_db").get<double>();
    qInfo("default scenario: PSNR %.2f dB, error %.2f %%, SSIM %.4f", psnr, j.at("percent_error").get<double>(),
          j.at("ssim").get<double>());
    // The vessel/muscle boundaries are sharp, so Gibbs ringing limits the PSNR; still far above noise.
    QVERIFY(psnr > 25.0);
    QVERIFY(j.at("ssim").get<double>() > 0.8);
    for (const char* f : {"truth.png", "recon.png", "err.png"}) QVERIFY(QFileInfo(path(f)).size() > 100);
  }
  // `mrwb recon --method sense --maps true --scenario S.json`: the simulator's coils unfold R = 2 data; without
  // the maps, one line naming the allowed and exit 2.
  void senseFromTheCli() {
    QFile f(QString(MRWB_SOURCE_DIR) + "/phantoms/default.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto j = nlohmann::json::parse(f.readAll().toStdString());
    j["sequence"]["matrix"] = 48;
    j["sequence"]["dummy_scans"] = 20;
    j["sequence"]["acceleration"] = 2;
    j["sequence"]["acs_lines"] = 16;
    j["coils"]["count"] = 8;
    j["recon"]["method"] = "sense";
    write("sense.json", QByteArray::fromStdString(j.dump(2)));
    Run r = run_mrwb({"simulate", "--scenario", path("sense.json"), "--out", path("sense_raw.h5"), "--truth",
                      path("sense_truth.h5"), "--backend", "cpu", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("sense_raw.h5"), "--method", "sense", "--maps", "true", "--scenario",
                  path("sense.json"), "--out", path("sense.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"compare", "--image", path("sense.h5"), "--reference", path("sense_truth.h5"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double psnr = nlohmann::json::parse(r.out.toStdString()).at("psnr_db").get<double>();
    qInfo("mrwb recon --method sense (R = 2, 8 coils, 48^2): PSNR %.2f dB", psnr);
    QVERIFY(psnr > 30);
    // --gfactor: the analytic g map, at least 1 wherever a coil sees and above 1 where rows fold.
    r = run_mrwb({"recon", "--in", path("sense_raw.h5"), "--method", "sense", "--maps", "true", "--scenario",
                  path("sense.json"), "--out", path("sense2.h5"), "--gfactor", path("g.cfl"), "--gfactor", path("g.png"),
                  "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo(path("g.png")).size() > 100);
    QFile hdr(path("g.hdr"));
    QVERIFY(hdr.open(QIODevice::ReadOnly));
    QFile cfl(path("g.cfl"));
    QVERIFY(cfl.open(QIODevice::ReadOnly));
    const QByteArray bytes = cfl.readAll();
    QCOMPARE(bytes.size(), qsizetype(48 * 48 * 8));
    const auto* g = reinterpret_cast<const float*>(bytes.constData());
    float gmin = 1e9f, gmax = 0;
    int seen = 0;
    for (int i = 0; i < 48 * 48; ++i)
      if (g[2 * i] > 0) gmin = std::min(gmin, g[2 * i]), gmax = std::max(gmax, g[2 * i]), ++seen;
    qInfo("g-factor map (R = 2, 8 loop coils): %d pixels, %.4f .. %.4f", seen, gmin, gmax);
    QCOMPARE(seen, 48 * 48);  // loop coils see every pixel
    QVERIFY(gmin >= 1.0f - 1e-5f);
    QVERIFY(gmax > 1.01f);
    // Other methods: pseudo-multiple replicas (Robson et al. 2008). GRAPPA on the same data keeps the ACS lines
    // (net R 48 / 32 = 1.5). The physics of the map is tested in test_gfactor_replica; here: written, the
    // image's size, values of a g-factor (a kernel calibrated on noisy ACS lines averages noise: about 1).
    r = run_mrwb({"recon", "--in", path("sense_raw.h5"), "--method", "grappa", "--out", path("grappa.h5"), "--gfactor",
                  path("gg.cfl"), "--gfactor-replicas", "40"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("40 pseudo-multiple replicas, net R 1.5"), qPrintable(r.err));
    QFile gcfl(path("gg.cfl"));
    QVERIFY(gcfl.open(QIODevice::ReadOnly));
    const QByteArray gb = gcfl.readAll();
    QCOMPARE(gb.size(), qsizetype(48 * 48 * 8));
    const auto* gg = reinterpret_cast<const float*>(gb.constData());
    double gsum = 0;
    int gn = 0;
    for (int i = 0; i < 48 * 48; ++i)
      if (gg[2 * i] > 0) gsum += gg[2 * i], ++gn;
    qInfo("GRAPPA g-factor by 40 replicas: %d pixels with SNR >= 10, mean %.3f", gn, gsum / std::max(1, gn));
    QVERIFY(gn > 48 * 48 / 4);
    QVERIFY(gsum / gn > 0.7 && gsum / gn < 1.5);
    r = run_mrwb({"recon", "--in", path("sense_raw.h5"), "--method", "fft", "--out", path("fft.h5"), "--gfactor",
                  path("g2.png"), "--gfactor-replicas", "1"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--gfactor-replicas 1 out of range (allowed: 2 .. 10000)"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(path("fft.h5")) && !QFileInfo::exists(path("g2.png")));
    r = run_mrwb({"recon", "--in", path("sense_raw.h5"), "--method", "fft", "--out", path("fft.h5"), "--maps", "true"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("only with --method sense"), qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("sense_raw.h5"), "--method", "sense", "--out", path("none.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--maps true --scenario S.json"), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(path("none.h5")));
  }

  // Poisson-disc undersampling from the scenario, then `mrwb recon --method cs|sense --maps espirit` (no scenario
  // needed: the maps come from the ACS lines) and --maps true; the bad-input contract of the new options.
  double psnr_of(const char* image, const char* truth) {
    const Run r = run_mrwb({"compare", "--image", path(image), "--reference", path(truth), "--json"});
    if (r.code != 0) return -1;
    return nlohmann::json::parse(r.out.toStdString()).at("psnr_db").get<double>();
  }
  void csAndEspiritFromTheCli() {
    QFile f(QString(MRWB_SOURCE_DIR) + "/phantoms/default.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto j = nlohmann::json::parse(f.readAll().toStdString());
    j["sequence"]["matrix"] = 64;
    j["sequence"]["dummy_scans"] = 20;
    j["sequence"]["acceleration"] = 3;
    j["sequence"]["acs_lines"] = 16;
    j["sequence"]["undersampling"] = "poisson_disc";
    j["coils"]["count"] = 8;
    j["recon"]["method"] = "cs";
    write("cs.json", QByteArray::fromStdString(j.dump(2)));
    Run r = run_mrwb({"simulate", "--scenario", path("cs.json"), "--out", path("cs_raw.h5"), "--truth", path("cs_truth.h5"),
                      "--backend", "cpu", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("cs_raw.h5"), "--method", "fft", "--out", path("cs_fft.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("cs_raw.h5"), "--method", "cs", "--maps", "espirit", "--out", path("cs_l1.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("cs_raw.h5"), "--method", "cs", "--cs-regularizer", "tv", "--lambda", "0.01",
                  "--iterations", "50", "--maps", "true", "--scenario", path("cs.json"), "--out", path("cs_tv.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("cs_raw.h5"), "--method", "sense", "--maps", "espirit", "--out", path("cs_sense.h5"),
                  "--gfactor", path("cs_g.png"), "--gfactor-replicas", "8", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo(path("cs_g.png")).size() > 100);  // CG-SENSE off the comb: its g by replicas
    const double fft = psnr_of("cs_fft.h5", "cs_truth.h5"), l1 = psnr_of("cs_l1.h5", "cs_truth.h5"),
                 tv = psnr_of("cs_tv.h5", "cs_truth.h5"), cgsense = psnr_of("cs_sense.h5", "cs_truth.h5");
    qInfo("Poisson-disc R = 3 from the CLI: zero-filled %.2f dB, CG-SENSE (ESPIRiT) %.2f dB, CS L1-wavelet (ESPIRiT) "
          "%.2f dB, CS TV (true maps, lambda 0.01) %.2f dB", fft, cgsense, l1, tv);
    QVERIFY(cgsense > fft && l1 > fft && tv > fft);
    // Refusals: one line naming the option and the allowed, exit 2, nothing written.
    const QList<std::pair<QStringList, QString>> bad = {
        {{"--method", "cs"}, "(allowed: --maps true --scenario S.json, the simulator's coils; --maps espirit)"},
        {{"--method", "cs", "--maps", "espirit", "--lambda", "-1"}, "lambda = -1 (allowed: >= 0)"},
        {{"--method", "cs", "--maps", "espirit", "--cs-regularizer", "l2"}, "(allowed: l1-wavelet, tv)"},
        {{"--method", "fft", "--cs-regularizer", "tv"}, "--cs-regularizer: only with --method cs"},
        {{"--method", "grappa", "--maps", "espirit"}, "only with --method sense, cs or cg"},
    };
    for (const auto& [args, needle] : bad) {
      r = run_mrwb(QStringList{"recon", "--in", path("cs_raw.h5"), "--out", path("none.h5")} + args);
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.contains(needle), qPrintable(r.err));
      QCOMPARE(r.err.trimmed().count('\n'), 0);
      QVERIFY(!QFileInfo::exists(path("none.h5")));
    }
    // ESPIRiT needs a calibration region: the regular R = 2 data of another scenario without ACS lines.
    j["sequence"]["undersampling"] = "regular";
    j["sequence"]["acceleration"] = 2;
    j["sequence"]["acs_lines"] = 0;
    j["recon"]["method"] = "fft";
    write("noacs.json", QByteArray::fromStdString(j.dump(2)));
    r = run_mrwb({"simulate", "--scenario", path("noacs.json"), "--out", path("noacs.h5"), "--backend", "cpu", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("noacs.h5"), "--method", "sense", "--maps", "espirit", "--out", path("none.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("noacs.h5: ") && r.err.contains("calibration region"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(path("none.h5")));
  }

  // Non-Cartesian CG-SENSE with the simulator's coil maps (--method cg --maps true) instead of the maps the cg
  // estimates from the low-resolution centre: at least as close to the truth; --maps espirit within 1.5 dB of it.
  // The default scenario's still tissue only: its blood's flow phase changes from spoke to spoke (the readout's
  // first moment turns with the spoke), and the streaks that leaves would measure the flow, not the maps.
  void cgWithTrueMapsFromTheCli() {
    QFile f(QString(MRWB_SOURCE_DIR) + "/phantoms/default.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto j = nlohmann::json::parse(f.readAll().toStdString());
    j.erase("flow");
    j["sequence"]["matrix"] = 48;
    j["sequence"]["dummy_scans"] = 20;
    j["sequence"]["trajectory"] = "radial";
    j["coils"]["count"] = 8;
    j["recon"]["method"] = "cg";
    write("radial.json", QByteArray::fromStdString(j.dump(2)));
    Run r = run_mrwb({"simulate", "--scenario", path("radial.json"), "--out", path("radial.h5"), "--truth",
                      path("radial_truth.h5"), "--backend", "cpu", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("radial.h5"), "--method", "cg", "--out", path("cg_est.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("radial.h5"), "--method", "cg", "--maps", "true", "--scenario", path("radial.json"),
                  "--out", path("cg_true.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double est = psnr_of("cg_est.h5", "radial_truth.h5"), truth = psnr_of("cg_true.h5", "radial_truth.h5");
    qInfo("radial 48^2, 8 coils, cg 20 it.: estimated maps %.2f dB, the simulator's maps %.2f dB", est, truth);
    QVERIFY(est > 0 && truth >= est - 0.1);
    // ESPIRiT from the gridded radial centre (espirit_maps_noncart): about 1 dB below the simulator's maps here
    // (measured 1.1 dB at 48², 8 coils; the margin of the gridded block and the crop change it by < 0.25 dB).
    r = run_mrwb({"recon", "--in", path("radial.h5"), "--method", "cg", "--maps", "espirit", "--out", path("cg_esp.h5"),
                  "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double esp = psnr_of("cg_esp.h5", "radial_truth.h5");
    qInfo("radial 48^2, 8 coils, cg 20 it.: ESPIRiT maps %.2f dB", esp);
    QVERIFY(esp > truth - 1.5);
  }

  // `mrwb sequence --out` then `mrwb simulate --seq`: the exported Pulseq file, played on the scenario's
  // phantom, reconstructs to the scenario's truth (imported sequences simulate).
  void exportedPulseqSimulates() {
    QFile f(QString(MRWB_SOURCE_DIR) + "/phantoms/default.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto j = nlohmann::json::parse(f.readAll().toStdString());
    j["sequence"]["matrix"] = 32;
    j["sequence"]["dummy_scans"] = 20;
    write("small.json", QByteArray::fromStdString(j.dump(2)));
    Run r = run_mrwb({"sequence", "--scenario", path("small.json"), "--out", path("small.seq")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"simulate", "--scenario", path("small.json"), "--seq", path("small.seq"), "--out", path("seq_raw.h5"),
              "--truth", path("seq_truth.h5"), "--backend", "cpu", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("seq_raw.h5"), "--method", "fft", "--out", path("seq_recon.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"compare", "--image", path("seq_recon.h5"), "--reference", path("seq_truth.h5"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const auto m = nlohmann::json::parse(r.out.toStdString());
    qInfo("exported .seq simulated: PSNR %.2f dB, error %.2f %%", m.at("psnr_db").get<double>(),
          m.at("percent_error").get<double>());
    QVERIFY(m.at("psnr_db").get<double>() > 25.0);  // the default scenario's own bar (Gibbs-limited)
    // A missing file: one line, exit 2, nothing written.
    r = run_mrwb({"simulate", "--scenario", path("small.json"), "--seq", path("none.seq"), "--out", path("none.h5"), "--quiet"});
    QCOMPARE(r.code, 2);
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(path("none.h5")));
  }
  void badInputExitsTwoWithOneLineAndNoOutput_data() {
    QTest::addColumn<QByteArray>("scenario");
    QTest::addColumn<QString>("field");
    const QByteArray head = R"({"format": "mrwb-scenario", "version": 1, )";
    QTest::newRow("negative TR") << head + R"("sequence": {"TR_s": -1}})" << "sequence.TR_s";
    QTest::newRow("TE >= TR") << head + R"("sequence": {"TR_s": 0.01, "TE_s": 0.02}})" << "sequence.TE_s";
    QTest::newRow("unknown field") << head + R"("sequence": {"echo": 1}})" << "sequence.echo";
    QTest::newRow("malformed") << QByteArray("{ not json") << "not valid JSON";
  }
  void badInputExitsTwoWithOneLineAndNoOutput() {
    QFETCH(QByteArray, scenario);
    QFETCH(QString, field);
    write("bad.json", scenario);
    const Run r = run_mrwb({"simulate", "--scenario", path("bad.json"), "--out", path("bad.h5"), "--truth", path("badt.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(field), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(path("bad.h5")));
    QVERIFY(!QFileInfo::exists(path("badt.h5")));
  }
  // A small moving scenario: the shipped straight tube (Poiseuille flow) at 32 × 32 with 10 dummy TRs.
  void writeSmallTube(const char* name, const nlohmann::json& simulation = nullptr) {
    QFile f(QString(MRWB_SOURCE_DIR) + "/phantoms/straight_tube.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto j = nlohmann::json::parse(f.readAll().toStdString());
    j["sequence"]["matrix"] = 32;
    j["sequence"]["fov_m"] = 0.064;
    j["sequence"]["dummy_scans"] = 10;
    j["phantom"]["disc_radius_m"] = 0.03;
    if (!simulation.is_null()) j["simulation"] = simulation;
    write(name, QByteArray::fromStdString(j.dump(2)));
  }
  // The model comes from the scenario's "simulation" or --model / --flow-transport, and the run says which
  // (beside the backend; in a log, as here, in its closing line).
  void simulateWithEitherModel() {
    writeSmallTube("tube.json");
    Run r = run_mrwb({"simulate", "--scenario", path("tube.json"), "--out", path("e.h5"), "--backend", "cpu"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(" s on cpu, model eulerian, gradient_frame transport)"), qPrintable(r.err));
    r = run_mrwb({"simulate", "--scenario", path("tube.json"), "--out", path("l.h5"), "--truth", path("l_truth.h5"),
                  "--backend", "cpu", "--model", "lagrangian"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains(" s on cpu-lagrangian, model lagrangian)"), qPrintable(r.err));
    QVERIFY(QFileInfo(path("l.h5")).size() > 1000);
    QVERIFY(QFileInfo(path("l_truth.h5")).size() > 100);
    r = run_mrwb({"simulate", "--scenario", path("tube.json"), "--out", path("d.h5"), "--backend", "cpu",
                  "--flow-transport", "donor_cell"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("model eulerian, donor_cell transport)"), qPrintable(r.err));
    // The scenario's own choice, and --model overriding it.
    writeSmallTube("tube_l.json", {{"model", "lagrangian"}, {"flow_transport", "donor_cell"}});
    r = run_mrwb({"simulate", "--scenario", path("tube_l.json"), "--out", path("l2.h5"), "--backend", "cpu"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("cpu-lagrangian, model lagrangian)"), qPrintable(r.err));
    r = run_mrwb({"simulate", "--scenario", path("tube_l.json"), "--out", path("e2.h5"), "--backend", "cpu", "--model",
                  "eulerian", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.err.trimmed().isEmpty());
    QVERIFY(QFileInfo(path("e2.h5")).size() > 1000);
  }
  // A bad model, from the command line or the file: exit 2, one line naming the option or field and the
  // allowed values, nothing written.
  void badModelExitsTwoWithOneLine() {
    writeSmallTube("tube.json");
    Run r = run_mrwb({"simulate", "--scenario", path("tube.json"), "--out", path("bad.h5"), "--model", "particles"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--model particles") && r.err.contains("allowed: eulerian, lagrangian"), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    r = run_mrwb({"simulate", "--scenario", path("tube.json"), "--out", path("bad.h5"), "--flow-transport", "upwind"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("allowed: gradient_frame, gradient_frame_limited, donor_cell"), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    writeSmallTube("bad_model.json", {{"model", "particles"}});
    r = run_mrwb({"simulate", "--scenario", path("bad_model.json"), "--out", path("bad.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bad_model.json") && r.err.contains("simulation.model = 'particles'") &&
                 r.err.contains("allowed: eulerian, lagrangian"),
             qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(path("bad.h5")));
  }
  void missingScenarioAndBadOptions() {
    Run r = run_mrwb({"simulate", "--scenario", path("missing.json"), "--out", path("m.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("missing.json"));
    r = run_mrwb({"recon", "--in", path("missing.h5"), "--out", path("x.png")});
    QCOMPARE(r.code, 2);
    r = run_mrwb({"simulate", "--bogus"});
    QCOMPARE(r.code, 2);
    r = run_mrwb({"recon", "--in", path("missing.h5"), "--method", "gridding", "--out", path("x.png")});
    QCOMPARE(r.code, 2);  // the missing input is reported before the method
    QVERIFY(!QFileInfo::exists(path("x.png")));
  }
  void sequenceMissingScenarioExitsTwo() {
    const Run r = run_mrwb({"sequence", "--scenario", path("missing.json"), "--out", path("missing.seq")});
    QCOMPARE(r.code, 2);
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(path("missing.seq")));
  }
  void phantomPresets() {
    Run r = run_mrwb({"phantom", "--list"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("uniform_disc"));
    r = run_mrwb({"phantom", "--preset", "uniform_disc", "--out", path("disc.json")});
    QCOMPARE(r.code, 0);
    QVERIFY(QFileInfo::exists(path("disc.json")));
    r = run_mrwb({"phantom", "--preset", "nonesuch", "--out", path("n.json")});
    QCOMPARE(r.code, 2);
    QVERIFY(!QFileInfo::exists(path("n.json")));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
