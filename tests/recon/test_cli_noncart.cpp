// `mrwb recon` on non-Cartesian BART k-space (--traj): gridding and cg with their options, 3-D volumes, and
// the bad-input contract (exit 2, one line, no output file).
#include <QFile>
#include <QFileInfo>
#include <QTest>

#include "process_runner.hpp"

#include <ismrmrd/dataset.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/analytic_phantom.hpp"
#include "mrwb/sequence/trajectory.hpp"
#include "noncart_cli_test_support.hpp"
#include "numeric.hpp"

using namespace mrwb;
using mrwb::noncart::AnalyticPhantom;

namespace {

using mrwb_test::Run;
using mrwb_test::run_mrwb;

using mrwb::test::mag;
using mrwb_test::write_bart;

}  // namespace

class TestCliNoncart : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* n) const { return dir_.filePath(n).toStdString(); }
  QString qpath(const char* n) const { return dir_.filePath(n); }
  const int n_ = 32;
  std::vector<float> truth_;

  // Runs recon on k.cfl / t.cfl with extra options; returns the image magnitude (empty on failure).
  std::vector<float> recon(const QStringList& extra, const char* out) {
    QStringList args{"recon", "--in", qpath("k.cfl"), "--traj", qpath("t.cfl"), "--out", qpath(out), "--quiet",
                     "--backend", "cpu", "--matrix", QString::number(n_)};
    const Run r = run_mrwb(args + extra);
    if (r.code != 0) {
      qWarning("%s", qPrintable(r.err));
      return {};
    }
    return mag(read_cfl(path(out)).data);
  }

 private slots:
  void initTestCase() {
    const auto t = noncart::radial_2d(n_, 40, 2 * n_, true);
    const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(2);
    write_bart(path("k"), path("t"), t, ph.kspace(t.k));
    truth_ = ph.image(n_, 4);
    // Reference scans for --regularizer anatomical: the same ellipses in another contrast, [n, n], and one
    // of a wrong size.
    const auto ref = AnalyticPhantom::shepp_logan_other_contrast(2).image(n_, 4);
    write_cfl(path("ref"), CflArray{{n_, n_}, std::vector<std::complex<float>>(ref.begin(), ref.end())});
    write_cfl(path("ref_small"), CflArray{{n_ / 2, n_ / 2}, std::vector<std::complex<float>>(n_ * n_ / 4, 1.0f)});
  }

  // Every option reaches the reconstruction: error vs the analytic truth per variant, and the options
  // change the result (2 vs 20 iterations; a huge lambda shrinks the image).
  void methodsAndOptions() {
    struct Case {
      const char* name;
      QStringList args;
    };
    const std::vector<Case> cases = {{"gridding", {"--method", "gridding"}},
                                     {"cg exact 20", {"--method", "cg", "--exact", "--iterations", "20"}},
                                     {"cg gridded 20", {"--method", "cg", "--gridded", "--iterations", "20"}},
                                     {"cg exact 2", {"--method", "cg", "--iterations", "2"}},
                                     {"cg lambda 1e3", {"--method", "cg", "--iterations", "20", "--lambda", "1e3"}},
                                     // Stone et al. 2008's W: lambda_rel 10 = 10 M phi^2 (2,560 samples, phi = 1/1024)
                                     {"cg anatomical", {"--method", "cg", "--iterations", "20", "--regularizer", "anatomical",
                                                        "--prior", qpath("ref.cfl"), "--lambda", "0.025"}}};
    std::vector<Metrics> m;
    std::vector<double> mean;
    for (const auto& c : cases) {
      const auto img = recon(c.args, "img.cfl");
      QCOMPARE(img.size(), truth_.size());
      m.push_back(compare_images(img, truth_, n_, n_));
      double s = 0;
      for (float v : img) s += v;
      mean.push_back(s / img.size());
      qInfo("%-14s %.2f %% error, PSNR %.2f dB, mean |img| %.4g", c.name, m.back().percent_error, m.back().psnr_db, mean.back());
    }
    QVERIFY(m[0].percent_error < 30.0 && m[1].percent_error < 30.0 && m[2].percent_error < 30.0);  // measured 25, 22, 22
    QVERIFY(std::abs(m[1].psnr_db - m[2].psnr_db) < 0.5);       // gridded F^H d / Q close to exact
    QVERIFY(m[3].percent_error > m[1].percent_error + 1.0);      // 2 iterations are visibly short of 20
    QVERIFY(mean[4] < 0.1 * mean[1]);                             // lambda reached the solver
    QVERIFY(m[5].percent_error < 0.8 * m[1].percent_error);      // the prior reached it: 40 spokes < Nyquist
  }

  // A 3-D trajectory gives a volume: .cfl [n, n, n], NIfTI-1 .nii (float32 magnitude) and ISMRMRD .h5
  // (complex n^3), the same volume in each; a .png output is refused before any work.
  // With neither --exact nor --gridded the CG takes the exact sums where their estimated time is within the
  // 1 s budget (this 32^2 case) and the gridded ones where not (256^2, 402 spokes x 512 samples: ~1.35e10
  // sample-voxel pairs for F^H d alone, past the budget on hosts of up to a few hundred threads; 128^2 with
  // 201 spokes fell within it on a 64-core host), and says which on stderr; the default's image is the
  // --gridded one, bit for bit.
  void cgDefaultPicksByCost() {
    const Run small = run_mrwb({"recon", "--in", qpath("k.cfl"), "--traj", qpath("t.cfl"), "--out", qpath("auto_small.cfl"),
                                "--backend", "cpu", "--method", "cg", "--iterations", "2"});
    QCOMPARE(small.code, 0);
    QVERIFY2(small.err.contains("cg: exact F^H d and Q on the CPU (exact: ~"), qPrintable(small.err));
    const auto t = noncart::radial_2d(256, 402, 512, true);
    write_bart(path("k128"), path("t128"), t, AnalyticPhantom::shepp_logan(2).kspace(t.k));
    const QStringList common{"recon", "--in", qpath("k128.cfl"), "--traj", qpath("t128.cfl"), "--backend", "cpu",
                             "--method", "cg", "--iterations", "10"};
    const Run big = run_mrwb(common + QStringList{"--out", qpath("auto_big.cfl")});
    QCOMPARE(big.code, 0);
    QVERIFY2(big.err.contains("cg: gridded (Kaiser-Bessel) F^H d and Q on the CPU (exact would take ~") &&
                 big.err.contains("--exact to force"),
             qPrintable(big.err));
    const Run gridded = run_mrwb(common + QStringList{"--gridded", "--out", qpath("gridded_big.cfl")});
    QCOMPARE(gridded.code, 0);
    QVERIFY2(gridded.err.contains("cg: gridded (Kaiser-Bessel) F^H d and Q on the CPU (as asked)"), qPrintable(gridded.err));
    QVERIFY(read_cfl(path("auto_big.cfl")).data == read_cfl(path("gridded_big.cfl")).data);
  }

  void volumeFromStackOfSpirals() {
    const int n = 16;
    const auto t = noncart::stack_of_spirals(n, n, 4, 1.0, noncart::SpiralLimits{});
    const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(3);
    write_bart(path("k3"), path("t3"), t, ph.kspace(t.k));
    const std::size_t nv = static_cast<std::size_t>(n) * n * n;
    for (const char* method : {"gridding", "cg"}) {
      const Run r = run_mrwb({"recon", "--in", qpath("k3.cfl"), "--traj", qpath("t3.cfl"), "--method", method, "--gridded",
                              "--iterations", "10", "--matrix", QString::number(n), "--out", qpath("vol.cfl"), "--out",
                              qpath("vol.nii"), "--out", qpath("vol.h5"), "--quiet", "--backend", "cpu"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      const CflArray v = read_cfl(path("vol.cfl"));
      QCOMPARE(v.size(), nv);
      QCOMPARE(v.dims[2], static_cast<long>(n));
      const std::vector<float> m = mag(v.data);
      const Metrics mv = compare_images(m, ph.image(n, 2), n, n * n);
      qInfo("3-D %s %d^3: %.2f %% error, PSNR %.2f dB", method, n, mv.percent_error, mv.psnr_db);
      QVERIFY(mv.percent_error < 45.0);  // measured 39 (gridding), 33 (cg)
      // NIfTI-1: dim = {3, n, n, n}, float32 at byte 352, equal to |.cfl|.
      QFile nii(qpath("vol.nii"));
      QVERIFY(nii.open(QIODevice::ReadOnly));
      const QByteArray b = nii.readAll();
      QCOMPARE(b.size(), static_cast<qsizetype>(352 + 4 * nv));
      std::int16_t dim[4];
      std::memcpy(dim, b.constData() + 40, sizeof dim);
      QVERIFY(dim[0] == 3 && dim[1] == n && dim[2] == n && dim[3] == n);
      std::vector<float> nm(nv);
      std::memcpy(nm.data(), b.constData() + 352, 4 * nv);
      QVERIFY(nm == m);
      // ISMRMRD image: matrix n^3, the complex volume of the .cfl.
      ISMRMRD::Dataset d(path("vol.h5").c_str(), "dataset", false);
      ISMRMRD::Image<std::complex<float>> im;
      d.readImage("image_0", 0, im);
      QVERIFY(im.getMatrixSizeX() == n && im.getMatrixSizeY() == n && im.getMatrixSizeZ() == n);
      QVERIFY(std::equal(v.data.begin(), v.data.end(), im.begin()));
    }
    // Exact F^H d and Q on the same data (CPU.SP, 20 iterations): the error of the iterative volume.
    const Run r = run_mrwb({"recon", "--in", qpath("k3.cfl"), "--traj", qpath("t3.cfl"), "--method", "cg", "--exact",
                            "--iterations", "20", "--matrix", QString::number(n), "--out", qpath("vole.cfl"), "--quiet",
                            "--backend", "cpu"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const Metrics me = compare_images(mag(read_cfl(path("vole.cfl")).data), ph.image(n, 2), n, n * n);
    qInfo("3-D cg exact %d^3: %.2f %% error, PSNR %.2f dB", n, me.percent_error, me.psnr_db);
    QVERIFY(me.percent_error < 45.0);
    for (const char* bad : {"vol.png", "vol.txt"}) {
      const Run rb = run_mrwb({"recon", "--in", qpath("k3.cfl"), "--traj", qpath("t3.cfl"), "--method", "cg", "--out",
                               qpath(bad), "--quiet"});
      QCOMPARE(rb.code, 2);
      QVERIFY2(rb.err.contains(".nii") && rb.err.trimmed().count('\n') == 0, qPrintable(rb.err));
      QVERIFY(!QFileInfo::exists(qpath(bad)));
    }
  }

  void badInputExitsTwo_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("needle");
    QTest::newRow("outside the band") << "band" << "outside the band";
    QTest::newRow("NaN sample") << "nan" << "NaN";
    QTest::newRow("count mismatch") << "count" << "";
    QTest::newRow("bad iterations") << "iterations" << "--iterations";
    QTest::newRow("anatomical without a prior") << "no prior" << "--prior";
    QTest::newRow("prior of another size") << "prior size" << "--prior";
    QTest::newRow("prior without anatomical") << "prior alone" << "--prior";
    QTest::newRow("edge threshold out of range") << "threshold" << "--edge-threshold";
  }
  void badInputExitsTwo() {
    QFETCH(QString, kind);
    QFETCH(QString, needle);
    const auto t = noncart::radial_2d(n_, 8, 2 * n_, false);
    auto d = AnalyticPhantom::shepp_logan(2).kspace(t.k);
    QStringList extra{"--method", "cg", "--matrix", QString::number(n_)};
    if (kind == "band") extra = QStringList{"--method", "cg", "--matrix", "16"};
    if (kind == "nan") d[5] = {std::numeric_limits<float>::quiet_NaN(), 0.0f};
    if (kind == "iterations") extra << "--iterations" << "0";
    if (kind == "no prior") extra << "--regularizer" << "anatomical";
    if (kind == "prior size") extra << "--regularizer" << "anatomical" << "--prior" << qpath("ref_small.cfl");
    if (kind == "prior alone") extra << "--prior" << qpath("ref.cfl");
    if (kind == "threshold") extra << "--regularizer" << "anatomical" << "--prior" << qpath("ref.cfl") << "--edge-threshold" << "1.5";
    write_bart(path("kb"), path("tb"), t, d);
    if (kind == "count") write_cfl(path("kb"), CflArray{{1, t.samples - 1, t.readouts, 1}, std::vector<std::complex<float>>(
                                                                                                 (t.samples - 1) * t.readouts)});
    const Run r = run_mrwb(QStringList{"recon", "--in", qpath("kb.cfl"), "--traj", qpath("tb.cfl"), "--out", qpath("bad.cfl"),
                                   "--quiet", "--backend", "cpu"} + extra);
    qInfo("%s: exit %d: %s", qPrintable(kind), r.code, qPrintable(r.err.trimmed()));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(needle), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(qpath("bad.cfl")));
  }
};

QTEST_GUILESS_MAIN(TestCliNoncart)
#include "test_cli_noncart.moc"
