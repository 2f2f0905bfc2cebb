// Bad sequence input through the CLI (`mrwb sequence`, `mrwb simulate`): TE below the minimum, slew beyond
// the limit, ACS larger than the matrix, a malformed .seq (version 1.4 and 1.2). Each exits 2 with one line on stderr that names
// the field and its allowed range (or the file and line) and leaves no output file.
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include "files.hpp"
#include "hostile_pulseq.hpp"
#include "process_runner.hpp"

namespace {

using mrwb_test::Run;
using mrwb_test::run_mrwb;

// A scenario: 64² spoiled GRE at 500 Hz/pixel (readout 2 ms), few dummy scans, with `sequence` fields added
// (a matrix among them replaces the 64: a key may appear once).
QByteArray scenario(const QByteArray& sequence_fields) {
  const QByteArray matrix = sequence_fields.contains("\"matrix\"") ? QByteArray() : QByteArray(R"("matrix": 64, )");
  return R"({"format": "mrwb-scenario", "version": 1, "phantom": {"preset": "uniform_disc", "cells_per_voxel": 1},
             "sequence": {)" + matrix + R"("dummy_scans": 2)" +
         (sequence_fields.isEmpty() ? QByteArray() : ", " + sequence_fields) + "}}";
}

}  // namespace

class TestCliSequenceErrors : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const QString& n) const { return dir_.filePath(n); }
  QString write(const QString& name, const QByteArray& text) {
    return mrwb::test::write_file(path(name), text) ? path(name) : QString();
  }
  // The contract: exit 2, one line on stderr containing every `expect`, no file at `output`.
  static void expectRefused(const Run& r, const QStringList& expect, const QString& output) {
    QVERIFY2(r.code == 2, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    for (const QString& e : expect) QVERIFY2(r.err.contains(e), qPrintable("missing '" + e + "' in: " + r.err));
    QVERIFY2(!QFileInfo::exists(output), qPrintable(output + " was written"));
  }

 private slots:
  // --- through `mrwb simulate` (scenario JSON) ---
  void simulateRefuses_data() {
    QTest::addColumn<QByteArray>("fields");
    QTest::addColumn<QStringList>("expect");
    // The simulator's GRE needs TE beyond half the 2 ms readout.
    QTest::newRow("TE below the minimum (spoiled GRE)") << QByteArray(R"("TE_s": 0.0005)")
                                                        << QStringList{"sequence.TE_s", "half the readout", "0.001"};
    // Past half the readout but below what RF, prephaser and ramps allow: refused as `mrwb sequence` refuses it
    // (one minimum TE, sequence_scenario.hpp), naming the same minimum.
    QTest::newRow("TE below the block minimum (spoiled GRE)") << QByteArray(R"("TE_s": 0.0015)")
                                                              << QStringList{"TE_s", "below the minimum", "allowed: >="};
    QTest::newRow("TE below the block minimum (radial)")
        << QByteArray(R"("trajectory": "radial", "TE_s": 0.0015}, "recon": {"method": "gridding")")
        << QStringList{"TE_s", "below the minimum", "allowed: >="};
    // Block-model types are checked against the minimum TE of their gradients and RF.
    QTest::newRow("TE below the minimum (TOF)") << QByteArray(R"("type": "tof", "TE_s": 0.0011, "TR_s": 0.02)")
                                                << QStringList{"TE_s", "below the minimum", "allowed: >="};
    QTest::newRow("ACS larger than the matrix") << QByteArray(R"("acceleration": 2, "acs_lines": 80)")
                                                << QStringList{"sequence.acs_lines", "80", "allowed [0, 64]"};
    // Found by fuzz/fuzz_scenario: a readout gradient beyond the limit was refused by the gradient design
    // without the file ("gradient: 55.6 mT/m needed ..."), on the Cartesian and the spiral path alike.
    const QByteArray strong = R"("matrix": 614, "TR_s": 0.03, "TE_s": 0.01)";
    for (const auto& [name, fields] : {std::pair{"readout gradient beyond the limit (cartesian)", strong},
                                       std::pair{"readout gradient beyond the limit (spiral)",
                                                 strong + R"(, "trajectory": "spiral", "interleaves": 16}, "recon": {"method": "gridding")"}})
      QTest::newRow(name) << fields << QStringList{"bad_sim.json: sequence: gradient: ", "mT/m needed", "allowed: <="};
  }
  void simulateRefuses() {
    QFETCH(QByteArray, fields);
    QFETCH(QStringList, expect);
    const QString sc = write("bad_sim.json", scenario(fields));
    const Run r = run_mrwb({"simulate", "--scenario", sc, "--out", path("sim.h5"), "--truth", path("truth.png"), "--quiet"});
    expectRefused(r, expect, path("sim.h5"));
    QVERIFY(!QFileInfo::exists(path("truth.png")));
  }

  // --- through `mrwb sequence --scenario` (Pulseq export) ---
  void exportRefuses_data() {
    QTest::addColumn<QByteArray>("fields");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QStringList>("expect");
    // 1.5 ms passes the simulator's half-readout rule but not the block GRE's RF, prephaser and ramps.
    QTest::newRow("TE below the minimum") << QByteArray(R"("TE_s": 0.0015)") << QStringList{}
                                          << QStringList{"TE_s", "below the minimum", "allowed: >="};
    // A slew limit this low lengthens every ramp: the requested timing no longer fits.
    QTest::newRow("TE below the minimum at a low slew limit") << QByteArray(R"("TE_s": 0.004)")
                                                              << QStringList{"--max-slew", "5"}
                                                              << QStringList{"below the minimum", "allowed: >="};
    QTest::newRow("slew limit out of range") << QByteArray() << QStringList{"--max-slew", "0"}
                                             << QStringList{"--max-slew", "1"};
    QTest::newRow("ACS larger than the matrix") << QByteArray(R"("acceleration": 2, "acs_lines": 66)") << QStringList{}
                                                << QStringList{"sequence.acs_lines", "66", "allowed [0, 64]"};
  }
  void exportRefuses() {
    QFETCH(QByteArray, fields);
    QFETCH(QStringList, extra);
    QFETCH(QStringList, expect);
    const QString sc = write("bad_seq.json", scenario(fields));
    const Run r = run_mrwb(QStringList{"sequence", "--scenario", sc, "--out", path("out.seq")} + extra);
    expectRefused(r, expect, path("out.seq"));
  }

  // Radial and spiral scenarios export, inspect, plot, simulate from the file and reconstruct end to end.
  void noncartesianExportSimulatesAndReconstructs_data() {
    QTest::addColumn<QByteArray>("fields");
    QTest::addColumn<QString>("adc_events");
    QTest::newRow("golden radial") << QByteArray(R"("trajectory": "golden_radial", "spokes": 40)") << "adc events: 40";
    QTest::newRow("spiral") << QByteArray(R"("trajectory": "spiral", "interleaves": 8, "TE_s": 0.002)") << "adc events: 8";
  }
  void noncartesianExportSimulatesAndReconstructs() {
    QFETCH(QByteArray, fields);
    QFETCH(QString, adc_events);
    const QString sc = write("nc.json", scenario(fields + R"(}, "recon": {"method": "gridding")"));
    Run r = run_mrwb({"sequence", "--scenario", sc, "--out", path("nc.seq"), "--plot", path("nc.png")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("minimum"), qPrintable(r.out));
    QVERIFY(QFileInfo::exists(path("nc.png")));
    r = run_mrwb({"sequence", "--in", path("nc.seq"), "--info"});
    QVERIFY2(r.code == 0 && r.out.contains(adc_events), qPrintable(r.out + r.err));
    r = run_mrwb({"simulate", "--scenario", sc, "--seq", path("nc.seq"), "--out", path("nc.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"recon", "--in", path("nc.h5"), "--method", "gridding", "--out", path("nc_img.png")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo::exists(path("nc_img.png")));
    // BART output: the trajectory beside it (<out>_traj.cfl), and the pair reconstructs.
    r = run_mrwb({"simulate", "--scenario", sc, "--seq", path("nc.seq"), "--out", path("nc.cfl"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo::exists(path("nc_traj.cfl")) && QFileInfo::exists(path("nc_traj.hdr")));
    r = run_mrwb({"recon", "--in", path("nc.cfl"), "--traj", path("nc_traj.cfl"), "--method", "gridding",
                  "--out", path("nc_cfl.png")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo::exists(path("nc_cfl.png")));
  }

  // --- through `mrwb sequence --in` (Pulseq import) ---
  void fileBeyondTheSlewLimitIsRefused() {
    const QString sc = write("good.json", scenario(R"("TE_s": 0.004)"));
    Run r = run_mrwb({"sequence", "--scenario", sc, "--out", path("good.seq")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    // Designed within 130 T/m/s: accepted at that limit, refused at a lower one.
    r = run_mrwb({"sequence", "--in", path("good.seq"), "--max-slew", "130", "--info"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_mrwb({"sequence", "--in", path("good.seq"), "--max-slew", "50", "--plot", path("slew.png")});
    expectRefused(r, {"good.seq", "block", "slew rate", "exceeds the limit", "allowed: <= 50 T/m/s"}, path("slew.png"));
    r = run_mrwb({"sequence", "--in", path("good.seq"), "--max-grad", "5", "--plot", path("grad.png")});
    expectRefused(r, {"good.seq", "block", "amplitude", "allowed: |G| <= 5 mT/m"}, path("grad.png"));
  }
  // Fuzzed .seq files that crashed (empty stderr) or hung `--plot`, and what a review found read without a
  // word: refused through `mrwb sequence --plot` and `mrwb simulate --seq` with the file, line and allowed
  // range, at once, nothing written.
  void hostileSeqIsRefused_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expect");
    QTest::addColumn<bool>("played");
    for (const auto& h : mrwb_test::all_hostile_seqs()) QTest::newRow(h.name) << h.text << h.expect << h.played;
  }
  void hostileSeqIsRefused() {
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expect);
    QFETCH(bool, played);
    const QString seq = write("hostile.seq", text);
    const QStringList where = QStringList{"hostile.seq:"} + expect;
    QElapsedTimer timer;
    timer.start();
    Run r = run_mrwb({"sequence", "--in", seq, "--plot", path("hostile.png")});
    expectRefused(r, where, path("hostile.png"));
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed()) + " ms"));
    r = run_mrwb({"sequence", "--in", seq, "--info"});
    expectRefused(r, where, path("hostile.png"));
    if (played) {
      const QString sc = write("hostile.json", scenario({}));
      timer.restart();
      r = run_mrwb({"simulate", "--scenario", sc, "--seq", seq, "--out", path("hostile.h5"), "--quiet"});
      expectRefused(r, where, path("hostile.h5"));
      QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed()) + " ms"));
    }
  }
  // A file the reader accepts and the simulation refuses (ADCs of 32 and 33 samples on an oblique, so
  // non-Cartesian, readout): the message named "simulate", not the file.
  void playedSeqRefusalNamesTheFile() {
    const QString sc = write("adcs.json", scenario({}));
    const QString seq = write("adcs.seq",
                              "[VERSION]\nmajor 1\nminor 4\nrevision 0\n\n[DEFINITIONS]\nFOV 0.2 0.2 0.005\n\n"
                              "[BLOCKS]\n1 100 0 1 1 0 1 0\n2 100 0 1 1 0 2 0\n\n[TRAP]\n1 1000 10 900 10 0\n\n"
                              "[ADC]\n1 32 10000 10 0 0\n2 33 10000 10 0 0\n");
    const Run r = run_mrwb({"simulate", "--scenario", sc, "--seq", seq, "--out", path("adcs.h5"), "--quiet"});
    expectRefused(r, {"adcs.seq: ", "ADCs of 33 and 32 samples", "allowed: the same sample count"}, path("adcs.h5"));
  }
  void malformedSeqNamesFileAndLine() {
    const QString sc = write("good2.json", scenario(R"("TE_s": 0.004)"));
    Run r = run_mrwb({"sequence", "--scenario", sc, "--out", path("good2.seq")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile f(path("good2.seq"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = f.readAll().split('\n');
    // Corrupt the first [TRAP] line (and drop the signature, which would report the change first).
    int bad = -1;
    for (int i = 0; i < lines.size() && bad < 0; ++i)
      if (lines[i].trimmed() == "[TRAP]")
        for (int j = i + 1; j < lines.size(); ++j)
          if (!lines[j].trimmed().isEmpty() && !lines[j].trimmed().startsWith('#')) {
            bad = j;
            break;
          }
    QVERIFY(bad > 0);
    QList<QByteArray> tok = lines[bad].simplified().split(' ');
    QVERIFY(tok.size() > 2);
    tok[1] = "abc";  // a non-number in the amplitude column
    lines[bad] = tok.join(' ');
    int sig = -1;
    for (int i = 0; i < lines.size(); ++i)
      if (lines[i].trimmed() == "[SIGNATURE]") sig = i;
    if (sig > 0) lines = lines.mid(0, sig);
    const QString malformed = write("malformed.seq", lines.join('\n'));
    const QString where = QString("malformed.seq:%1:").arg(bad + 1);  // 1-based line number
    r = run_mrwb({"sequence", "--in", malformed, "--plot", path("m.png")});
    expectRefused(r, {where, "is not a number"}, path("m.png"));
    r = run_mrwb({"sequence", "--in", malformed, "--info"});
    expectRefused(r, {where}, path("m.png"));
    // An unknown section header, on its own line.
    const QString header = write("header.seq", "[VERSION]\nmajor 1\nminor 4\nrevision 0\n[BLOCKS\n");
    r = run_mrwb({"sequence", "--in", header, "--plot", path("h.png")});
    expectRefused(r, {"header.seq:5:", "malformed section header"}, path("h.png"));
    // Version 1.2: a 7-column block whose delay event is not defined, through `mrwb sequence` and
    // `mrwb simulate --seq`.
    const QString legacy = write("legacy.seq", "[VERSION]\nmajor 1\nminor 2\nrevision 0\n\n[BLOCKS]\n1 1 0 0 0 0 0\n");
    r = run_mrwb({"sequence", "--in", legacy, "--plot", path("l.png")});
    expectRefused(r, {"legacy.seq:7:", "delay"}, path("l.png"));
    r = run_mrwb({"simulate", "--scenario", sc, "--seq", legacy, "--out", path("l.h5"), "--quiet"});
    expectRefused(r, {"legacy.seq:7:", "delay"}, path("l.h5"));
  }
};

QTEST_GUILESS_MAIN(TestCliSequenceErrors)
#include "test_cli_sequence_errors.moc"
