// Hostile input through the CLI end to end: Pulseq files, scenario JSON, ISMRMRD and BART files that once
// crashed, hung, died of std::bad_alloc, were silently accepted or gave messages without the file. Each
// must exit 2 with exactly one line on stderr naming the input file and the field (or line), print nothing
// on stdout, leave its output folder empty (no output, no temp file) and stay under 1 GB of memory.
#include <QDir>
#include <QTest>

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <sstream>

#include "../sequence/hostile_pulseq.hpp"
#include "files.hpp"
#include "ismrmrd_header.hpp"
#include "cli_refusal.hpp"
#include "process_runner.hpp"

namespace {


using mrwb_test::peak_child_rss_bytes;

// A small valid scenario (64² spoiled GRE on a disc) with `sequence` fields (the matrix among them).
QByteArray scenario(const QByteArray& sequence_fields = R"("matrix": 64)", const QByteArray& more = {}) {
  return R"({"format": "mrwb-scenario", "version": 1, "phantom": {"preset": "uniform_disc", "cells_per_voxel": 1},
             "sequence": {"dummy_scans": 2, )" + sequence_fields + "}" + more + "}";
}

// A Cartesian ISMRMRD header of x*y*z over 2 coils.
std::string header_xml(int x, int y, int z) { return mrwb_test::cartesian_header_xml(x, y, z, 2); }

// `xml` with the first `from` after `anchor` replaced by `to` (empty when either is missing).
std::string edited(std::string xml, const std::string& anchor, const std::string& from, const std::string& to) {
  const std::size_t a = xml.find(anchor);
  const std::size_t at = a == std::string::npos ? a : xml.find(from, a);
  return at == std::string::npos ? std::string() : xml.replace(at, from.size(), to);
}

// A fully sampled 16x8, 2-coil raw file with header `xml` (libismrmrd does not check what it writes).
void write_raw_file(const std::string& path, const std::string& xml) {
  ISMRMRD::Dataset d(path.c_str(), "dataset", true);
  d.writeHeader(xml);
  for (int line = 0; line < 8; ++line) {
    ISMRMRD::Acquisition acq(16, 2);
    acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(line);
    d.appendAcquisition(acq);
  }
}

// /dataset/xml rewritten as a scalar variable-length UTF-8 string (libismrmrd writes ASCII).
bool rewrite_xml_as_utf8(const std::string& path, const std::string& xml) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) return false;
  H5Ldelete(f, "/dataset/xml", H5P_DEFAULT);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, H5T_VARIABLE);
  H5Tset_cset(st, H5T_CSET_UTF8);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t d = H5Dcreate2(f, "/dataset/xml", st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const char* p = xml.c_str();
  const bool ok = d >= 0 && H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p) >= 0;
  if (d >= 0) H5Dclose(d);
  H5Sclose(sp);
  H5Tclose(st);
  H5Fclose(f);
  return ok;
}

}  // namespace

class TestCliHostileInput : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  int case_ = 0;

  // A fresh input folder and a fresh, empty output folder for one case.
  QString in_dir_, out_dir_;
  void fresh_folders() {
    ++case_;
    in_dir_ = dir_.filePath(QString("in%1").arg(case_));
    out_dir_ = dir_.filePath(QString("out%1").arg(case_));
    QVERIFY(QDir().mkpath(in_dir_) && QDir().mkpath(out_dir_));
  }
  QString in(const QString& name) const { return in_dir_ + "/" + name; }
  QString out(const QString& name) const { return out_dir_ + "/" + name; }
  QString write(const QString& name, const QByteArray& bytes) {
    return mrwb::test::write_file(in(name), bytes) ? in(name) : QString();
  }

  void expectRefused(const QStringList& args, const QStringList& expect) {
    mrwb_test::expect_refused(out_dir_, args, expect);
  }

  // A Pulseq file refused by `mrwb sequence --plot` and by `mrwb simulate --seq`, both naming it.
  void expectSeqRefused(const QByteArray& text, const QStringList& expect) {
    fresh_folders();
    const QString seq = write("hostile.seq", text);
    const QString sc = write("scenario.json", scenario());
    QVERIFY(!seq.isEmpty() && !sc.isEmpty());
    const QStringList where = QStringList{"hostile.seq:"} + expect;
    expectRefused({"sequence", "--in", seq, "--plot", out("diagram.png")}, where);
    if (QTest::currentTestFailed()) return;
    // --quiet: the progress is not part of the refusal (seqRefusedWithoutQuiet runs without it).
    expectRefused({"simulate", "--scenario", sc, "--seq", seq, "--out", out("raw.h5"), "--truth", out("truth.png"), "--quiet"},
                  where);
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }
  void cleanupTestCase() { qInfo("peak memory of any mrwb run: %lld MB", peak_child_rss_bytes() / 1000000); }

  // --- Pulseq (.seq) ---
  // The fuzzed files shared with the reader's tests: zero-sample shapes, negative labels, absurd durations and
  // rasters, a 1e12 time shape, FOVs that are no length.
  void knownHostileSeq_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expect");
    for (const auto& h : mrwb_test::hostile_seqs()) QTest::newRow(h.name) << h.text << h.expect;
  }
  void knownHostileSeq() {
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expect);
    expectSeqRefused(text, expect);
  }
  // Sizes that asked for gigabytes, negative delays and times, non-finite definitions.
  void moreHostileSeq_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expect");
    const QByteArray h = mrwb_test::hostile_head();
    const QByteArray two_samples = "\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n1\n1\n";
    QTest::newRow("ADC of 2e9 samples") << h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 2000000000 100 0 0 0\n"
                                        << QStringList{":16:", "[ADC] num 2000000000", "allowed: 1..65535"};
    QTest::newRow("ADC of 1e8 samples") << h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 100000000 100 0 0 0\n"
                                        << QStringList{":16:", "[ADC] num 100000000", "allowed: 1..65535"};
    QTest::newRow("shape of 2e9 samples")
        << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2000000000\n0\n0\n1999999998\n"
        << QStringList{":19:", "num_samples 2000000000", "[SHAPES] shape_id 1", "allowed: 1..4194304"};
    QTest::newRow("shape of 1e8 samples")
        << h + "[BLOCKS]\n1 100 1 0 0 0 0 0\n\n[RF]\n1 100 1 1 0 0 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 100000000\n1\n1\n99999998\n"
        << QStringList{":19:", "num_samples 100000000", "[SHAPES] shape_id 1", "allowed: 1..4194304"};
    QTest::newRow("negative RF delay") << h + "[BLOCKS]\n1 100 1 0 0 0 0 0\n\n[RF]\n1 100 1 1 0 -50 0 0" + two_samples
                                       << QStringList{":16:", "RF delay -50 us", "allowed: 0..8.64e+10 us"};
    QTest::newRow("negative ADC delay") << h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 -50 0 0\n"
                                        << QStringList{":16:", "[ADC] delay -50 us", "allowed: 0..8.64e+10 us"};
    QTest::newRow("negative trapezoid rise") << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[TRAP]\n1 1000 -10 100 10 0\n"
                                             << QStringList{":16:", "[TRAP] rise time -10 us", "allowed: 0..8.64e+10 us"};
    QTest::newRow("negative trapezoid delay") << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[TRAP]\n1 1000 10 100 10 -20\n"
                                              << QStringList{":16:", "[TRAP] delay time -20 us", "allowed: 0..8.64e+10 us"};
    QTest::newRow("negative gradient delay")
        << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 0 -20" + two_samples
        << QStringList{":16:", "gradient delay -20 us", "allowed: 0..8.64e+10 us"};
    QTest::newRow("negative gradient time")
        << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 2 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n0\n1\n\n"
               "shape_id 2\nnum_samples 2\n-5\n1\n"
        << QStringList{":16:", "gradient time shape sample 1 = -5", "allowed: non-decreasing"};
    QTest::newRow("AdcRasterTime inf") << mrwb_test::hostile_head("AdcRasterTime inf\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n"
                                       << QStringList{":7:", "[DEFINITIONS] AdcRasterTime 'inf'", "allowed: 1e-09..0.001 s"};
    // B0 1e999 became inf, and the ppm offsets NaN samples.
    QTest::newRow("B0 1e999") << mrwb_test::hostile_head("B0 1e999\n") + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 0 0 0\n"
                              << QStringList{":7:", "[DEFINITIONS] B0 '1e999'", "allowed: > 0, <= 30 T"};
    QTest::newRow("B0 1e300") << mrwb_test::hostile_head("B0 1e300\n") + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 0 0 0\n"
                              << QStringList{":7:", "[DEFINITIONS] B0 '1e300'", "allowed: > 0, <= 30 T"};
    QTest::newRow("LABELSET above 16 bits")
        << h + "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\nextension LABELSET 1\n1 70000 SET\n"
        << QStringList{":21:", "[EXTENSIONS] LABELSET value 70000", "allowed: 0..65535"};
    // Every SET value is a raw-data file of its own: 2001 (SET 2000) and 3001 (LABELINC 3000) files were written,
    // 9799 before the 60 s limit for SET 65535.
    const QByteArray adc_with_label = h + "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\n";
    QTest::newRow("LABELSET SET 2000") << adc_with_label + "extension LABELSET 1\n1 2000 SET\n"
                                       << QStringList{":13:", "label SET is 2000", "2001 SET segments",
                                                      "allowed: SET 0..63, at most 64 segments"};
    QTest::newRow("LABELSET SET 65535") << adc_with_label + "extension LABELSET 1\n1 65535 SET\n"
                                        << QStringList{":13:", "label SET is 65535", "65536 SET segments",
                                                       "allowed: SET 0..63, at most 64 segments"};
    QTest::newRow("LABELINC SET 3000") << adc_with_label + "extension LABELINC 1\n1 3000 SET\n"
                                       << QStringList{":13:", "label SET is 3000", "3001 SET segments",
                                                      "allowed: SET 0..63, at most 64 segments"};
    // LIN 65535 makes 65536 lines, one more than ISMRMRD holds; the refusal named the output file.
    QTest::newRow("LABELSET LIN 65535") << adc_with_label + "extension LABELSET 1\n1 65535 LIN\n"
                                        << QStringList{":13:", "label LIN is 65535", "65536 k-space lines",
                                                       "allowed: LIN 0..65534, at most 65535 lines"};
    // 65535 lines of 65535 samples: 34 GB of k-space per coil.
    QTest::newRow("LIN 65534 x 65535 samples")
        << h + "[BLOCKS]\n1 1000 0 0 0 0 1 1\n\n[ADC]\n1 65535 100 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\n"
               "extension LABELSET 1\n1 65534 LIN\n"
        << QStringList{":13:", "1 SET segments x 65535 lines x 65535 samples", "allowed: <= 16777216 per coil"};
    // ADCs that repeat one line: laid out small, but every sample is played (the program keeps each).
    QByteArray repeats = h + "[BLOCKS]\n";
    for (int i = 1; i <= 10; ++i) repeats += QByteArray::number(i) + " 700 0 0 0 0 1 0\n";
    QTest::newRow("10 ADCs of 65535 samples") << repeats + "\n[ADC]\n1 65535 100 0 0 0\n"
                                              << QStringList{":21:", "the ADCs play 589815 samples by block 9",
                                                             "allowed: <= 524288 in the whole sequence"};
    // Finite but absurd physical values: RF of 1e300 Hz was simulated (NaN spins) and drawn.
    QTest::newRow("RF amplitude 1e300")
        << h + "[BLOCKS]\n1 100 1 0 0 0 0 0\n2 100 0 0 0 0 1 0\n\n[RF]\n1 1e300 1 1 0 0 0 0\n\n[ADC]\n1 64 10000 0 0 0" +
               two_samples
        << QStringList{":17:", "[RF] amplitude 1e300 Hz", "allowed: -100000..100000 Hz"};
    QTest::newRow("RF phase 1e300") << h + "[BLOCKS]\n1 100 1 0 0 0 0 0\n\n[RF]\n1 100 1 1 0 0 0 1e300" + two_samples
                                    << QStringList{":16:", "[RF] phase 1e300 rad", "allowed: -1e+06..1e+06 rad"};
    QTest::newRow("RF frequency -1e300") << h + "[BLOCKS]\n1 100 1 0 0 0 0 0\n\n[RF]\n1 100 1 1 0 0 -1e300 0" + two_samples
                                         << QStringList{":16:", "[RF] freq -1e300 Hz", "allowed: -1e+07..1e+07 Hz"};
    QTest::newRow("trapezoid amplitude 1e300") << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[TRAP]\n1 1e300 10 100 10 0\n"
                                               << QStringList{":16:", "[TRAP] amplitude 1e300 Hz/m", "allowed: -1e+09..1e+09 Hz/m"};
    QTest::newRow("gradient amplitude -1e300")
        << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 -1e300 1 0 0" + two_samples
        << QStringList{":16:", "[GRADIENTS] amplitude -1e300 Hz/m", "allowed: -1e+09..1e+09 Hz/m"};
    QTest::newRow("ADC frequency 1e300") << h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 0 1e300 0\n"
                                         << QStringList{":16:", "[ADC] freq 1e300 Hz", "allowed: -1e+07..1e+07 Hz"};
    QTest::newRow("ADC phase 1e300") << h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 0 0 1e300\n"
                                     << QStringList{":16:", "[ADC] phase 1e300 rad", "allowed: -1e+06..1e+06 rad"};
  }
  void moreHostileSeq() {
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expect);
    expectSeqRefused(text, expect);
  }

  // Without --quiet: the start banner came before the .seq was read, so a refusal made two lines. Every input
  // is checked before it now.
  // What only playing a file decides, with the scenario it is played on: slice and partition labels (a .seq
  // is simulated as one 2-D slice, so slices were laid over each other unseen) and the raw data of all coils.
  void seqRefusedWhenPlayed_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("coils");
    QTest::addColumn<QStringList>("expect");
    const QByteArray adc_with_label = mrwb_test::hostile_head() +
                                      "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\n";
    QTest::newRow("SLC 2") << adc_with_label + "extension LABELSET 1\n1 2 SLC\n" << QByteArray("2")
                           << QStringList{"hostile.seq: label SLC reaches 2 at the ADCs", "(allowed: 0;"};
    QTest::newRow("PAR 1") << adc_with_label + "extension LABELSET 1\n1 1 PAR\n" << QByteArray("2")
                           << QStringList{"hostile.seq: label PAR reaches 1 at the ADCs", "(allowed: 0;"};
    // 8192 lines of 2048 samples: 2^24 samples, the reader's bound per coil; 128 MiB a coil, 8 GiB for 64.
    QTest::newRow("2^24 samples x 64 coils")
        << mrwb_test::hostile_head() +
               "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 2048 100 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\nextension LABELSET 1\n1 8191 LIN\n"
        << QByteArray("64")
        << QStringList{"hostile.seq: the sequence's k-space for 64 coils needs 8589934592 bytes",
                       "(allowed: <= 4294967296 bytes"};
  }
  void seqRefusedWhenPlayed() {
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, coils);
    QFETCH(QStringList, expect);
    fresh_folders();
    const QString seq = write("hostile.seq", text);
    const QString sc = write("scenario.json", scenario(R"("matrix": 64)", R"(, "coils": {"count": )" + coils + "}"));
    QVERIFY(!seq.isEmpty() && !sc.isEmpty());
    expectRefused({"simulate", "--scenario", sc, "--seq", seq, "--out", out("raw.h5"), "--quiet"}, expect);
  }

  void seqRefusedWithoutQuiet_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expect");
    const QByteArray h = mrwb_test::hostile_head();
    QTest::newRow("B0 1e999") << mrwb_test::hostile_head("B0 1e999\n") + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 0 0 0\n"
                              << QStringList{"hostile.seq:7:", "[DEFINITIONS] B0 '1e999'"};
    QTest::newRow("LABELSET SET 2000")
        << h + "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\nextension LABELSET 1\n1 2000 SET\n"
        << QStringList{"hostile.seq:13:", "label SET is 2000", "allowed: SET 0..63"};
    QTest::newRow("no ADC") << h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[TRAP]\n1 1000 10 100 10 0\n"
                            << QStringList{"hostile.seq: the sequence has no ADC", "allowed: at least one block with an ADC"};
  }
  void seqRefusedWithoutQuiet() {
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expect);
    fresh_folders();
    const QString seq = write("hostile.seq", text);
    const QString sc = write("scenario.json", scenario());
    QVERIFY(!seq.isEmpty() && !sc.isEmpty());
    expectRefused({"simulate", "--scenario", sc, "--seq", seq, "--out", out("raw.h5"), "--truth", out("truth.png")}, expect);
  }

  // --- Scenario JSON ---
  // Refused on loading by `mrwb simulate`, `mrwb sequence --scenario` and `mrwb flow` alike.
  void hostileScenario_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("expect");
    // nlohmann's own text, without the file, with exit 1.
    QTest::newRow("number beyond a double") << scenario(R"("matrix": 64, "TR_s": 1e999)")
                                            << QStringList{"number overflow parsing '1e999'", "allowed: numbers within"};
    // Integers plus 2^32 wrapped to the small value (4294967328 simulated 32x32).
    QTest::newRow("matrix + 2^32") << scenario(R"("matrix": 4294967328)")
                                   << QStringList{"sequence.matrix = 4294967328", "allowed a 32-bit integer"};
    QTest::newRow("acceleration + 2^32") << scenario(R"("matrix": 64, "acceleration": 4294967298)")
                                        << QStringList{"sequence.acceleration = 4294967298", "allowed a 32-bit integer"};
    QTest::newRow("cells_per_voxel + 2^32")
        << QByteArray(R"({"format": "mrwb-scenario", "version": 1, "phantom": {"preset": "uniform_disc", "cells_per_voxel": 4294967297}})")
        << QStringList{"phantom.cells_per_voxel = 4294967297", "allowed a 32-bit integer"};
    QTest::newRow("coil count + 2^32") << scenario(R"("matrix": 64)", R"(, "coils": {"count": 4294967297})")
                                       << QStringList{"coils.count = 4294967297", "allowed a 32-bit integer"};
    QTest::newRow("version + 2^32") << QByteArray(R"({"format": "mrwb-scenario", "version": 4294967297})")
                                    << QStringList{"version = 4294967297", "allowed a 32-bit integer"};
    // The last of two keys won unseen.
    QTest::newRow("duplicate key") << scenario(R"("matrix": 100000, "matrix": 64)")
                                   << QStringList{"sequence.matrix appears twice", "allowed: each key once"};
    // A NUL cut the message that quoted the name.
    QTest::newRow("NUL in a string")
        << QByteArray(R"({"format": "mrwb-scenario", "version": 1, "phantom": {"preset": "uniform_disc", "vessel_tissue": "blood\u0000x"}})")
        << QStringList{R"(phantom.vessel_tissue = "blood\x00x" holds control characters)", "allowed: printable text"};
    QTest::newRow("NUL in a key") << scenario(R"("matrix": 64, "TR\u0000s": 0.01)")
                                  << QStringList{R"(sequence.TR\x00s is not a known field)"};
  }
  void hostileScenario() {
    QFETCH(QByteArray, json);
    QFETCH(QStringList, expect);
    fresh_folders();
    const QString sc = write("hostile.json", json);
    const QStringList where = QStringList{"hostile.json: "} + expect;
    expectRefused({"simulate", "--scenario", sc, "--out", out("raw.h5"), "--truth", out("truth.png")}, where);
    if (QTest::currentTestFailed()) return;
    expectRefused({"sequence", "--scenario", sc, "--out", out("exported.seq"), "--plot", out("diagram.png")}, where);
    if (QTest::currentTestFailed()) return;
    expectRefused({"flow", "--scenario", sc, "--out", out("flow.vti")}, where);
  }

  // --- ISMRMRD raw data through `mrwb recon` ---
  void hostileIsmrmrd_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QStringList>("expect");
    // libismrmrd reads 16-bit sizes modulo 2^16: 100000 became 34464.
    QTest::newRow("matrixSize 100000") << "matrix_1e5" << QStringList{"header element <matrixSize><x> = '100000'", "allowed: an integer 0 .. 65535"};
    // The largest 16-bit matrix over 2 coils, for 16 samples: std::bad_alloc after gigabytes.
    QTest::newRow("matrixSize 65535 x 65535") << "matrix_max" << QStringList{"too large"};
    // A reconSpace of 2e9 (wrapped) gave a 64x64 image.
    QTest::newRow("reconSpace 2e9") << "recon_2e9" << QStringList{"header element <matrixSize><x> = '2000000000'", "allowed: an integer 0 .. 65535"};
    // HDF5 printed its error stack reading a UTF-8 header string.
    QTest::newRow("xml as a UTF-8 string") << "utf8_xml" << QStringList{"header"};
  }
  void hostileIsmrmrd() {
    QFETCH(QString, kind);
    QFETCH(QStringList, expect);
    fresh_folders();
    const std::string file = in("hostile.h5").toStdString();
    const std::string ok = header_xml(16, 8, 1);
    std::string xml = ok;
    if (kind == "matrix_1e5") xml = edited(ok, "<encodedSpace>", "<x>16</x>", "<x>100000</x>");
    if (kind == "matrix_max") xml = header_xml(65535, 65535, 1);
    if (kind == "recon_2e9") xml = edited(ok, "<reconSpace>", "<x>16</x>", "<x>2000000000</x>");
    QVERIFY(!xml.empty());
    write_raw_file(file, xml);
    if (kind == "utf8_xml") QVERIFY(rewrite_xml_as_utf8(file, xml));
    expectRefused({"recon", "--in", in("hostile.h5"), "--method", "fft", "--out", out("image.png"), "--out", out("image.h5")},
                  QStringList{"hostile.h5: "} + expect);
  }
};

QTEST_GUILESS_MAIN(TestCliHostileInput)
#include "test_cli_hostile_input.moc"
