// Pulseq files: shape compression, md5 signature, write -> read round trip, the shared example files
// (read, summarised, converted and simulated), malformed input.
#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <sstream>

#include "files.hpp"
#include "hostile_pulseq.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/pulseq_limits.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

using namespace mrwb;
using namespace mrwb::seq;

namespace {
std::string testdata_dir() {
  const char* src = std::getenv("MRWB_SOURCE_DIR");
  return src ? std::string(src) + "/../shared/testdata/pulseq" : std::string();
}
// A uniform static object of n × n cells over fov (test_physics' uniform_object is alike but places the grid
// by the FOV and adds zero velocity arrays; sharing one would move these cells).
CellPhantom uniform_phantom(int n, double fov) {
  CellPhantom ph;
  ph.nx = ph.ny = n;
  ph.cell_size_m = fov / n;
  ph.x0_m = ph.y0_m = -(n / 2) * ph.cell_size_m;
  const std::size_t N = ph.size();
  ph.PD.assign(N, 1.f);
  ph.T1_s.assign(N, 1.0f);
  ph.T2_s.assign(N, 0.1f);
  ph.dB_T.assign(N, 0.f);
  ph.type.assign(N, static_cast<std::uint8_t>(CellType::Stationary));
  return ph;
}
// A band of spins along x selected by an RF with a Pulseq frequency offset at x_sel (and the matching
// phase offset), rephased and read out along x (n samples, k = 0 at sample n/2), optionally with the
// ADC frequency offset that centres x_sel.
BlockSequence band_readout(double x_sel, bool adc_offset, int n, double fov) {
  BlockSequence s;
  const SystemLimits& sys = s.sys;
  s.fov_m[0] = s.fov_m[1] = fov;
  Gradient gsel, greph;
  RfPulse rf = make_sinc_pulse(M_PI / 2, 1.6e-3, 4, 0, sys, 8e-3, &gsel, &greph);
  rf.delay_s = gsel.rise_s;
  rf.freq_Hz = gsel.amplitude_Hz_per_m * x_sel;
  rf.phase_rad = -2 * M_PI * rf.freq_Hz * rf.center_s;
  Block ex;
  ex.rf = rf;
  ex.gx = gsel;
  ex.duration_s = round_up_to_raster(ex.events_duration_s(sys), sys.block_raster_s);
  const double dwell = 32e-6, amp = 1 / fov / dwell, flat = round_up_to_raster(n * dwell, sys.grad_raster_s);
  const Gradient gro = make_trapezoid_flat(amp * flat, flat, sys);
  Block pre;
  pre.gx = make_trapezoid_area(greph.area_Hz_s_per_m(sys.grad_raster_s) - (amp * gro.rise_s / 2 + amp * (n / 2 + 0.5) * dwell), sys);
  pre.duration_s = round_up_to_raster(pre.events_duration_s(sys), sys.block_raster_s);
  Block ro;
  ro.gx = gro;
  Adc adc;
  adc.num_samples = n;
  adc.dwell_s = dwell;
  adc.delay_s = gro.rise_s;
  if (adc_offset) adc.freq_Hz = amp * x_sel;
  ro.adc = adc;
  ro.duration_s = round_up_to_raster(ro.events_duration_s(sys), sys.block_raster_s);
  s.blocks = {ex, pre, ro};
  check_limits(s, "band.seq");
  return s;
}
}  // namespace

class TestPulseq : public QObject {
  Q_OBJECT
 private slots:
  void md5MatchesRfc1321() {
    QCOMPARE(QString::fromStdString(md5_hex("")), QString("d41d8cd98f00b204e9800998ecf8427e"));
    QCOMPARE(QString::fromStdString(md5_hex("abc")), QString("900150983cd24fb0d6963f7d28e17f72"));
  }
  void shapeCompressionRoundTrip() {
    std::vector<double> w;
    for (int i = 0; i < 200; ++i) w.push_back(i < 50 ? i / 50.0 : (i < 150 ? 1.0 : (200 - i) / 50.0));
    const auto packed = compress_shape(w);
    QVERIFY2(packed.size() < w.size() / 4, "a trapezoid compresses well");
    const auto back = decompress_shape(packed, static_cast<int>(w.size()));
    QCOMPARE(back.size(), w.size());
    for (std::size_t i = 0; i < w.size(); ++i) QVERIFY(std::abs(back[i] - w[i]) < 2e-7);
    // "v v n" is n + 2 copies of v: five zero steps, then three unit steps -> 0 0 0 0 0 1 2 3.
    const auto ex = decompress_shape({0, 0, 3, 1, 1, 1}, 8);
    const std::vector<double> want = {0, 0, 0, 0, 0, 1, 2, 3};
    QCOMPARE(ex, want);
    QVERIFY_THROWS_EXCEPTION(InputError, decompress_shape({0, 0, 5}, 4));
  }
  void writeReadRoundTrip_data() {
    QTest::addColumn<int>("minor");
    QTest::addColumn<QString>("type");
    QTest::addColumn<int>("partitions");
    QTest::addColumn<int>("repeats");  // acquisitions per line: PC segments, TOF partitions
    QTest::newRow("1.5") << 5 << "spoiled_gre" << 1 << 1;
    QTest::newRow("1.4") << 4 << "spoiled_gre" << 1 << 1;
    QTest::newRow("1.5 bssfp") << 5 << "bssfp" << 1 << 1;
    QTest::newRow("1.5 phase contrast") << 5 << "phase_contrast" << 1 << 2;
    QTest::newRow("1.5 tof 2-D") << 5 << "tof" << 1 << 1;
    QTest::newRow("1.4 tof 3-D") << 4 << "tof" << 4 << 4;
  }
  void writeReadRoundTrip() {
    QFETCH(int, minor);
    QFETCH(QString, type);
    QFETCH(int, partitions);
    QFETCH(int, repeats);
    CartesianParams p;
    p.matrix = 32;
    p.accel_R = 2;
    p.acs_lines = 8;
    p.partitions = partitions;
    p.slice_thickness_m = partitions > 1 ? 0.04 : 5e-3;
    const BuiltSequence b = build_blocks(parse_sequence_type(type.toStdString()).value(), p);
    const std::string text = pulseq_text(b.seq, minor);
    const BlockSequence r = parse_pulseq(text, "roundtrip.seq");
    QCOMPARE(r.blocks.size(), b.seq.blocks.size());
    QVERIFY(std::abs(r.duration_s() - b.seq.duration_s()) < 1e-9);
    QCOMPARE(r.adc_samples(), b.seq.adc_samples());
    const double tr = b.seq.sys.grad_raster_s;
    for (std::size_t i = 0; i < r.blocks.size(); ++i) {
      const Block &x = b.seq.blocks[i], &y = r.blocks[i];
      QVERIFY(std::abs(x.duration_s - y.duration_s) < 1e-9);
      QCOMPARE(x.rf.has_value(), y.rf.has_value());
      if (x.rf) {
        QVERIFY(std::abs(rf_flip_rad(*x.rf, 1e-6) - rf_flip_rad(*y.rf, 1e-6)) < 1e-4);
        QVERIFY(std::abs(std::remainder(x.rf->phase_rad - y.rf->phase_rad, 2 * M_PI)) < 1e-6);
        QVERIFY(std::abs(x.rf->delay_s - y.rf->delay_s) < 1e-9);
      }
      const std::optional<Gradient>* gx[3] = {&x.gx, &x.gy, &x.gz};
      const std::optional<Gradient>* gy[3] = {&y.gx, &y.gy, &y.gz};
      for (int a = 0; a < 3; ++a) {
        QCOMPARE(gx[a]->has_value(), gy[a]->has_value());
        if (!*gx[a]) continue;
        QVERIFY(std::abs((*gx[a])->duration_s(tr) - (*gy[a])->duration_s(tr)) < 1e-9);
        const double A = (*gx[a])->area_Hz_s_per_m(tr), B = (*gy[a])->area_Hz_s_per_m(tr);
        QVERIFY2(std::abs(A - B) <= 1e-7 * std::abs(A) + 1e-9, qPrintable(QString("block %1 axis %2: %3 vs %4").arg(i).arg(a).arg(A).arg(B)));
      }
      QCOMPARE(x.adc.has_value(), y.adc.has_value());
      if (x.adc) {
        QCOMPARE(y.adc->num_samples, x.adc->num_samples);
        QVERIFY(std::abs(y.adc->dwell_s - x.adc->dwell_s) < 1e-12);
        QVERIFY(std::abs(y.adc->delay_s - x.adc->delay_s) < 1e-9);
      }
      QCOMPARE(y.labels.size(), x.labels.size());
      for (std::size_t k = 0; k < x.labels.size(); ++k) {
        QCOMPARE(y.labels[k].name, x.labels[k].name);
        QCOMPARE(y.labels[k].value, x.labels[k].value);
      }
    }
    // Labels become the line flags: the ACS lines carry REF, the R-grid lines IMA.
    const ProgramConversion c = to_sequence_program(r);
    int calib = 0, imaging = 0;
    for (auto f : c.adc_flags) {
      calib += (f & kLineCalibration) != 0;
      imaging += (f & kLineImaging) != 0;
    }
    QCOMPARE(calib, 8 * repeats);
    QCOMPARE(imaging, 16 * repeats);
  }
  void tamperedSignatureIsRejected() {
    CartesianParams p;
    p.matrix = 16;
    std::string text = pulseq_text(build_spoiled_gre_blocks(p).seq);
    const auto pos = text.find("[ADC]");
    QVERIFY(pos != std::string::npos);
    const auto line_end = text.find('\n', pos + 6);
    text[line_end - 1] = text[line_end - 1] == '0' ? '1' : '0';  // last digit of the ADC row
    try {
      parse_pulseq(text, "t.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("md5"), e.what());
    }
  }
  void malformedInputNamesTheLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expect");
    const QString head = "[VERSION]\nmajor 1\nminor 5\nrevision 0\n\n";
    QTest::newRow("short block") << head + "[BLOCKS]\n1 10 0 0 0\n" << "t.seq:7:";
    QTest::newRow("not a number") << head + "[BLOCKS]\n1 1x 0 0 0 0 0 0\n" << "t.seq:7:";
    QTest::newRow("undefined trap") << head + "[BLOCKS]\n1 10 0 3 0 0 0 0\n" << "t.seq:7:";
    QTest::newRow("version") << QString("[VERSION]\nmajor 1\nminor 1\n") << "allowed: 1.2, 1.3, 1.4, 1.5";
    QTest::newRow("bad shape") << head + "[SHAPES]\nshape_id 1\nnum_samples 5\n0\n0\n9\n" << "t.seq:7:";
    QTest::newRow("required ext") << "[VERSION]\nmajor 1\nminor 5\n[DEFINITIONS]\nRequiredExtensions ROTATIONS\n"
                                     "[BLOCKS]\n1 10 0 0 0 0 0 0\n[EXTENSIONS]\nextension ROTATIONS 1\n"
                                  << "t.seq:5: [DEFINITIONS] RequiredExtensions 'ROTATIONS': the extension is not supported";
  }
  void malformedInputNamesTheLine() {
    QFETCH(QString, text);
    QFETCH(QString, expect);
    try {
      parse_pulseq(text.toStdString(), "t.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expect), e.what());
      QVERIFY(!QString(e.what()).contains('\n'));
    }
  }
  // Fuzzed files that crashed or hung later code, and what a review found read without a word: refused on
  // reading, in one line of readable length, at once.
  void hostileInputIsRefused_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expect");
    for (const auto& h : mrwb_test::all_hostile_seqs()) QTest::newRow(h.name) << h.text << h.expect;
  }
  void hostileInputIsRefused() {
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expect);
    QElapsedTimer timer;
    timer.start();
    try {
      parse_pulseq(text.toStdString(), "hostile.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString what = e.what();
      QVERIFY2(what.startsWith("hostile.seq:"), e.what());
      for (const QString& x : expect) QVERIFY2(what.contains(x), qPrintable("missing '" + x + "' in: " + what));
      QVERIFY(!what.contains('\n'));
      QVERIFY2(what.size() < 400, qPrintable(QString::number(what.size()) + " characters"));
    }
    QVERIFY2(timer.elapsed() < 500, qPrintable(QString::number(timer.elapsed()) + " ms"));
  }
  // The rows of [BLOCKS] are counted before any block is read: one beyond the bound is refused at its line,
  // at once, without the 0.6 GB a block model of 2^20 blocks holds.
  void blockCountIsBoundedBeforeReading() {
    const int over = seq::pulseq_limits::kMaxBlocks + 1;
    std::string text = mrwb_test::hostile_head().toStdString() + "[BLOCKS]\n";
    text.reserve(text.size() + static_cast<std::size_t>(over) * 17);
    for (int i = 1; i <= over; ++i) text += std::to_string(i) + " 1 0 0 0 0 0 0\n";
    QElapsedTimer timer;
    timer.start();
    try {
      parse_pulseq(text, "many.seq");
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString what = e.what();
      QVERIFY2(what.startsWith("many.seq:" + QString::number(12 + over) + ": [BLOCKS] holds more than 1048576 blocks"), e.what());
      QVERIFY2(what.contains("allowed: <= 1048576 blocks"), e.what());
    }
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed()) + " ms"));
  }
  // Numbers as the Pulseq writers print them still read: exponents and signs in values, leading zeros in ids,
  // a centre at the pulse's end, every RF use letter, and the labels of the Pulseq interpreters.
  void validNumbersAndNamesStillRead() {
    QByteArray rf;
    for (int i = 0; i < 7; ++i)
      rf += QByteArray::number(i + 1) + " 1.5e2 1 2 0 " + (i == 0 ? "2" : "1") + " 0 0 0 +0 -0.0 " + QByteArray("erispou")[i] + "\n";
    QByteArray blocks = "[BLOCKS]\n";
    for (int i = 0; i < 7; ++i) blocks += QByteArray::number(i + 1) + " 100 00" + QByteArray::number(i + 1) + " 0 0 0 0 1\n";
    const QByteArray text = mrwb_test::hostile_head(mrwb_test::hostile_rasters() + "RequiredExtensions LABELSET LABELINC\n", 5) +
                            blocks + "\n[RF]\n" + rf +
                            "\n[EXTENSIONS]\n1 1 1 0\nextension LABELSET 1\n1 1 NOROT\nextension LABELINC 2\n1 1 TRID\n"
                            "\n[SHAPES]\nshape_id 1\nnum_samples 2\n1\n1\n\nshape_id 2\nnum_samples 2\n0\n0\n";
    const BlockSequence s = parse_pulseq(text.toStdString(), "valid.seq");
    QCOMPARE(s.blocks.size(), std::size_t(7));
    QCOMPARE(s.blocks[0].rf->amplitude_Hz, 150.0);
    QCOMPARE(s.blocks[0].rf->center_s, 2e-6);
    QCOMPARE(s.blocks[6].rf->use, 'u');
  }
  // What the checks must still let through: zero-length blocks without events (labels only, as the Pulseq
  // writers emit them), a LABELINC that steps down from a positive counter, rasters of 4 us (GE).
  void validEdgesStillRead() {
    const QByteArray text = mrwb_test::hostile_head("GradientRasterTime 4e-06\nBlockDurationRaster 4e-06\n") +
                            "[BLOCKS]\n1 0 0 0 0 0 0 1\n2 200 0 0 0 0 1 2\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n"
                            "1 1 1 0\n2 2 1 0\nextension LABELSET 1\n1 3 LIN\nextension LABELINC 2\n1 -2 LIN\n";
    const BlockSequence s = parse_pulseq(text.toStdString(), "edge.seq");
    QCOMPARE(s.blocks.size(), std::size_t(2));
    QCOMPARE(s.blocks[0].duration_s, 0.0);
    const ProgramConversion c = to_sequence_program(s);
    QCOMPARE(c.adc_line, std::vector<int>{1});
  }
  // The diagram's points stay bounded by the blocks in the window, not by their samples: a 2^20-sample RF
  // gives a few thousand points, with its peak kept.
  void diagramPointsAreBounded() {
    BlockSequence s;
    Block b;
    RfPulse rf;
    rf.amplitude_Hz = 100;
    std::vector<double> mag(1 << 20, 0.5);
    mag[12345] = 1;
    rf.mag = mag;
    rf.phase = std::vector<double>(mag.size(), 0);
    b.rf = rf;
    b.duration_s = rf.duration_s(s.sys.rf_raster_s);
    s.blocks = {b, b};
    QElapsedTimer timer;
    timer.start();
    const SequenceDiagram d = sequence_diagram(s);
    QVERIFY(d.traces[0].t_s.size() < 20000);
    const double peak = *std::max_element(d.traces[0].value.begin(), d.traces[0].value.end());
    QCOMPARE(peak, 100 / gamma_Hz_per_T * 1e6);
    QVERIFY2(timer.elapsed() < 500, qPrintable(QString::number(timer.elapsed()) + " ms"));
  }
  // An extension Pulseq lets an interpreter ignore (not required, not one that changes what is played) is
  // read with a warning; TRIGGERS, once read so, is refused (hostile_pulseq.hpp).
  void optionalUnknownExtensionWarns() {
    const BlockSequence s = parse_pulseq("[VERSION]\nmajor 1\nminor 5\n[BLOCKS]\n1 10 0 0 0 0 0 1\n[EXTENSIONS]\n1 1 1 0\n"
                                         "extension VENDOR_NOTE 1\n1 2 1 0 100\n", "t.seq");
    QCOMPARE(s.blocks.size(), std::size_t(1));
    QCOMPARE(s.warnings.size(), std::size_t(1));
  }
  void sharedExampleFiles() {
    const std::string dir = testdata_dir();
    if (dir.empty() || !std::filesystem::is_directory(dir)) QSKIP("shared/testdata/pulseq not present");
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".seq") continue;
      ++files;
      const std::string path = entry.path().string();
      const std::string text = mrwb::test::read_file(path);
      const BlockSequence s = read_pulseq(path);  // verifies the md5 signature
      // Blocks: as many as rows in [BLOCKS]; duration: the file's TotalDuration.
      const auto b0 = text.find("[BLOCKS]"), b1 = text.find("\n[", b0 + 1);
      std::istringstream rows(text.substr(b0 + 9, b1 - b0 - 9));
      std::size_t nrows = 0;
      for (std::string l; std::getline(rows, l);)
        if (!l.empty() && l[0] != '#' && l.find_first_not_of(" \t\r") != std::string::npos) ++nrows;
      QCOMPARE(s.blocks.size(), nrows);
      const auto td = text.find("TotalDuration");
      QVERIFY(td != std::string::npos);
      const double total = std::atof(text.c_str() + td + 14);
      QVERIFY2(std::abs(s.duration_s() - total) < 1e-6 + 1e-5 * total, qPrintable(QString::fromStdString(path)));
      QVERIFY(s.adc_samples() > 0);
      const ProgramConversion c = to_sequence_program(s, {20e-6});
      QCOMPARE(static_cast<long long>(c.sample_time_s.size()), s.adc_samples());
      QCOMPARE(static_cast<long long>(c.program.readouts) * c.program.nx, s.adc_samples());
      QVERIFY(std::abs(c.program.duration_s - s.duration_s()) < 1e-9);
      QVERIFY(c.k0_adc >= 0);
    }
    QVERIFY(files >= 1);
  }
  // Pulseq's sign convention, as its own examples use it: rf.freq_offset = G·position selects that
  // position and rf.phase_offset = −2pi·freq_offset·t_centre "compensates the slice-offset induced phase";
  // adc.freq_offset = G·position brings that position to the image centre. Here the slice is selected
  // along x (the simulator is 2-D), read out along x, through a file written and read back.
  void frequencyOffsetsFollowPulseq_data() {
    QTest::addColumn<double>("x0_mm");
    QTest::newRow("+13 mm") << 13.0;  // offset·t_centre = 3.25 cycles: a sign error shows as a phase error
    QTest::newRow("-7 mm") << -7.0;
  }
  void frequencyOffsetsFollowPulseq() {
    QFETCH(double, x0_mm);
    const double x0 = x0_mm * 1e-3;
    const int n = 64;
    const double fov = 0.064;  // 1 mm cells and pixels
    const CellPhantom ph = uniform_phantom(n, fov);
    struct Result {
      std::vector<double> profile;  // |1-D image| along x, pixel i at (i − n/2) mm
      std::complex<float> mxy_at_band;  // cell Mxy at the band centre, at the echo
    };
    auto run = [&](double x_sel, bool adc_offset) {
      const BlockSequence s = parse_pulseq(pulseq_text(band_readout(x_sel, adc_offset, n, fov)), "band.seq");
      const ProgramConversion c = to_sequence_program(s);
      std::vector<std::complex<float>> samples(static_cast<std::size_t>(c.program.readouts) * c.program.nx);
      std::vector<std::complex<float>> truth(ph.size());
      CpuSimulationEngine engine(2);
      engine.run(ph, c.program, samples, truth, {}, {});
      demodulate(c, samples, 1);
      Result r;
      for (int i = 0; i < n; ++i) {
        std::complex<double> v{};
        for (int j = 0; j < n; ++j) v += std::complex<double>(samples[j]) * std::polar(1.0, 2 * M_PI * (j - n / 2) * (i - n / 2) / n);
        r.profile.push_back(std::abs(v));
      }
      const int ix = n / 2 + static_cast<int>(std::lround(x_sel / (fov / n)));
      r.mxy_at_band = truth[static_cast<std::size_t>(n / 2) * n + ix];
      return r;
    };
    // Centroid [mm] of the profile above half its maximum.
    auto centre_mm = [&](const std::vector<double>& p) {
      const double peak = *std::max_element(p.begin(), p.end());
      double sw = 0, sx = 0;
      for (int i = 0; i < n; ++i)
        if (p[i] > 0.5 * peak) {
          sw += p[i];
          sx += p[i] * (i - n / 2);
        }
      return sx / sw;
    };
    const Result band = run(x0, false), centred = run(x0, true), reference = run(0, false);
    QVERIFY2(std::abs(centre_mm(band.profile) - x0_mm) < 1.0, qPrintable(QString::number(centre_mm(band.profile))));
    QVERIFY2(std::abs(centre_mm(centred.profile)) < 1.0, qPrintable(QString::number(centre_mm(centred.profile))));
    // With the compensating phase offset the band's spins carry the phase of an unshifted slice.
    QVERIFY(std::abs(band.mxy_at_band) > 0.5 * std::abs(reference.mxy_at_band));
    const double dphi = std::arg(band.mxy_at_band * std::conj(reference.mxy_at_band));
    QVERIFY2(std::abs(dphi) < 0.05, qPrintable(QString("phase %1 rad").arg(dphi)));
  }
  // Following the RF phase in the simulated frame (for callers that do not demodulate) gives the same
  // demodulated samples as demodulating afterwards: bSSFP's 0/180° and RF spoiling's quadratic phase.
  void followingTheRfPhaseEqualsDemodulation_data() {
    QTest::addColumn<QString>("type");
    QTest::newRow("bssfp") << "bssfp";
    QTest::newRow("rf-spoiled gre") << "spoiled_gre";
  }
  void followingTheRfPhaseEqualsDemodulation() {
    QFETCH(QString, type);
    CartesianParams p;
    p.matrix = 16;
    p.dummy_scans = 10;
    const BuiltSequence b = build_blocks(parse_sequence_type(type.toStdString()).value(), p);
    CellPhantom ph = uniform_phantom(32, p.fov_m);
    for (std::size_t i = 0; i < ph.size(); ++i) ph.dB_T[i] = static_cast<float>(2e-7 * static_cast<double>(i % 32) / 32);
    ConversionOptions follow{20e-6};
    follow.follow_rf_phase = true;
    std::vector<std::complex<float>> s[2];
    double residual[2] = {0, 0};
    int k = 0;
    for (const ConversionOptions& o : {ConversionOptions{20e-6}, follow}) {
      const ProgramConversion c = to_sequence_program(b.seq, o);
      for (double d : c.demod_phase_rad) residual[k] = std::max(residual[k], std::abs(std::remainder(d, 2 * M_PI)));
      s[k].resize(static_cast<std::size_t>(c.program.readouts) * c.program.nx);
      std::vector<std::complex<float>> truth(ph.size());
      CpuSimulationEngine engine(2);
      engine.run(ph, c.program, s[k], truth, {}, {});
      demodulate(c, s[k], 1);
      ++k;
    }
    QVERIFY(residual[0] > 0.1);   // the RF phase does vary ...
    QVERIFY(residual[1] < 1e-9);  // ... and following it leaves nothing to demodulate
    QCOMPARE(s[0].size(), s[1].size());
    double peak = 0, diff = 0;
    for (std::size_t i = 0; i < s[0].size(); ++i) {
      peak = std::max(peak, double(std::abs(s[0][i])));
      diff = std::max(diff, double(std::abs(s[0][i] - s[1][i])));
    }
    QVERIFY2(diff < 1e-3 * peak, qPrintable(QString("max difference %1 of peak %2").arg(diff).arg(peak)));
  }
  void writeGreSimulatesWithCentreWhereTheFileSays_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("write_gre") << "write_gre.seq";
    QTest::newRow("write_gre_label") << "write_gre_label.seq";
  }
  void writeGreSimulatesWithCentreWhereTheFileSays() {
    QFETCH(QString, file);
    const std::string path = testdata_dir() + "/" + file.toStdString();
    if (testdata_dir().empty() || !std::filesystem::exists(path)) QSKIP("shared/testdata/pulseq not present");
    const BlockSequence s = read_pulseq(path);
    const ProgramConversion c = to_sequence_program(s, {20e-6});
    QVERIFY(!c.per_sample_readouts);
    const CellPhantom ph = uniform_phantom(32, s.fov_m[0]);
    std::vector<std::complex<float>> samples(static_cast<std::size_t>(c.program.readouts) * c.program.nx);
    std::vector<std::complex<float>> truth(ph.size());
    CpuSimulationEngine engine(2);
    engine.run(ph, c.program, samples, truth, {}, {});
    demodulate(c, samples, 1);
    std::size_t peak = 0;
    for (std::size_t i = 0; i < samples.size(); ++i)
      if (std::abs(samples[i]) > std::abs(samples[peak])) peak = i;
    const int adc = static_cast<int>(peak) / c.program.nx, sample = static_cast<int>(peak) % c.program.nx;
    QCOMPARE(adc, c.k0_adc);
    QVERIFY2(std::abs(sample - c.k0_sample) <= 1, qPrintable(QString("peak at %1, k0 at %2").arg(sample).arg(c.k0_sample)));
    // The readout through k = 0 is the central line: by its LIN label, or by order without labels.
    const int lines = c.program.ny;
    QCOMPARE(c.adc_line[c.k0_adc], lines / 2);
    // Signal at the centre: the transverse magnetisation summed over the object, of plausible size
    // for a spoiled steady state (well above zero, below the proton count).
    QVERIFY(std::abs(samples[peak]) > 0.01 * ph.size());
    QVERIFY(std::abs(samples[peak]) < ph.size());
  }
};

QTEST_GUILESS_MAIN(TestPulseq)
#include "test_pulseq.moc"
