// `mrwb recon --method gridding --density pipe-menon|voronoi|radial|none --gridding-kernel kaiser-bessel|bilinear`
// end to end on analytic radial k-space: every choice runs, the weights change the image, Pipe-Menon beats
// no compensation against the truth, and the bad-input contract (exit 2, one line naming the flag, no output).
#include <QFileInfo>
#include <QTest>

#include "process_runner.hpp"

#include <cmath>
#include <map>

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

// ||a - b|| / ||b||. Not numeric.hpp's rel_l2: here each difference is taken in float and squared in double.
double relative_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * double(a[i] - b[i]), den += double(b[i]) * b[i];
  return std::sqrt(num / den);
}

// a scaled by the least-squares factor onto ref: without compensation the image's scale is arbitrary (sum of
// samples, not of areas), so the comparison that means something is of shape, not of scale. (test_sim_noncart
// keeps its own: it divides last, v · gt / gg, which rounds differently.)
std::vector<float> scale_matched(const std::vector<float>& a, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += double(a[i]) * ref[i], den += double(a[i]) * a[i];
  std::vector<float> out(a);
  for (auto& v : out) v = static_cast<float>(v * (den > 0 ? num / den : 1.0));
  return out;
}

}  // namespace

class TestCliReconDensity : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const QString& n) const { return dir_.filePath(n).toStdString(); }
  QString qpath(const QString& n) const { return dir_.filePath(n); }
  const int n_ = 32;
  std::vector<float> truth_;

  Run recon(const QStringList& extra, const QString& out) {
    return run_mrwb(QStringList{"recon", "--in", qpath("k.cfl"), "--traj", qpath("t.cfl"), "--out", qpath(out), "--quiet",
                                "--matrix", QString::number(n_)} +
                    extra);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const auto t = noncart::radial_2d(n_, 48, 2 * n_, false);  // 48 spokes: radial density 1/|k| matters
    const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(2);
    write_bart(path("k"), path("t"), t, ph.kspace(t.k));
    truth_ = ph.image(n_, 4);
  }

  void eachDensityAndKernel() {
    struct Case {
      QString name;
      QStringList args;
    };
    const std::vector<Case> cases = {
        {"pipe-menon", {"--density", "pipe-menon"}},
        {"voronoi", {"--density", "voronoi"}},
        {"radial", {"--density", "radial"}},
        {"none", {"--density", "none"}},
        {"default", {}},
        {"bilinear", {"--gridding-kernel", "bilinear"}},  // backend auto: runs on the CPU
        {"bilinear none", {"--gridding-kernel", "bilinear", "--density", "none"}},
    };
    std::map<QString, std::vector<float>> img;
    for (const auto& c : cases) {
      const QString out = "img_" + QString(c.name).replace(' ', '_') + ".cfl";
      QStringList args{"--method", "gridding"};
      if (!c.name.startsWith("bilinear")) args << "--backend" << "cpu";
      const Run r = recon(args + c.args, out);
      QVERIFY2(r.code == 0, qPrintable(c.name + ": " + r.err));
      img[c.name] = mag(read_cfl(path(out)).data);
      QCOMPARE(img[c.name].size(), truth_.size());
      const Metrics raw = compare_images(img[c.name], truth_, n_, n_);
      const Metrics sm = compare_images(scale_matched(img[c.name], truth_), truth_, n_, n_);
      qInfo("%-14s %7.2f %% error (%6.2f %% scale-matched, PSNR %.2f dB, SSIM %.3f)", qPrintable(c.name),
            raw.percent_error, sm.percent_error, sm.psnr_db, sm.ssim);
    }
    QVERIFY(img["default"] == img["pipe-menon"]);  // the default is unchanged: Pipe-Menon, Kaiser-Bessel
    const double d_raw = relative_l2(img["none"], img["pipe-menon"]);
    const double d_shape = relative_l2(scale_matched(img["none"], img["pipe-menon"]), img["pipe-menon"]);
    qInfo("none vs pipe-menon: relative L2 %.4g (%.4g after scale matching)", d_raw, d_shape);
    QVERIFY(d_raw > 1e-3 && d_shape > 1e-3);
    for (const char* other : {"voronoi", "radial", "bilinear"}) QVERIFY(relative_l2(img[other], img["pipe-menon"]) > 1e-3);
    const auto err = [&](const char* name) {
      return compare_images(scale_matched(img[name], truth_), truth_, n_, n_).percent_error;
    };
    QVERIFY(err("pipe-menon") < err("none"));
    QVERIFY(err("radial") < err("none") && err("voronoi") < err("none"));
    QVERIFY(err("bilinear") < err("bilinear none"));
  }

  void badInputExitsTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("needle");
    QTest::newRow("bad density") << QStringList{"--method", "gridding", "--density", "jackson"} << "--density";
    QTest::newRow("bad kernel") << QStringList{"--method", "gridding", "--gridding-kernel", "gauss"} << "--gridding-kernel";
    QTest::newRow("density with cg") << QStringList{"--method", "cg", "--density", "none"} << "--density";
    QTest::newRow("kernel with fft") << QStringList{"--method", "fft", "--gridding-kernel", "bilinear"} << "--gridding-kernel";
    QTest::newRow("bilinear on cuda") << QStringList{"--method", "gridding", "--gridding-kernel", "bilinear", "--backend", "cuda"}
                                      << "--gridding-kernel";
  }
  void badInputExitsTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, needle);
    const Run r = recon(args, "bad.cfl");
    qInfo("exit %d: %s", r.code, qPrintable(r.err.trimmed()));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(needle) && (r.err.contains("allowed") || r.err.contains("only with")), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(!QFileInfo::exists(qpath("bad.cfl")));
    QVERIFY(!QFileInfo::exists(qpath("bad.hdr")));
  }
};

QTEST_GUILESS_MAIN(TestCliReconDensity)
#include "test_cli_recon_density.moc"
