// Hostile input to `mrwb recon`, `mrwb flow` and `mrwb compare` that once passed the first checks and failed
// late: a --matrix whose grids need hundreds of GiB (std::bad_alloc, or 11 GB resident before anything
// said no), outputs that cannot be written refused only after the reconstruction, methods that do not fit
// the data refused after the summary line and without the file, and a header XML stored as a UTF-8 or a
// fixed-length string. Each must exit 2 with exactly one line on stderr naming the input (or the output) and
// the field, print nothing on stdout, leave its output folder empty and stay under 1 GB of memory.
#include <QDir>
#include <QFileInfo>
#include <QTest>

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <cmath>
#include <complex>
#include <sstream>

#include "cli_refusal.hpp"
#include "mrwb/io/file_io.hpp"
#include "ismrmrd_header.hpp"
#include "process_runner.hpp"

namespace {

using mrwb_test::peak_child_rss_bytes;

// A fully sampled Cartesian 32x32, 2-coil ISMRMRD file (a point in k-space: a flat image).
void write_cartesian(const std::string& path) {
  const std::string xml = mrwb_test::cartesian_header_xml(32, 32, 1, 2);
  ISMRMRD::Dataset d(path.c_str(), "dataset", true);
  d.writeHeader(xml);
  for (int line = 0; line < 32; ++line) {
    ISMRMRD::Acquisition acq(32, 2);
    acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(line);
    acq.center_sample() = 16;
    if (line == 16)
      for (uint16_t c = 0; c < 2; ++c) acq.data(16, c) = {1.0f, 0.0f};
    d.appendAcquisition(acq);
  }
}

// /dataset/xml rewritten as a scalar string: variable-length UTF-8, or fixed-length ASCII.
bool rewrite_xml(const std::string& path, bool utf8) {
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) return false;
  const hsize_t one = 1;
  hid_t rd = H5Dopen2(f, "/dataset/xml", H5P_DEFAULT);
  hid_t vt = H5Tcopy(H5T_C_S1);
  H5Tset_size(vt, H5T_VARIABLE);
  char* old = nullptr;
  const bool got = rd >= 0 && H5Dread(rd, vt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &old) >= 0 && old;
  const std::string xml = got ? old : "";
  if (got) {
    hid_t sp = H5Dget_space(rd);
    H5Dvlen_reclaim(vt, sp, H5P_DEFAULT, &old);
    H5Sclose(sp);
  }
  if (rd >= 0) H5Dclose(rd);
  H5Ldelete(f, "/dataset/xml", H5P_DEFAULT);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, utf8 ? H5T_VARIABLE : xml.size() + 1);
  H5Tset_cset(st, utf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
  hid_t sp = H5Screate_simple(1, &one, nullptr);
  hid_t d = H5Dcreate2(f, "/dataset/xml", st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const char* p = xml.c_str();
  const bool ok = got && d >= 0 && H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, utf8 ? static_cast<const void*>(&p) : p) >= 0;
  if (d >= 0) H5Dclose(d);
  H5Sclose(sp);
  H5Tclose(st);
  H5Tclose(vt);
  H5Fclose(f);
  return ok;
}

}  // namespace

class TestCliHostileRecon : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  int case_ = 0;
  QString good_, k3_, t3_;

  // A fresh, empty output folder for one case.
  QString out_dir_;
  void fresh_out() {
    out_dir_ = dir_.filePath(QString("out%1").arg(++case_));
    QVERIFY(QDir().mkpath(out_dir_));
  }
  QString out(const QString& name) const { return out_dir_ + "/" + name; }

  void expectRefused(const QStringList& args, const QStringList& expect) {
    fresh_out();
    mrwb_test::expect_refused(out_dir_, QStringList{args} << "--out" << out("image.cfl"), expect);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    good_ = dir_.filePath("good.h5");
    write_cartesian(good_.toStdString());
    // A stack of 8 radial planes (kz -4 .. 3) of 4 spokes, 64 samples each: BART [1 64 32 1] and [3 64 32].
    std::vector<std::complex<float>> k(64 * 32, {1.0f, 0.0f}), t(3 * 64 * 32);
    for (int line = 0; line < 32; ++line)
      for (int s = 0; s < 64; ++s) {
        const double a = M_PI * (line / 8) / 4, r = (s - 32) * 0.25;
        t[3 * (static_cast<std::size_t>(line) * 64 + s)] = static_cast<float>(r * std::cos(a));
        t[3 * (static_cast<std::size_t>(line) * 64 + s) + 1] = static_cast<float>(r * std::sin(a));
        t[3 * (static_cast<std::size_t>(line) * 64 + s) + 2] = static_cast<float>(line % 8 - 4);
      }
    k3_ = dir_.filePath("k3.cfl");
    t3_ = dir_.filePath("t3.cfl");
    mrwb::write_cfl(k3_.toStdString(), mrwb::CflArray{{1, 64, 32, 1}, k});
    mrwb::write_cfl(t3_.toStdString(), mrwb::CflArray{{3, 64, 32}, t});
  }
  void cleanupTestCase() { qInfo("peak memory of any mrwb run: %lld MB", peak_child_rss_bytes() / 1000000); }

  // The same files are read when nothing is wrong: the refusals below are about what each case changes.
  void controls() {
    fresh_out();
    mrwb_test::Run r = mrwb_test::run_program(MRWB_CLI_PATH, {"recon", "--in", good_, "--method", "fft", "--out", out("i.png")});
    QVERIFY2(r.code == 0 && r.err.contains(" from " + good_ + ": "), qPrintable(r.err));  // in a log: the closing line
    r = mrwb_test::run_program(MRWB_CLI_PATH, {"recon", "--in", k3_, "--traj", t3_, "--method", "gridding", "--backend", "cpu",
                                               "--matrix", "32", "--out", out("v.cfl"), "--quiet"});
    QVERIFY2(r.code == 0 && QFileInfo::exists(out("v.cfl")), qPrintable(r.err));
  }

  // The .h5 reader first reads the file in a forked child (a damaged file may crash HDF5: hdf5_isolation.hpp).
  // Forked while the CUDA start thread was allocating, the child waited for a lock no thread of its own held:
  // under AddressSanitizer 14 of 60 such reads hung. Each of 30 must finish, well within 20 s.
  void readsNeverHang() {
    fresh_out();
    for (int i = 0; i < 30; ++i) {
      const mrwb_test::Run r =
          mrwb_test::run_program(MRWB_CLI_PATH, {"recon", "--in", good_, "--method", "fft", "--out", out("i.png"), "--quiet"}, 20000);
      QVERIFY2(r.code == 0, qPrintable(QString("run %1: exit %2 %3").arg(i).arg(r.code).arg(r.err)));
    }
  }

  // Grids of a 3-D trajectory: the bytes estimated before anything is allocated, against the budget.
  void matrixBeyondMemory_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expect");
    const QStringList volume{"--matrix 1024", "1024^3 volume", "bytes", "GiB allowed", "allowed: --matrix 2 .. "};
    for (const char* method : {"gridding", "cg"})
      QTest::newRow(method) << QStringList{"--method", method, "--matrix", "1024"} << QStringList{QString(method) + " of a"} + volume;
    QTest::newRow("cg gridded, circulant") << QStringList{"--method", "cg", "--gridded", "--preconditioner", "circulant", "--matrix", "512"}
                                           << QStringList{"--matrix 512", "512^3 volume", "bytes", "allowed: --matrix 2 .. "};
  }
  void matrixBeyondMemory() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, expect);
    expectRefused(QStringList{"recon", "--in", k3_, "--traj", t3_, "--backend", "cpu"} + args, QStringList{"k3.cfl: "} + expect);
  }

  // Outputs that cannot be written: refused before the input is read, so before the summary and progress.
  void unwritableOutput_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("expect");
    QTest::newRow("unknown format") << "img.xyz" << QStringList{"img.xyz: ", "'.xyz'", "allowed: .h5, .cfl, .nii, .png"};
    QTest::newRow("missing folder") << "no/img.png" << QStringList{"no/img.png: ", "output folder", "does not exist"};
  }
  void unwritableOutput() {
    QFETCH(QString, name);
    QFETCH(QStringList, expect);
    fresh_out();
    mrwb_test::expect_refused(out_dir_, {"recon", "--in", good_, "--method", "fft", "--out", out(name)}, expect);
    if (QTest::currentTestFailed()) return;
    // A 3-D trajectory gives a volume: .png is no volume, refused before the reconstruction as well.
    mrwb_test::expect_refused(out_dir_, {"recon", "--in", k3_, "--traj", t3_, "--method", "gridding", "--out", out("v.png")},
                              {"v.png: ", "allowed: .cfl, .nii, .h5"});
  }

  // `mrwb flow`: the output folder before the grid's summary and the discretisation.
  void flowOutputFolder() {
    fresh_out();
    const QString scenario = qEnvironmentVariable("MRWB_SOURCE_DIR") + "/phantoms/straight_tube.json";
    QVERIFY2(QFileInfo::exists(scenario), qPrintable(scenario));
    mrwb_test::expect_refused(out_dir_, {"flow", "--scenario", scenario, "--out", out("no/f.vti")},
                              {"no/f.vti: ", "output folder", "does not exist"});
    if (QTest::currentTestFailed()) return;
    mrwb_test::expect_refused(out_dir_, {"compare", "--image", good_, "--reference", good_, "--error-map", out("e.xyz")},
                              {"e.xyz: ", "--error-map", "allowed: .png"});
  }

  // Methods that do not fit the data: one line naming the input and the field, before the summary.
  void methodAgainstData_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expect");
    for (const char* method : {"gridding", "cg"})
      QTest::newRow(method) << QStringList{"--in", good_, "--method", method}
                            << QStringList{"good.h5: ", "trajectory", "Cartesian", "allowed: "};
    QTest::newRow("fft of a trajectory") << QStringList{"--in", k3_, "--traj", t3_, "--method", "fft"}
                                         << QStringList{"k3.cfl: ", "trajectory", "non-Cartesian", "allowed: --method gridding or cg"};
  }
  void methodAgainstData() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, expect);
    expectRefused(QStringList{"recon"} + args, expect);
  }

  // Bounds on a run's time and on numbers: iterations 1 .. 10000 for every method that iterates (cs had no
  // bound, sense took -1), and a FLOAT option given nan or inf is refused (it passed every range check).
  void iterationsAndNonFiniteNumbers_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expect");
    QTest::newRow("cs 1e8 iterations") << QStringList{"--method", "cs", "--iterations", "100000000"}
                                       << QStringList{"--iterations", "100000000", "1 to 10000"};
    QTest::newRow("sense -1 iterations") << QStringList{"--method", "sense", "--iterations", "-1"}
                                         << QStringList{"--iterations", "-1", "1 to 10000"};
    QTest::newRow("tolerance nan") << QStringList{"--method", "cg", "--tolerance", "nan"}
                                   << QStringList{"--tolerance nan", "not a finite number", "allowed: a finite value"};
    QTest::newRow("lambda inf") << QStringList{"--method", "cs", "--lambda", "inf"}
                                << QStringList{"--lambda inf", "not a finite number"};
  }
  void iterationsAndNonFiniteNumbers() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, expect);
    expectRefused(QStringList{"recon", "--in", good_} + args, expect);
  }

  // /dataset/xml as a string libismrmrd cannot read as its header: one line naming the dataset.
  void headerString_data() {
    QTest::addColumn<bool>("utf8");
    QTest::addColumn<QString>("what");
    QTest::newRow("variable-length UTF-8") << true << "variable-length UTF-8 string";
    QTest::newRow("fixed-length ASCII") << false << "fixed-length ASCII string";
  }
  void headerString() {
    QFETCH(bool, utf8);
    QFETCH(QString, what);
    const QString file = dir_.filePath(QString("hostile%1.h5").arg(utf8 ? "_utf8" : "_fixed"));
    write_cartesian(file.toStdString());
    QVERIFY(rewrite_xml(file.toStdString(), utf8));
    expectRefused({"recon", "--in", file, "--method", "fft"},
                  {QFileInfo(file).fileName() + ": /dataset/xml is a " + what, "allowed: a variable-length ASCII string"});
  }
};

QTEST_GUILESS_MAIN(TestCliHostileRecon)
#include "test_cli_hostile_recon.moc"
