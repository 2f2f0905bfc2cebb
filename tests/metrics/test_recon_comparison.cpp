// compare_reconstructions (recon_comparison.hpp): several methods on one RawData through the registry,
// metrics against the truth, per-method failures reported without stopping the others, progress and
// cancellation.
#include <QtTest>

#include "grappa_test_data.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/recon_comparison.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/undersample.hpp"

using namespace mrwb;

class TestReconComparison : public QObject {
  Q_OBJECT
 private slots:
  // R = 2 with 24 ACS lines: GRAPPA must beat zero-filled FFT against the fully sampled image; gridding
  // rejects Cartesian data with a message and the other entries are still filled.
  void comparesMethodsAgainstTruth() {
    const int n = 64;
    RawData raw = grappa_test::phantom_raw(4, n, n);
    const Image2D truth = reconstruct_fft(raw);
    undersample_cartesian(raw, 2, 24);
    auto requests = comparison_requests({ReconMethod::Fft, ReconMethod::Grappa, ReconMethod::Gridding}, Backend::Cpu);
    QCOMPARE(requests.size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(requests[1].label), QString("GRAPPA"));

    std::vector<double> fractions;
    const ReconComparison c = compare_reconstructions(
        raw, &truth, requests, [&](double f, std::string_view) { fractions.push_back(f); }, {});
    QVERIFY(c.has_truth);
    QCOMPARE(c.entries.size(), std::size_t(3));
    const ComparisonEntry& fft = c.entries[0];
    const ComparisonEntry& grappa = c.entries[1];
    const ComparisonEntry& gridding = c.entries[2];
    QVERIFY2(fft.ok(), fft.error.c_str());
    QVERIFY2(grappa.ok(), grappa.error.c_str());
    QCOMPARE(QString::fromStdString(fft.backend), QString("fft/cpu"));
    QCOMPARE(QString::fromStdString(grappa.backend), QString("grappa/cpu"));
    QVERIFY(fft.has_metrics && grappa.has_metrics);
    QCOMPARE(fft.magnitude.size(), std::size_t(n) * n);
    QCOMPARE(grappa.error_map.size(), std::size_t(n) * n);
    QVERIFY(fft.seconds > 0 && grappa.seconds > 0);
    qInfo("zero-filled FFT: PSNR %.2f dB, %.2f %%; GRAPPA: PSNR %.2f dB, %.2f %%, SSIM %.4f", fft.metrics.psnr_db,
          fft.metrics.percent_error, grappa.metrics.psnr_db, grappa.metrics.percent_error, grappa.metrics.ssim);
    QVERIFY(grappa.metrics.psnr_db > fft.metrics.psnr_db + 5);
    QVERIFY(grappa.metrics.ssim > fft.metrics.ssim);
    // The stored metrics are those of the stored images.
    const Metrics again = compare_images(grappa.magnitude, c.truth_magnitude, n, n);
    QCOMPARE(again.psnr_db, grappa.metrics.psnr_db);
    const auto err = error_map(grappa.magnitude, c.truth_magnitude);
    QCOMPARE(err, grappa.error_map);

    QVERIFY(!gridding.ok());
    QVERIFY(gridding.magnitude.empty());
    qInfo("gridding on Cartesian data: %s", gridding.error.c_str());

    QVERIFY(!fractions.empty());
    for (std::size_t i = 1; i < fractions.size(); ++i) QVERIFY(fractions[i] >= fractions[i - 1] - 1e-12);
    QCOMPARE(fractions.back(), 1.0);
  }

  // Without truth: images and timings, no metrics. A truth of another size: no metrics either.
  void withoutTruthNoMetrics() {
    RawData raw = grappa_test::phantom_raw(2, 32, 32);
    const ReconComparison c = compare_reconstructions(raw, nullptr, comparison_requests({ReconMethod::Fft}), {}, {});
    QVERIFY(!c.has_truth);
    QVERIFY(c.entries[0].ok());
    QVERIFY(!c.entries[0].has_metrics);
    QVERIFY(c.entries[0].error_map.empty());

    const Image2D other = reconstruct_fft(grappa_test::phantom_raw(1, 16, 16));
    const ReconComparison d = compare_reconstructions(raw, &other, comparison_requests({ReconMethod::Fft}), {}, {});
    QVERIFY(d.has_truth);
    QVERIFY(!d.entries[0].has_metrics);
  }

  void cancelledBeforeStartThrows() {
    RawData raw = grappa_test::phantom_raw(1, 32, 32);
    CancelToken cancel;
    cancel.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, compare_reconstructions(raw, nullptr, comparison_requests({ReconMethod::Fft}), {}, cancel));
  }

  // A method name is read once (CLI, scenario JSON, GUI): an unknown one has no ReconMethod to request.
  void unknownMethodIsRefused() {
    QVERIFY(!parse_recon_method("sense"));
    QCOMPARE(comparison_requests({parse_recon_method("fft").value()}).size(), std::size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestReconComparison)
#include "test_recon_comparison.moc"
