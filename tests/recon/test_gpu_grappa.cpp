// GRAPPA CUDA twin against the CPU reference: weights within 1e-4 relative (Frobenius), synthesised
// k-space and images within 1e-4 relative RMS. Every case SKIPs visibly when no CUDA device is present.
#include <QTest>

#include <cmath>

#include "fixtures.hpp"
#include "grappa_test_data.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/undersample.hpp"
#include "mrwb_gpu/base/device.hpp"
#include "mrwb_gpu/recon/grappa_cuda.hpp"
#include "numeric.hpp"

using namespace mrwb;

namespace {

using mrwb::test::rel_rms;

// The shared GRAPPA parameters (4 x 5 kernel, 32-column segments) with this case's clipping and combination.
GrappaParams params(const QString& approach, double clip = 0.0, const char* combine = "sos") {
  GrappaParams p = mrwb::test::grappa_params(approach.toStdString());
  p.clip = clip;
  p.combine = combine;
  return p;
}

}  // namespace

class TestGpuGrappa : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    if (!gpu::device_available()) QSKIP(qPrintable(QString::fromStdString(gpu::device_description())));
  }

  void matchesCpu_data() {
    QTest::addColumn<int>("ncoils");
    QTest::addColumn<int>("R");
    QTest::addColumn<QString>("approach");
    QTest::addColumn<double>("clip");
    QTest::addColumn<QString>("combine");
    QTest::addColumn<int>("recon_nx");
    QTest::newRow("improved 8 coils R=2 clip 0.05") << 8 << 2 << "improved" << 0.05 << "sos" << 0;
    QTest::newRow("improved 32 coils R=4") << 32 << 4 << "improved" << 0.0 << "sos" << 0;
    QTest::newRow("basic 32 coils R=4 (batched segments)") << 32 << 4 << "basic" << 0.0 << "sos" << 0;
    QTest::newRow("basic 8 coils R=3 sensitivity") << 8 << 3 << "basic" << 0.0 << "sensitivity" << 0;
    QTest::newRow("improved 8 coils R=3 oversampled") << 8 << 3 << "improved" << 0.0 << "sensitivity" << 64;
  }
  void matchesCpu() {
    QFETCH(int, ncoils);
    QFETCH(int, R);
    QFETCH(QString, approach);
    QFETCH(double, clip);
    QFETCH(QString, combine);
    QFETCH(int, recon_nx);
    RawData raw = grappa_test::phantom_raw(ncoils, 128, 128);
    raw.recon_nx = recon_nx;
    undersample_cartesian(raw, R, 24);
    const GrappaParams p = params(approach, clip, combine.toLatin1().constData());
    const GrappaWeights wc = grappa_calibrate(raw, p);
    const auto kc = grappa_synthesize(raw, wc);
    const Image2D ic = grappa_combine(raw, wc.geo, kc, p.combine);

    gpu::GrappaCuda cuda(wc.geo, p, 1);
    cuda.upload_acs(0, grappa_acs_block(raw, wc.geo));
    cuda.calibrate();
    const GrappaWeights wg = cuda.weights(0);
    cuda.upload_kspace(raw);
    cuda.synthesize(0);
    const auto kg = cuda.kspace();
    cuda.combine(raw, p.combine);
    const Image2D ig = cuda.image();
    const double ew = rel_rms(wg.w, wc.w), ek = rel_rms(kg, kc), ei = rel_rms(ig.data, ic.data);
    double el = 0;
    for (std::size_t s = 0; s < wc.lambda.size(); ++s) el = std::max(el, std::abs(wg.lambda[s] / wc.lambda[s] - 1));
    qInfo("weights %.2e, lambda %.2e, k-space %.2e, image %.2e (relative RMS, CUDA vs CPU)", ew, el, ek, ei);
    QCOMPARE(ig.nx, ic.nx);
    QVERIFY(ew <= 1e-4);
    QVERIFY(el <= 1e-9);
    QVERIFY(ek <= 1e-4);
    QVERIFY(ei <= 1e-4);
    // The whole pipeline through the registry entry point.
    const Image2D ir = gpu::reconstruct_grappa_cuda(raw, p, {}, {});
    QVERIFY(rel_rms(ir.data, ic.data) <= 1e-4);
  }

  // Two slices calibrated in one batch (potrfBatched over slices x segments) equal one-by-one CPU weights.
  void sliceBatchMatchesCpu_data() {
    QTest::addColumn<QString>("approach");
    QTest::newRow("improved") << "improved";
    QTest::newRow("basic") << "basic";
  }
  void sliceBatchMatchesCpu() {
    QFETCH(QString, approach);
    RawData a = grappa_test::phantom_raw(8, 128, 128), b = grappa_test::phantom_raw(8, 128, 128);
    for (auto& v : b.kspace) v *= std::complex<float>(0.3f, 0.9f);  // another slice: same coils, scaled object
    for (std::size_t i = 0; i < b.kspace.size(); i += 7) b.kspace[i] += std::complex<float>(0.5f, -0.2f);
    undersample_cartesian(a, 4, 24);
    undersample_cartesian(b, 4, 24);
    const GrappaParams p = params(approach);
    const auto wg = gpu::grappa_calibrate_cuda({&a, &b}, p);
    QCOMPARE(static_cast<int>(wg.size()), 2);
    const double ea = rel_rms(wg[0].w, grappa_calibrate(a, p).w), eb = rel_rms(wg[1].w, grappa_calibrate(b, p).w);
    qInfo("slice batch: weights %.2e, %.2e relative RMS", ea, eb);
    QVERIFY(ea <= 1e-4);
    QVERIFY(eb <= 1e-4);
  }

  void coilCountMismatch() {
    RawData raw = grappa_test::phantom_raw(8, 64, 64);
    undersample_cartesian(raw, 2, 24);
    const GrappaParams p = params("improved");
    gpu::GrappaCuda cuda(grappa_geometry(raw, p), p, 1);
    RawData four = grappa_test::phantom_raw(4, 64, 64);
    undersample_cartesian(four, 2, 24);
    QVERIFY_THROWS_EXCEPTION(InputError, cuda.upload_kspace(four));
  }
};

QTEST_GUILESS_MAIN(TestGpuGrappa)
#include "test_gpu_grappa.moc"
