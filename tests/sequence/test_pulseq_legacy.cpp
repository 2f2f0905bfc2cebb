// Pulseq files of the formats before 1.4 (1.2, 1.3), as the MATLAB Pulseq toolbox wrote them
// (tests/data/pulseq/README.md): read, checked against values worked out from the files by other means,
// converted alike when rewritten as 1.4; hand-written legacy rows; malformed legacy input, unknown versions.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "files.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

using namespace mrwb;
using namespace mrwb::seq;

namespace {
std::string data_path(const QString& name) {
  const char* src = std::getenv("MRWB_SOURCE_DIR");
  return (src ? std::string(src) : std::string(".")) + "/tests/data/pulseq/" + name.toStdString();
}

// The rows of one section of a .seq text, comments and blank lines left out.
std::vector<std::vector<std::string>> section_rows(const std::string& text, const std::string& section) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line.substr(0, line.find('#')));
    std::vector<std::string> tok;
    for (std::string t; ls >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    if (tok[0].front() == '[') {
      inside = tok[0] == "[" + section + "]";
      continue;
    }
    if (inside) rows.push_back(tok);
  }
  return rows;
}

// The sample counts of the [SHAPES] section, as its num_samples lines state them (no decompression).
std::map<int, double> shape_lengths(const std::string& text) {
  std::map<int, double> n;
  int id = -1;
  for (const auto& r : section_rows(text, "SHAPES")) {
    if (r[0] == "shape_id") id = std::stoi(r[1]);
    else if (r[0] == "num_samples") n[id] = std::stod(r[1]);
  }
  return n;
}

// Counted from the text itself, without the reader: blocks, ADCs and their samples, per axis the summed areas
// of the trapezoids the blocks play, amplitude·(rise/2 + flat + fall/2) with times in us, and the total duration
// by the 1.2 / 1.3 rule (a block lasts as long as its delay event or its longest event, on the 10 us raster:
// RF delay + samples x 1 us, trapezoid rise + flat + fall + delay, arbitrary gradient delay + samples x 10 us,
// ADC delay + num x dwell).
struct Counted {
  std::size_t blocks = 0;
  int adcs = 0;
  long long samples = 0;
  double trap_area[3] = {0, 0, 0};
  double duration_s = 0;
};
Counted count_text(const std::string& text) {
  Counted c;
  const std::map<int, double> shape_n = shape_lengths(text);
  std::map<int, double> area, samples, delay_us, rf_us, grad_us, adc_us;
  for (const auto& r : section_rows(text, "TRAP")) {
    area[std::stoi(r[0])] = std::stod(r[1]) * (std::stod(r[2]) / 2 + std::stod(r[3]) + std::stod(r[4]) / 2) * 1e-6;
    grad_us[std::stoi(r[0])] = std::stod(r[2]) + std::stod(r[3]) + std::stod(r[4]) + std::stod(r[5]);
  }
  for (const auto& r : section_rows(text, "GRADIENTS"))  // id amp shape delay
    grad_us[std::stoi(r[0])] = std::stod(r[3]) + 10 * shape_n.at(std::stoi(r[2]));
  for (const auto& r : section_rows(text, "RF"))  // id amp mag phase delay freq phase
    rf_us[std::stoi(r[0])] = std::stod(r[4]) + shape_n.at(std::stoi(r[2]));
  for (const auto& r : section_rows(text, "ADC")) {  // id num dwell_ns delay_us freq phase
    samples[std::stoi(r[0])] = std::stod(r[1]);
    adc_us[std::stoi(r[0])] = std::stod(r[3]) + std::stod(r[1]) * std::stod(r[2]) * 1e-3;
  }
  for (const auto& r : section_rows(text, "DELAYS")) delay_us[std::stoi(r[0])] = std::stod(r[1]);
  long long total_10us = 0;
  for (const auto& r : section_rows(text, "BLOCKS")) {
    ++c.blocks;
    double us = 0;
    if (const int d = std::stoi(r[1])) us = delay_us.at(d);
    if (const int rf = std::stoi(r[2])) us = std::max(us, rf_us.at(rf));
    for (int a = 0; a < 3; ++a) {
      const int g = std::stoi(r[3 + a]);
      if (auto it = area.find(g); it != area.end()) c.trap_area[a] += it->second;
      if (g) us = std::max(us, grad_us.at(g));
    }
    if (const int adc = std::stoi(r[6])) {
      ++c.adcs;
      c.samples += static_cast<long long>(samples.at(adc));
      us = std::max(us, adc_us.at(adc));
    }
    total_10us += static_cast<long long>(std::ceil(us / 10 - 1e-6));
  }
  c.duration_s = total_10us * 10e-6;
  return c;
}

double trap_area(const BlockSequence& s, int axis) {
  double sum = 0;
  for (const Block& b : s.blocks) {
    const std::optional<Gradient>& g = axis == 0 ? b.gx : axis == 1 ? b.gy : b.gz;
    if (g && g->type == Gradient::Type::Trap) sum += g->area_Hz_s_per_m(s.sys.grad_raster_s);
  }
  return sum;
}

struct KPoint {
  int adc, sample;
  double k[3];  // cycles/m
};

// One legacy line: expects InputError naming t.seq and the line, on one line.
void expect_error(const std::string& text, const QString& expect) {
  try {
    parse_pulseq(text, "t.seq");
    QFAIL("no error");
  } catch (const InputError& e) {
    QVERIFY2(QString(e.what()).contains(expect), e.what());
    QVERIFY2(!QString(e.what()).contains('\n'), e.what());
  }
}

const std::string head12 = "[VERSION]\nmajor 1\nminor 2\nrevision 0\n";  // lines 1-4
const std::string head13 = "[VERSION]\nmajor 1\nminor 3\nrevision 1\n";
}  // namespace

Q_DECLARE_METATYPE(std::vector<KPoint>)

class TestPulseqLegacy : public QObject {
  Q_OBJECT
 private slots:
  // The real files: counts and trapezoid moments against the text, the total duration against an independent
  // value, and k at ADC samples against an independent integration of the file's gradients.
  void realFilesRead_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("minor");
    QTest::addColumn<double>("duration_s");  // 0: the file's own TotalDuration definition
    QTest::addColumn<std::vector<KPoint>>("kpoints");
    // The k values come from a separate Python reading of each file (1.2 / 1.3 rules: delay events, all
    // shapes compressed, block = longest event on the 10 us raster; arbitrary gradients piecewise linear
    // through the raster centres, edges restored as MATLAB's read.m does; k = 0 at each RF centre). Its
    // total for trufi_v130 equals the file's TotalDuration 1.19601 s written by MATLAB.
    QTest::newRow("1.2 trufi") << "trufi_v120.seq" << 2 << 1.17036
                               << std::vector<KPoint>{{0, 0, {-579.472793, -581.815400, 0.322182}},
                                                      {0, 128, {2.345576, -581.815400, 0.322182}},
                                                      {0, 255, {579.618488, -581.815400, 0.322182}},
                                                      {127, 128, {2.345575, -4.545455, 0.322182}},
                                                      {255, 255, {579.618488, 577.272840, 0.322182}}};
    QTest::newRow("1.3 trufi") << "trufi_v130.seq" << 3 << 0.0
                               << std::vector<KPoint>{{0, 0, {-579.473339, -581.818100, 0.381832}},
                                                      {0, 128, {2.344837, -581.818100, 0.381832}},
                                                      {0, 255, {579.617558, -581.818100, 0.381832}},
                                                      {127, 128, {2.344837, -4.545455, 0.381832}},
                                                      {255, 255, {579.617558, 577.270800, 0.381832}}};
    // The other pypulseq legacy files (README): counts, trapezoid moments and duration, no k values. trufi_v131
    // is trufi_v130 with two zero trapezoids given 10 us ramps; simple_mprage130 / 131 differ alike.
    // simple_mprage120 has no TotalDuration: its RF shapes hold 100 leading zero samples besides the 100 us RF
    // delay, so its RF blocks outlast the 1.3 file's (3220 vs 3150 us); 0.57624 s from the same separate
    // Python reading, and the in-test count of the text gives it too.
    QTest::newRow("1.3.1 trufi") << "trufi_v131.seq" << 3 << 0.0 << std::vector<KPoint>{};
    QTest::newRow("1.2 mprage") << "simple_mprage120.seq" << 2 << 0.57624 << std::vector<KPoint>{};
    QTest::newRow("1.3 mprage") << "simple_mprage130.seq" << 3 << 0.0 << std::vector<KPoint>{};
    QTest::newRow("1.3.1 mprage") << "simple_mprage131.seq" << 3 << 0.0 << std::vector<KPoint>{};
  }
  void realFilesRead() {
    QFETCH(QString, file);
    QFETCH(int, minor);
    QFETCH(double, duration_s);
    QFETCH(std::vector<KPoint>, kpoints);
    const std::string path = data_path(file);
    const std::string text = mrwb::test::read_file(path);
    QVERIFY2(!text.empty(), path.c_str());
    QVERIFY(text.find("minor " + std::to_string(minor)) != std::string::npos);
    const BlockSequence s = read_pulseq(path);
    const Counted c = count_text(text);
    QCOMPARE(s.blocks.size(), c.blocks);
    QCOMPARE(s.adc_samples(), c.samples);
    int adcs = 0;
    for (const Block& b : s.blocks) adcs += b.adc.has_value();
    QCOMPARE(adcs, c.adcs);
    for (int a = 0; a < 3; ++a)
      QVERIFY2(std::abs(trap_area(s, a) - c.trap_area[a]) <= 1e-9 * std::abs(c.trap_area[a]) + 1e-9,
               qPrintable(QString("axis %1: %2 vs %3").arg(a).arg(trap_area(s, a)).arg(c.trap_area[a])));
    if (duration_s == 0) {
      const auto td = text.find("TotalDuration");
      QVERIFY(td != std::string::npos);
      duration_s = std::atof(text.c_str() + td + 14);
    }
    QVERIFY2(std::abs(s.duration_s() - duration_s) < 1e-6, qPrintable(QString::number(s.duration_s(), 'g', 12)));
    // The text's own count agrees with the expected total (MATLAB's TotalDuration or the separate reading).
    QVERIFY2(std::abs(c.duration_s - duration_s) < 1e-6, qPrintable(QString::number(c.duration_s, 'g', 12)));
    // No [DEFINITIONS] rasters before 1.4: the Pulseq defaults.
    QCOMPARE(s.sys.grad_raster_s, 10e-6);
    QCOMPARE(s.sys.rf_raster_s, 1e-6);
    QCOMPARE(s.sys.adc_raster_s, 100e-9);
    QCOMPARE(s.sys.block_raster_s, 10e-6);
    QVERIFY(s.warnings.empty());  // every block lands on the raster

    const ProgramConversion p = to_sequence_program(s);
    QCOMPARE(p.adc_count, c.adcs);
    const double* k3[3] = {p.kx.data(), p.ky.data(), p.kz.data()};
    for (const KPoint& kp : kpoints) {
      const std::size_t i = static_cast<std::size_t>(kp.adc) * 256 + kp.sample;
      QVERIFY(i < p.kx.size());
      // 1e-3 cycles/m (the k step here is 4.5): the two readings restore an arbitrary gradient's last edge
      // value in different ways (linear extrapolation, read.m's odd-step rule).
      for (int a = 0; a < 3; ++a)
        QVERIFY2(std::abs(k3[a][i] - kp.k[a]) < 1e-3,
                 qPrintable(QString("ADC %1 sample %2 axis %3: %4, expected %5")
                                .arg(kp.adc).arg(kp.sample).arg(a).arg(k3[a][i], 0, 'f', 6).arg(kp.k[a], 0, 'f', 6)));
    }
  }

  // A legacy file rewritten by our writer as 1.4 and read back converts to the same k at every ADC sample.
  void legacyMatchesItsRewriteAs14_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("1.2") << "trufi_v120.seq";
    QTest::newRow("1.3") << "trufi_v130.seq";
    QTest::newRow("1.3.1") << "trufi_v131.seq";
    QTest::newRow("1.2 mprage") << "simple_mprage120.seq";
    QTest::newRow("1.3 mprage") << "simple_mprage130.seq";
    QTest::newRow("1.3.1 mprage") << "simple_mprage131.seq";
  }
  void legacyMatchesItsRewriteAs14() {
    QFETCH(QString, file);
    const BlockSequence s = read_pulseq(data_path(file));
    const std::string text = pulseq_text(s, 4);
    QVERIFY(text.find("minor 4") != std::string::npos);
    const BlockSequence r = parse_pulseq(text, "rewrite.seq");
    QCOMPARE(r.blocks.size(), s.blocks.size());
    QVERIFY(std::abs(r.duration_s() - s.duration_s()) < 1e-9);
    const ProgramConversion a = to_sequence_program(s), b = to_sequence_program(r);
    QCOMPARE(b.kx.size(), a.kx.size());
    QVERIFY(!a.kx.empty());
    double worst = 0, peak = 0;
    for (std::size_t i = 0; i < a.kx.size(); ++i) {
      QVERIFY(std::abs(a.sample_time_s[i] - b.sample_time_s[i]) < 1e-12);
      worst = std::max({worst, std::abs(a.kx[i] - b.kx[i]), std::abs(a.ky[i] - b.ky[i]), std::abs(a.kz[i] - b.kz[i])});
      peak = std::max({peak, std::abs(a.kx[i]), std::abs(a.ky[i])});
    }
    // Shapes are requantised to 1e-7 on writing; k agrees to far below the k step (4.5 cycles/m).
    QVERIFY2(worst < 1e-3, qPrintable(QString("max |dk| %1 of |k| up to %2").arg(worst).arg(peak)));
    QCOMPARE(b.k0_adc, a.k0_adc);
    QCOMPARE(b.k0_sample, a.k0_sample);
  }

  // Hand-written rows in the 1.2 / 1.3 layouts: a delay event sets the block's length unless an event lasts
  // longer; the RF row has no time shape, centre or use; the durations land on the block raster.
  void delaysAndLegacyRows_data() {
    QTest::addColumn<QString>("head");
    QTest::addColumn<QString>("ext");  // the 1.3 block column
    QTest::newRow("1.2") << QString::fromStdString(head12) << "";
    QTest::newRow("1.3") << QString::fromStdString(head13) << " 0";
  }
  void delaysAndLegacyRows() {
    QFETCH(QString, head);
    QFETCH(QString, ext);
    const QString text = head +
                         "[BLOCKS]\n"
                         "1 1 0 0 0 0 0" + ext + "\n"   // the delay alone: 250 us
                         "2 2 0 1 0 0 0" + ext + "\n"   // a 140 us trapezoid outlasts the 10 us delay
                         "3 0 1 0 0 0 0" + ext + "\n"   // RF: 20 us delay + 4 samples, up to 30 us
                         "4 0 0 0 0 0 1" + ext + "\n"   // ADC: 5 us + 8 x 2.5 us = 25 us, up to 30 us
                         "[RF]\n1 100 1 2 20 50 0.5\n"
                         "[TRAP]\n1 1000 20 100 20 0\n"
                         "[ADC]\n1 8 2500 5 0 0\n"
                         "[DELAYS]\n1 250\n2 10\n"
                         "[SHAPES]\nshape_id 1\nnum_samples 4\n0.5\n0.5\n0\n0\n-0.5\n"  // 0.5 1 1 0.5
                         "shape_id 2\nnum_samples 4\n0\n0\n2\n";
    const BlockSequence s = parse_pulseq(text.toStdString(), "t.seq");
    QCOMPARE(s.blocks.size(), std::size_t(4));
    const double want[4] = {250e-6, 140e-6, 30e-6, 30e-6};
    for (int i = 0; i < 4; ++i)
      QVERIFY2(std::abs(s.blocks[i].duration_s - want[i]) < 1e-12,
               qPrintable(QString("block %1: %2").arg(i + 1).arg(s.blocks[i].duration_s)));
    QCOMPARE(s.warnings.size(), std::size_t(2));  // blocks 3 and 4 were rounded up
    const RfPulse& rf = *s.blocks[2].rf;
    const std::vector<double> mag = {0.5, 1, 1, 0.5};
    QCOMPARE(rf.mag, mag);
    QVERIFY(rf.time.empty());
    QCOMPARE(rf.use, 'u');
    QVERIFY(std::abs(rf.delay_s - 20e-6) < 1e-15);
    QVERIFY(std::abs(rf.center_s - 2e-6) < 1e-15);  // the middle of the plateau, samples 1 and 2
    QCOMPARE(rf.freq_Hz, 50.0);
    QCOMPARE(rf.phase_rad, 0.5);
    QCOMPARE(s.blocks[3].adc->num_samples, 8);
  }

  // Before 1.4 a shape is compressed even when it stores as many values as it has samples: 1 2 3 is the
  // derivative of 1 3 6 (as read.m reads the 1.2 / 1.3 format); from 1.4 on the same rows are the samples.
  void legacyShapesAreAlwaysCompressed() {
    const std::string shape = "[SHAPES]\nshape_id 1\nnum_samples 3\n1\n2\n3\n";
    const BlockSequence old =
        parse_pulseq(head12 + "[BLOCKS]\n1 0 0 1 0 0 0\n[GRADIENTS]\n1 1000 1 0\n" + shape, "t.seq");
    const BlockSequence now = parse_pulseq("[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 3 0 1 0 0 0 0\n"
                                           "[GRADIENTS]\n1 1000 1 0 0\n" + shape, "t.seq");
    QCOMPARE(old.blocks[0].gx->waveform, (std::vector<double>{1, 3, 6}));
    QCOMPARE(now.blocks[0].gx->waveform, (std::vector<double>{1, 2, 3}));
    QVERIFY(std::abs(old.blocks[0].duration_s - 30e-6) < 1e-12);  // three gradient raster steps
  }

  // Arbitrary gradients split across blocks continue: the next block's gradient starts where this one ended
  // (Pulseq 1.4 semantics, which read.m gives legacy files too).
  void splitGradientsJoin() {
    const BlockSequence s = read_pulseq(data_path("trufi_v120.seq"));
    const Block &b1 = s.blocks[0], &b2 = s.blocks[1];
    QVERIFY(b1.gz && b2.gz);
    QCOMPARE(b1.gz->type, Gradient::Type::Arbitrary);
    QVERIFY(std::abs(b1.gz->last_Hz_per_m) > 1e5);  // the slice-select ramp is cut mid-way
    QCOMPARE(b2.gz->first_Hz_per_m, b1.gz->last_Hz_per_m);
  }

  void malformedLegacyInputNamesFileAndLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expect");
    const QString h12 = QString::fromStdString(head12), h13 = QString::fromStdString(head13);
    QTest::newRow("missing delay id") << h12 + "[BLOCKS]\n1 3 0 0 0 0 0\n[DELAYS]\n1 100\n"
                                      << "t.seq:6: delay 3 is not defined";
    QTest::newRow("bad gradient ref, 7 columns") << h12 + "[BLOCKS]\n1 0 0 4 0 0 0\n" << "t.seq:6: gradient 4";
    QTest::newRow("bad rf ref, 7 columns") << h12 + "[BLOCKS]\n1 0 2 0 0 0 0\n" << "t.seq:6: RF 2";
    QTest::newRow("bad adc ref, 8 columns") << h13 + "[BLOCKS]\n1 0 0 0 0 0 5 0\n" << "t.seq:6: ADC 5";
    QTest::newRow("1.2 block with 8 columns") << h12 + "[BLOCKS]\n1 0 0 0 0 0 0 0\n" << "t.seq:6: [BLOCKS] expects 7";
    QTest::newRow("1.3 block with 7 columns") << h13 + "[BLOCKS]\n1 0 0 0 0 0 0\n" << "t.seq:6: [BLOCKS] expects 8";
    QTest::newRow("negative delay id") << h12 + "[BLOCKS]\n1 -1 0 0 0 0 0\n" << "t.seq:6: negative delay id";
    QTest::newRow("negative delay") << h12 + "[DELAYS]\n1 -5\n" << "t.seq:6: negative delay";
    QTest::newRow("1.4 RF row in 1.2") << h12 + "[RF]\n1 100 1 2 0 0 0 0\n" << "t.seq:6: [RF] expects 7";
    QTest::newRow("1.4 gradient row in 1.3") << h13 + "[GRADIENTS]\n1 100 1 0 0\n" << "t.seq:6: [GRADIENTS] expects 4";
    QTest::newRow("shape too long") << h12 + "[SHAPES]\nshape_id 1\nnum_samples 2000000000\n0\n0\n1999999998\n"
                                    << "t.seq:6: shape: num_samples 2000000000 is out of range";
    QTest::newRow("version 1.1") << QString("[VERSION]\nmajor 1\nminor 1\n")
                                 << "t.seq:3: Pulseq version 1.1 is not supported (allowed: 1.2, 1.3, 1.4, 1.5)";
    QTest::newRow("version 1.6") << QString("# file\n[VERSION]\nmajor 1\nminor 6\nrevision 0\n")
                                 << "t.seq:4: Pulseq version 1.6";
    QTest::newRow("version 2.4") << QString("[VERSION]\nminor 4\nmajor 2\n") << "t.seq:3: Pulseq version 2.4";
    QTest::newRow("no version") << QString("[BLOCKS]\n1 0 0 0 0 0 0\n") << "t.seq:1: Pulseq version 0.0";
  }
  void malformedLegacyInputNamesFileAndLine() {
    QFETCH(QString, text);
    QFETCH(QString, expect);
    expect_error(text.toStdString(), expect);
  }
};

QTEST_GUILESS_MAIN(TestPulseqLegacy)
#include "test_pulseq_legacy.moc"
