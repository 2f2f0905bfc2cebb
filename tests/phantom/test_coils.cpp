// Receive coils: the uniform option and correlated receiver noise (covariance as asked, whitened by the
// prewhitening). The Biot–Savart loop against the analytic on-axis field is in test_grappa.
#include <QTest>

#include <algorithm>
#include <cmath>

#include <QTemporaryDir>

#include "fixtures.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulate.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

using namespace mrwb;

namespace {
// A small static scenario seen by 8 loop coils, with receiver noise of standard deviation `sigma` and
// neighbour correlation `rho` (CPU engine).
SimulationResult simulate_noisy(double sigma, double rho) {
  Scenario sc = mrwb::test::uniform_disc_scenario(32);
  sc.sequence.dummy_scans = 50;
  sc.coils.count = 8;
  sc.coils.noise_std = sigma;
  sc.coils.noise_correlation = rho;
  CpuSimulationEngine engine(2);
  return simulate(sc, engine, {}, {});
}
// SNR of |recon(noisy)| over the object (pixels above half the noise-free maximum): mean noise-free
// magnitude / RMS of the magnitude difference.
double object_snr(const Image2D& noisy, const Image2D& clean) {
  const auto a = noisy.magnitude(), b = clean.magnitude();
  const float peak = *std::max_element(b.begin(), b.end());
  double signal = 0, err2 = 0;
  int n = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (b[i] > 0.5f * peak) {
      signal += b[i];
      err2 += (a[i] - b[i]) * (a[i] - b[i]);
      ++n;
    }
  return (signal / n) / std::sqrt(err2 / n);
}
}  // namespace

class TestCoils : public QObject {
  Q_OBJECT
 private slots:
  void uniformCoilsHaveUnitRootSumOfSquares() {
    const auto s = uniform_coil_sensitivities(8, 16, 16);
    for (std::size_t p = 0; p < 256; ++p) {
      double sos = 0;
      for (int c = 0; c < 8; ++c) sos += std::norm(s[c * 256 + p]);
      QVERIFY(std::abs(sos - 1) < 1e-6);
    }
  }
  void correlatedNoiseHasTheCovariance_data() {
    QTest::addColumn<double>("rho");
    QTest::newRow("white") << 0.0;
    QTest::newRow("rho 0.6") << 0.6;
  }
  void correlatedNoiseHasTheCovariance() {
    QFETCH(double, rho);
    const int nc = 4, n = 64;
    const double sigma = 2;
    RawData raw;
    raw.nx = raw.ny = n;
    raw.ncoils = nc;
    raw.kspace.assign(static_cast<std::size_t>(nc) * n * n, {});
    const auto psi = coil_noise_covariance(nc, rho);
    add_correlated_noise(raw, psi, sigma, 20000, 7);
    // Noise scan (noise_prewhitening.hpp's estimate) and the k-space noise (estimated here): sigma²·Psi.
    const auto scan = noise_covariance(raw);
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j) {
        std::complex<double> k{};
        for (int p = 0; p < n * n; ++p)
          k += std::complex<double>(raw.kspace[i * n * n + p]) * std::conj(std::complex<double>(raw.kspace[j * n * n + p]));
        k /= n * n;
        const std::complex<double> want = sigma * sigma * psi[i * nc + j];
        QVERIFY2(std::abs(scan[i * nc + j] - want) < 0.05 * sigma * sigma, qPrintable(QString("scan %1 %2").arg(i).arg(j)));
        QVERIFY2(std::abs(k - want) < 0.08 * sigma * sigma, qPrintable(QString("k-space %1 %2: %3").arg(i).arg(j).arg(std::abs(k - want))));
      }
    // The prewhitening decorrelates it: equal powers, no cross terms.
    const RawData w = prewhitened(raw);
    const auto white = noise_covariance(w);
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j)
        if (i != j) QVERIFY(std::abs(white[i * nc + j]) < 0.02 * std::abs(white[i * nc + i]));
  }
  void badNoiseCovarianceIsRefused() {
    RawData raw;
    raw.nx = raw.ny = 4;
    raw.ncoils = 2;
    raw.kspace.assign(32, {});
    QVERIFY_THROWS_EXCEPTION(InputError, add_correlated_noise(raw, coil_noise_covariance(3, 0.1), 1, 10, 1));
    QVERIFY_THROWS_EXCEPTION(InputError, add_correlated_noise(raw, {1, 2, 2, 1}, 1, 10, 1));  // not positive definite
    QVERIFY_THROWS_EXCEPTION(InputError, coil_noise_covariance(2, 1.0));
  }
  // Scenario coils.noise_std / noise_correlation: simulate() adds the noise to the k-space and writes a noise
  // scan of k_receiver_noise_samples (8192) samples whose covariance is sigma²·Psi. An element of the
  // estimated covariance has a standard deviation of about sigma²/sqrt(N) (1.1 % of sigma² for the scan,
  // 3.1 % for the 32·32 k-space samples): the bars are 4 of those.
  void scenarioNoiseHasTheRequestedCovariance() {
    const double sigma = 0.02, rho = 0.7;
    const SimulationResult noisy = simulate_noisy(sigma, rho), clean = simulate_noisy(0, 0);
    QVERIFY(clean.raw.noise.empty());
    const int nc = noisy.raw.ncoils;
    QCOMPARE(noisy.raw.noise_samples, k_receiver_noise_samples);
    const auto psi = coil_noise_covariance(nc, rho);
    // Through the ISMRMRD file, as `mrwb recon` reads it (noise acquisitions).
    QTemporaryDir dir;
    const std::string path = dir.filePath("noisy.h5").toStdString();
    write_raw_ismrmrd(path, noisy.raw);
    const RawData back = read_raw_ismrmrd(path);
    QCOMPARE(back.noise_samples, k_receiver_noise_samples);
    const auto scan = noise_covariance(back);
    const std::size_t plane = static_cast<std::size_t>(noisy.raw.nx) * noisy.raw.ny;
    const double bar_scan = 4 * sigma * sigma / std::sqrt(double(k_receiver_noise_samples));
    const double bar_k = 4 * sigma * sigma / std::sqrt(double(plane));
    double worst_scan = 0, worst_k = 0;
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j) {
        const std::complex<double> want = sigma * sigma * psi[i * nc + j];
        std::complex<double> k{};
        for (std::size_t p = 0; p < plane; ++p)
          k += std::complex<double>(noisy.raw.kspace[i * plane + p] - clean.raw.kspace[i * plane + p]) *
               std::conj(std::complex<double>(noisy.raw.kspace[j * plane + p] - clean.raw.kspace[j * plane + p]));
        k /= double(plane);
        worst_scan = std::max(worst_scan, std::abs(scan[i * nc + j] - want));
        worst_k = std::max(worst_k, std::abs(k - want));
      }
    qInfo("8 coils, sigma %.3g, rho %.2f: worst covariance error, noise scan %.2f %%, k-space %.2f %% of sigma^2 (bars %.1f, %.1f %%)",
          sigma, rho, 100 * worst_scan / (sigma * sigma), 100 * worst_k / (sigma * sigma), 100 * bar_scan / (sigma * sigma),
          100 * bar_k / (sigma * sigma));
    QVERIFY(worst_scan < bar_scan);
    QVERIFY(worst_k < bar_k);
    // Seeded: the same scenario gives the same noise.
    const SimulationResult again = simulate_noisy(sigma, rho);
    QVERIFY(again.raw.kspace == noisy.raw.kspace && again.raw.noise == noisy.raw.noise);
  }
  // The noise scan makes reconstruct_fft prewhiten: with strongly correlated channels the root sum of
  // squares of whitened data has a higher SNR than that of the raw channels. Noise is measured as the
  // difference to the noise-free recon taken through the same whitening (the same noise scan).
  void prewhiteningRaisesTheSnrOfNoisyScenario() {
    const double sigma = 0.01, rho = 0.9;
    const SimulationResult noisy = simulate_noisy(sigma, rho), clean = simulate_noisy(0, 0);
    RawData clean_scan = clean.raw;  // noise-free data, whitened like the noisy data
    clean_scan.noise = noisy.raw.noise;
    clean_scan.noise_samples = noisy.raw.noise_samples;
    const double snr_white = object_snr(reconstruct_fft(noisy.raw), reconstruct_fft(clean_scan));
    RawData plain = noisy.raw;  // without the noise scan: no prewhitening
    plain.noise.clear();
    plain.noise_samples = 0;
    const double snr_plain = object_snr(reconstruct_fft(plain), reconstruct_fft(clean.raw));
    qInfo("8 loop coils, rho %.2f: SNR over the object %.1f prewhitened, %.1f without (x%.2f)", rho, snr_white, snr_plain,
          snr_white / snr_plain);
    QVERIFY(snr_plain > 5);  // the noise is small against the object: a meaningful comparison
    QVERIFY(snr_white > snr_plain);
  }
  void scenarioNoiseFieldsRoundTripAndAreValidated() {
    Scenario s;
    s.coils.count = 4;
    s.coils.noise_std = 0.125;
    s.coils.noise_correlation = 0.3;
    const std::string text = scenario_to_json_text(s);
    const Scenario back = scenario_from_json_text(text, "s.json");
    QCOMPARE(back.coils.noise_std, 0.125);
    QCOMPARE(back.coils.noise_correlation, 0.3);
    QCOMPARE(scenario_to_json_text(back), text);
    // Absent when unset: files without them keep their exact text.
    QVERIFY(scenario_to_json_text(Scenario{}).find("noise_std") == std::string::npos);
    const std::string head = R"({"format": "mrwb-scenario", "version": 1, "coils": )";
    for (const auto& [coils, field] : std::vector<std::pair<std::string, std::string>>{
             {R"({"count": 4, "noise_std": -1})", "coils.noise_std"},
             {R"({"count": 4, "noise_correlation": 0.96})", "coils.noise_correlation"},
             {R"({"count": 4, "noise_std": "high"})", "coils.noise_std"}}) {
      try {
        scenario_from_json_text(head + coils + "}", "s.json");
        QFAIL(coils.c_str());
      } catch (const InputError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find(field) != std::string::npos && what.find('\n') == std::string::npos, e.what());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestCoils)
#include "test_coils.moc"
