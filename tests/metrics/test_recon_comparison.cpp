// compare_reconstructions (recon_comparison.hpp): several methods on one RawData through the registry,
// metrics against the truth, per-method failures reported without stopping the others, progress and
// cancellation.
#include <QTest>

#include "grappa_test_data.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/recon_comparison.hpp"
#include "mrwb/recon/multislice.hpp"
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

  // Multi-slice data: every method reconstructs all slices; the metrics are compare_volumes over every
  // voxel (not the shown plane's), the images are the central slice. Slice s holds the phantom times (s + 1),
  // R = 2 with 24 ACS lines, so the slices differ and GRAPPA beats zero-filled FFT over the volume.
  void volumeDataGetVolumeMetrics() {
    const int n = 48, slices = 3;
    auto stack = [&](const RawData& one) {
      RawData v = one;
      v.slices = slices;
      v.kspace.assign(v.kspace_size(), {});
      for (int c = 0; c < v.ncoils; ++c)
        for (int z = 0; z < slices; ++z)
          for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) v.kspace[v.index(c, z, 0, y, x)] = one.at(c, y, x) * float(z + 1);
      return v;
    };
    RawData one = grappa_test::phantom_raw(4, n, n);
    const RawData full = stack(one);
    ReconOptions fft;
    const ImageVolume truth = reconstruct_volume(full, fft);  // fully sampled: the reference
    QCOMPARE(truth.nz, slices);
    undersample_cartesian(one, 2, 24);  // the line flags hold for every slice
    const RawData raw = stack(one);
    const ReconComparison c = compare_volume_reconstructions(
        raw, &truth, comparison_requests({ReconMethod::Fft, ReconMethod::Grappa}, Backend::Cpu), {}, {});
    QCOMPARE(c.planes, slices);
    QCOMPARE(c.shown_plane, 1);
    QVERIFY(c.has_truth);
    QCOMPARE(c.truth_magnitude, truth.slice(1).magnitude());
    for (const ComparisonEntry& e : c.entries) {
      QVERIFY2(e.ok(), e.error.c_str());
      QVERIFY(e.has_metrics);
      ReconOptions o;
      o.method = e.method;
      o.backend = Backend::Cpu;
      const ImageVolume v = reconstruct_volume(raw, o);
      const Metrics m = compare_volumes(v.magnitude(), truth.magnitude(), n, n, slices);
      QCOMPARE(e.metrics.psnr_db, m.psnr_db);
      QCOMPARE(e.metrics.ssim, m.ssim);
      QCOMPARE(e.magnitude, v.slice(1).magnitude());
      QCOMPARE(e.error_map, error_map(e.magnitude, c.truth_magnitude));
      const Metrics plane = compare_images(e.magnitude, c.truth_magnitude, n, n);
      QVERIFY(std::abs(plane.psnr_db - m.psnr_db) > 1e-3);  // the volume's figure, not the plane's
    }
    qInfo("3 slices, R = 2: FFT %.2f dB, GRAPPA %.2f dB over the volume", c.entries[0].metrics.psnr_db,
          c.entries[1].metrics.psnr_db);
    QVERIFY(c.entries[1].metrics.psnr_db > c.entries[0].metrics.psnr_db + 5);

    // The volume compared with itself: infinite PSNR, SSIM 1. A truth of another depth: no metrics.
    const ReconComparison self = compare_volume_reconstructions(full, &truth, comparison_requests({ReconMethod::Fft}), {}, {});
    QVERIFY(std::isinf(self.entries[0].metrics.psnr_db));
    QCOMPARE(self.entries[0].metrics.ssim, 1.0);
    ImageVolume shallow = truth;
    shallow.nz = 2;
    shallow.data.resize(shallow.plane() * 2);
    const ReconComparison d = compare_volume_reconstructions(raw, &shallow, comparison_requests({ReconMethod::Fft}), {}, {});
    QVERIFY(!d.has_truth);
    QVERIFY(d.entries[0].ok() && !d.entries[0].has_metrics);
  }

  void cancelledBeforeStartThrows() {
    RawData raw = grappa_test::phantom_raw(1, 32, 32);
    CancelToken cancel;
    cancel.cancel();
    QVERIFY_THROWS_EXCEPTION(Cancelled, compare_reconstructions(raw, nullptr, comparison_requests({ReconMethod::Fft}), {}, cancel));
  }

  // A method name is read once (CLI, scenario JSON, GUI): an unknown one has no ReconMethod to request.
  void unknownMethodIsRefused() {
    QVERIFY(!parse_recon_method("espirit"));
    QCOMPARE(comparison_requests({parse_recon_method("fft").value()}).size(), std::size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestReconComparison)
#include "test_recon_comparison.moc"
