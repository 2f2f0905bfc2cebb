// File round trips and malformed input: ISMRMRD raw data and images, scenario JSON, PNG.
#include <QTest>

#include <ismrmrd/dataset.h>
#include <ismrmrd/xml.h>

#include <array>
#include <filesystem>
#include <sstream>
#include <fstream>
#include <random>

#include "files.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario.hpp"

using namespace mrwb;
namespace fs = std::filesystem;

namespace {

using mrwb::test::read_file;

RawData sample_raw() {
  RawData r;
  r.nx = 24;
  r.ny = 16;
  r.ncoils = 2;
  r.fov_x_m = r.fov_y_m = 0.2;
  r.TR_s = 0.01;
  r.TE_s = 0.004;
  r.flip_angle_deg = 15;
  r.dwell_s = 1e-5;
  r.scenario_name = "roundtrip";
  r.kspace.resize(static_cast<std::size_t>(r.nx) * r.ny * r.ncoils);
  for (std::size_t i = 0; i < r.kspace.size(); ++i) r.kspace[i] = {std::sin(0.1f * i), std::cos(0.37f * i) * 1e-3f};
  return r;
}

// k-space of a unit point source dx, dy pixels from the image centre on an nx x ny grid (k = 0 at n/2).
RawData point_kspace(int nx, int ny, double dx, double dy) {
  RawData r;
  r.nx = nx;
  r.ny = ny;
  r.fov_x_m = r.fov_y_m = 0.2;
  r.kspace.resize(static_cast<std::size_t>(nx) * ny);
  for (int l = 0; l < ny; ++l)
    for (int s = 0; s < nx; ++s)
      r.at(0, l, s) = std::polar(1.0, -2 * M_PI * ((s - nx / 2) * dx / nx + (l - ny / 2) * dy / ny));  // s(k) = m e^{-i2pi k x}
  return r;
}

std::pair<int, int> argmax(const Image2D& img) {
  const auto m = img.magnitude();
  const auto i = static_cast<int>(std::max_element(m.begin(), m.end()) - m.begin());
  return {i % img.nx, i / img.nx};
}

}  // namespace

class TestIo : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

 private slots:
  void ismrmrdRawRoundTripIsExact() {
    const RawData a = sample_raw();
    write_raw_ismrmrd(path("raw.h5"), a);
    const RawData b = read_raw_ismrmrd(path("raw.h5"));
    QCOMPARE(b.nx, a.nx);
    QCOMPARE(b.ny, a.ny);
    QCOMPARE(b.ncoils, a.ncoils);
    QVERIFY(b.kspace == a.kspace);
    QVERIFY(std::abs(b.fov_x_m - 0.2) < 1e-6);
    QVERIFY(std::abs(b.TE_s - 0.004) < 1e-7);
    QVERIFY(std::abs(b.flip_angle_deg - 15) < 1e-6);
    QCOMPARE(b.scenario_name, std::string("roundtrip"));
    // No temporary is left beside the output.
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir_.path().toStdString())) files += e.path().filename() == "raw.h5" ? 0 : e.path().extension() == ".h5";
    QCOMPARE(files, 0);
  }
  void ismrmrdImageRoundTripIsExact() {
    Image2D img;
    img.nx = 10;
    img.ny = 7;
    img.fov_x_m = 0.1;
    img.fov_y_m = 0.07;
    for (int i = 0; i < 70; ++i) img.data.push_back({0.01f * i, -0.5f * i});
    write_image(path("img.h5"), img);
    const Image2D back = read_image(path("img.h5"));
    QCOMPARE(back.nx, 10);
    QCOMPARE(back.ny, 7);
    QVERIFY(back.data == img.data);
  }
  void writerHeaderFlagsCountersAndNoise() {
    RawData a = sample_raw();
    a.accel_R = 2;
    a.recon_nx = 12;
    a.recon_fov_x_m = 0.1;
    a.field_T = 3.0;
    a.line_flags.assign(16, 0);
    for (int l = 0; l < 16; l += 2) a.line_flags[l] = kLineAcquired | kLineImaging;
    for (int l = 6; l < 10; ++l) a.line_flags[l] |= kLineAcquired | kLineCalibration;  // ACS 6..9
    for (int l = 0; l < 16; ++l)
      if (!(a.line_flags[l] & kLineAcquired))
        for (int c = 0; c < 2; ++c)
          for (int x = 0; x < a.nx; ++x) a.at(c, l, x) = {};
    a.noise_samples = 70000;  // more than one acquisition can hold (65535)
    a.noise.resize(static_cast<std::size_t>(a.noise_samples) * 2);
    for (std::size_t i = 0; i < a.noise.size(); ++i) a.noise[i] = {std::cos(1.3f * i), std::sin(0.7f * i)};
    write_raw_ismrmrd(path("acc.h5"), a);

    ISMRMRD::Dataset d(path("acc.h5").c_str(), "dataset", false);
    std::string xml;
    d.readHeader(xml);
    ISMRMRD::IsmrmrdHeader h;
    ISMRMRD::deserialize(xml.c_str(), h);
    const auto& e = h.encoding.at(0);
    QCOMPARE(e.encodedSpace.matrixSize.x, 24);
    QCOMPARE(e.reconSpace.matrixSize.x, 12);
    QCOMPARE(e.reconSpace.fieldOfView_mm.x, 100.f);
    QVERIFY(e.trajectory == ISMRMRD::TrajectoryType::CARTESIAN);
    QCOMPARE(e.encodingLimits.kspace_encoding_step_1->maximum, 15);
    QCOMPARE(e.encodingLimits.kspace_encoding_step_1->center, 8);
    QVERIFY(e.parallelImaging);
    QCOMPARE(e.parallelImaging->accelerationFactor.kspace_encoding_step_1, 2);
    QCOMPARE(*e.parallelImaging->calibrationMode, std::string("embedded"));
    QCOMPARE(*h.acquisitionSystemInformation->receiverChannels, 2);
    QCOMPARE(h.experimentalConditions.H1resonanceFrequency_Hz, 127732437L);  // 3 T x 42.577 MHz/T
    // 2 noise acquisitions, then 8 imaging + 2 calibration-only lines (7, 9).
    QCOMPARE(d.getNumberOfAcquisitions(), 12u);
    int noise = 0, calib = 0, calib_imaging = 0, plain = 0;
    for (uint32_t i = 0; i < 12; ++i) {
      ISMRMRD::Acquisition acq;
      d.readAcquisition(i, acq);
      if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_NOISE_MEASUREMENT)) {
        ++noise;
        continue;
      }
      QCOMPARE(acq.center_sample(), 12);
      QCOMPARE(acq.active_channels(), 2);
      const int line = acq.idx().kspace_encode_step_1;
      if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION_AND_IMAGING)) {
        ++calib_imaging;
        QVERIFY(line == 6 || line == 8);
      } else if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION)) {
        ++calib;
        QVERIFY(line == 7 || line == 9);
      } else {
        ++plain;
        QCOMPARE(line % 2, 0);
      }
      if (i == 2) QVERIFY(acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_FIRST_IN_SLICE));
      if (i == 11) QVERIFY(acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_LAST_IN_MEASUREMENT));
    }
    QCOMPARE(noise, 2);
    QCOMPARE(calib, 2);
    QCOMPARE(calib_imaging, 2);
    QCOMPARE(plain, 6);
    // And back.
    RawFileSummary sum;
    const RawData b = read_raw_ismrmrd(path("acc.h5"), RawSelection{}, &sum);
    QVERIFY(b.line_flags == a.line_flags);
    QCOMPARE(b.accel_R, 2);
    QVERIFY(b.kspace == a.kspace);
    QCOMPARE(b.noise_samples, 70000);
    QVERIFY(b.noise == a.noise);
    QCOMPARE(sum.noise_acquisitions, 2);
    QCOMPARE(sum.calibration_lines, 4);
    QCOMPARE(b.recon_nx, 12);
    QVERIFY(std::abs(b.field_T - 3.0) < 1e-6);
  }
  void nonCartesianWriterKeepsTrajectory() {
    RawData a = sample_raw();
    a.trajectory_type = "radial";
    a.traj_dims = 2;
    a.recon_nx = a.recon_ny = 24;
    for (int l = 0; l < a.ny; ++l)
      for (int s = 0; s < a.nx; ++s) {
        const float k = static_cast<float>(s - a.nx / 2), phi = static_cast<float>(M_PI) * l / a.ny;
        a.traj.push_back(k * std::cos(phi));
        a.traj.push_back(k * std::sin(phi));
      }
    write_raw_ismrmrd(path("rad.h5"), a);
    ISMRMRD::Dataset d(path("rad.h5").c_str(), "dataset", false);
    std::string xml;
    d.readHeader(xml);
    ISMRMRD::IsmrmrdHeader h;
    ISMRMRD::deserialize(xml.c_str(), h);
    QVERIFY(h.encoding.at(0).trajectory == ISMRMRD::TrajectoryType::RADIAL);
    ISMRMRD::Acquisition acq;
    d.readAcquisition(0, acq);  // the spoke along +x
    QCOMPARE(acq.trajectory_dimensions(), 2);
    QCOMPARE(acq.traj(0, 0), -0.5f);  // stored normalised to the 24-pixel matrix: -12 / 24
    const RawData b = read_raw_ismrmrd(path("rad.h5"));
    QCOMPARE(b.trajectory_type, std::string("radial"));
    QVERIFY(b.kspace == a.kspace);
    for (std::size_t i = 0; i < a.traj.size(); ++i) QVERIFY(std::abs(b.traj[i] - a.traj[i]) < 1e-5f);
  }
  void reconCropsReadoutOversampling() {
    // 64 samples over 400 mm, recon 200 mm: the point 10 pixels right of centre stays 10 pixels right.
    RawData r = point_kspace(64, 32, 10, -4);
    r.fov_x_m = 0.4;
    r.recon_fov_x_m = 0.2;
    r.recon_fov_y_m = 0.2;
    const Image2D img = reconstruct_fft(r);
    QCOMPARE(img.nx, 32);
    QCOMPARE(img.ny, 32);
    QVERIFY(std::abs(img.fov_x_m - 0.2) < 1e-9);
    QCOMPARE(argmax(img), std::make_pair(16 + 10, 16 - 4));
    QVERIFY(std::abs(std::abs(img.data[(16 - 4) * 32 + 26]) - 1.0) < 1e-4);
  }
  void reconPlacesAsymmetricEchoByCentreSample() {
    // Drop the first 20 of 64 samples (asymmetric echo) and the first 8 of 32 lines (partial Fourier).
    const RawData full = point_kspace(64, 32, -7, 5);
    RawData part;
    part.nx = 44;
    part.ny = 24;
    part.fov_x_m = part.fov_y_m = 0.2;
    part.center_sample = 32 - 20;
    part.center_line = 16 - 8;
    part.kspace.resize(44 * 24);
    for (int l = 0; l < 24; ++l)
      for (int s = 0; s < 44; ++s) part.at(0, l, s) = full.at(0, l + 8, s + 20);
    const Image2D img = reconstruct_fft(part);
    QCOMPARE(img.nx, 64);
    QCOMPARE(img.ny, 32);
    QCOMPARE(argmax(img), std::make_pair(32 - 7, 16 + 5));
    // Through ISMRMRD: the encoded space is the full 64 x 32, the data sit inside it.
    write_raw_ismrmrd(path("asym.h5"), part);
    const RawData back = read_raw_ismrmrd(path("asym.h5"));
    QCOMPARE(back.nx, 64);
    QCOMPARE(back.ny, 32);
    QCOMPARE(back.k0_sample(), 32);
    QCOMPARE(back.k0_line(), 16);
    const Image2D img2 = reconstruct_fft(back);
    QCOMPARE(img2.nx, 64);
    for (std::size_t i = 0; i < img.data.size(); ++i) QVERIFY(std::abs(img2.data[i] - img.data[i]) < 1e-5f);
  }
  void prewhiteningDecorrelatesAndKeepsScale() {
    // Three coils, noise mixed by a known matrix: after prewhitening the noise covariance is s²·I.
    RawData r = sample_raw();
    r.ncoils = 3;
    r.kspace.assign(static_cast<std::size_t>(r.nx) * r.ny * 3, {1.f, 0.f});
    r.noise_samples = 4000;
    r.noise.resize(3 * 4000);
    std::mt19937 rng(7);
    std::normal_distribution<float> g(0.f, 1.f);
    for (int s = 0; s < 4000; ++s) {
      const std::complex<float> w0(g(rng), g(rng)), w1(g(rng), g(rng)), w2(g(rng), g(rng));
      r.noise[s] = w0;
      r.noise[4000 + s] = 0.8f * w0 + 0.6f * w1;
      r.noise[8000 + s] = 2.f * w2;
    }
    const auto psi = noise_covariance(r);
    QVERIFY(std::abs(psi[1] - std::complex<double>(0.8 * 2, 0)) < 0.15);  // <n0 n1*> = 0.8 · E|w|² = 1.6
    const RawData w = prewhitened(r);
    const auto pw = noise_covariance(w);
    double mean_power = 0;
    for (int i = 0; i < 3; ++i) mean_power += psi[static_cast<std::size_t>(i) * 4].real() / 3;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        QVERIFY(std::abs(pw[static_cast<std::size_t>(i) * 3 + j] - (i == j ? mean_power : 0.0)) < 1e-3 * mean_power);
    // A noise scan of zeros (noise-free simulation): nothing to whiten, data unchanged.
    RawData quiet = r;
    std::fill(quiet.noise.begin(), quiet.noise.end(), std::complex<float>{});
    QVERIFY(prewhitened(quiet).kspace == r.kspace);
    // Fewer noise samples than coils: an input error, not a guess.
    RawData white = r;
    white.noise_samples = 2;
    white.noise.resize(6);
    QVERIFY_THROWS_EXCEPTION(InputError, prewhitened(white));
  }
  void noiseScanOfAnotherDwellIsReferredToTheDataBandwidth() {
    // A file as a scanner writes it: the noise scan sampled at half the data's dwell time (twice the
    // bandwidth, so twice the noise power per sample) through a receiver filter that passes rnbw = 0.8
    // of the nominal band's noise power, and imaging readouts holding only noise of covariance C = M M^H.
    // In SNR units the data's whitened noise must have unit variance per real and imaginary part.
    constexpr int nc = 3, nx = 128, ny = 64, noise_ns = 4096;
    constexpr double data_dwell_us = 10, noise_dwell_us = 5, rnbw = 0.8;
    const double M[nc][nc] = {{1, 0, 0}, {0.5, 0.8, 0}, {0.2, -0.3, 1.5}};
    std::mt19937 rng(11);
    std::normal_distribution<double> g(0.0, std::sqrt(0.5));  // E|w|² = 1
    auto mixed = [&](double gain) {
      std::complex<double> w[nc], n[nc];
      for (auto& v : w) v = {g(rng), g(rng)};
      for (int i = 0; i < nc; ++i) {
        n[i] = 0;
        for (int k = 0; k < nc; ++k) n[i] += M[i][k] * w[k];
      }
      return std::array<std::complex<float>, nc>{std::complex<float>(gain * n[0]), std::complex<float>(gain * n[1]),
                                                   std::complex<float>(gain * n[2])};
    };
    auto write_file = [&](const std::string& file, double header_rnbw) {
      ISMRMRD::IsmrmrdHeader h;
      h.experimentalConditions.H1resonanceFrequency_Hz = 63870000;
      ISMRMRD::AcquisitionSystemInformation sys;
      sys.receiverChannels = static_cast<unsigned short>(nc);
      sys.relativeReceiverNoiseBandwidth = static_cast<float>(header_rnbw);
      h.acquisitionSystemInformation = sys;
      ISMRMRD::Encoding e;
      e.encodedSpace.matrixSize = ISMRMRD::MatrixSize(nx, ny, 1);
      e.encodedSpace.fieldOfView_mm = {200.f, 200.f, 5.f};
      e.reconSpace = e.encodedSpace;
      e.trajectory = ISMRMRD::TrajectoryType::CARTESIAN;
      h.encoding.push_back(e);
      std::ostringstream xml;
      ISMRMRD::serialize(h, xml);
      ISMRMRD::Dataset d(file.c_str(), "dataset", true);
      d.writeHeader(xml.str());
      ISMRMRD::Acquisition noise(noise_ns, nc);
      noise.setFlag(ISMRMRD::ISMRMRD_ACQ_IS_NOISE_MEASUREMENT);
      noise.sample_time_us() = static_cast<float>(noise_dwell_us);
      const double scan_gain = std::sqrt(data_dwell_us / noise_dwell_us * rnbw);
      for (int s = 0; s < noise_ns; ++s) {
        const auto n = mixed(scan_gain);
        for (int c = 0; c < nc; ++c) noise.data(s, c) = n[c];
      }
      d.appendAcquisition(noise);
      for (int l = 0; l < ny; ++l) {
        ISMRMRD::Acquisition acq(nx, nc);
        acq.sample_time_us() = static_cast<float>(data_dwell_us);
        acq.center_sample() = nx / 2;
        acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(l);
        for (int s = 0; s < nx; ++s) {
          const auto n = mixed(1.0);
          for (int c = 0; c < nc; ++c) acq.data(s, c) = n[c];
        }
        d.appendAcquisition(acq);
      }
    };
    // Covariance of the (whitened) data samples, through the same estimator as the noise scan's.
    auto data_covariance = [&](const RawData& r) {
      RawData as_noise = r;
      as_noise.noise = r.kspace;
      as_noise.noise_samples = r.nx * r.ny;
      return noise_covariance(as_noise);
    };
    QVERIFY(std::abs(noise_bandwidth_scale(5e-6, 10e-6, 0.8) - std::sqrt(0.5 / 0.8)) < 1e-12);
    QCOMPARE(noise_bandwidth_scale(0, 10e-6, 0), 1.0);  // unknown dwell, no rnbw: unchanged

    write_file(path("bw.h5"), rnbw);
    const RawData raw = read_raw_ismrmrd(path("bw.h5"));
    QCOMPARE(raw.noise_samples, noise_ns);
    QVERIFY(std::abs(raw.dwell_s - data_dwell_us * 1e-6) < 1e-12);
    const auto snr = data_covariance(prewhitened(raw, WhiteningScale::snr_units));
    double worst = 0;
    for (int i = 0; i < nc; ++i)
      for (int j = 0; j < nc; ++j)
        worst = std::max(worst, std::abs(snr[static_cast<std::size_t>(i) * nc + j] - (i == j ? 2.0 : 0.0)));  // E|n|² = 2
    qInfo("noise scan at half the dwell, rnbw 0.8: whitened data noise covariance within %.3f of 2·I (SNR units)", worst);
    QVERIFY2(worst < 0.16, qPrintable(QString("whitened covariance off by %1").arg(worst)));
    // Real and imaginary parts separately: unit variance.
    const RawData w = prewhitened(raw, WhiteningScale::snr_units);
    for (int c = 0; c < nc; ++c) {
      double re2 = 0, im2 = 0;
      for (int k = 0; k < nx * ny; ++k) {
        const auto v = w.kspace[static_cast<std::size_t>(c) * nx * ny + k];
        re2 += double(v.real()) * v.real(), im2 += double(v.imag()) * v.imag();
      }
      QVERIFY2(std::abs(re2 / (nx * ny) - 1) < 0.08 && std::abs(im2 / (nx * ny) - 1) < 0.08,
               qPrintable(QString("coil %1: variances %2, %3").arg(c).arg(re2 / (nx * ny)).arg(im2 / (nx * ny))));
    }
    // Ignoring the bandwidths would give variance 1 / (2 · 0.8): the check above can fail.
    RawData uncorrected = raw;
    const float undo = static_cast<float>(1 / noise_bandwidth_scale(noise_dwell_us, data_dwell_us, rnbw));
    for (auto& v : uncorrected.noise) v *= undo;
    const auto bad = data_covariance(prewhitened(uncorrected, WhiteningScale::snr_units));
    QVERIFY(std::abs(bad[0].real() / 2 - 1 / (2 * rnbw)) < 0.08);
    // Image-scale whitening is unaffected by a common factor: covariance mean_i C_ii · I.
    const auto keep = data_covariance(prewhitened(raw));
    const double mean_c = (1.0 + (0.25 + 0.64) + (0.04 + 0.09 + 2.25)) / 3;
    for (int i = 0; i < nc; ++i) QVERIFY(std::abs(keep[static_cast<std::size_t>(i) * nc + i].real() / mean_c - 1) < 0.08);
    // An impossible relativeReceiverNoiseBandwidth is an input error naming the field.
    write_file(path("bw_bad.h5"), -0.5);
    try {
      read_raw_ismrmrd(path("bw_bad.h5"));
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("relativeReceiverNoiseBandwidth") && QString(e.what()).contains("bw_bad.h5"), e.what());
    }
  }
  void missingAndMalformedFilesAreInputErrors() {
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_ismrmrd(path("nope.h5")));
    { std::ofstream(path("junk.h5")) << "this is not HDF5"; }
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_ismrmrd(path("junk.h5")));
    QVERIFY_THROWS_EXCEPTION(InputError, read_image(path("junk.h5")));
    // Truncated HDF5: the first half of a valid file.
    write_raw_ismrmrd(path("full.h5"), sample_raw());
    const auto full = read_file(path("full.h5"));
    { std::ofstream(path("trunc.h5"), std::ios::binary) << full.substr(0, full.size() / 2); }
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_ismrmrd(path("trunc.h5")));
    // A raw-data file is not an image file.
    QVERIFY_THROWS_EXCEPTION(InputError, read_image(path("full.h5")));
  }
  void writesIntoMissingFolderFailWithoutOutput() {
    QVERIFY_THROWS_EXCEPTION(InputError, write_raw_ismrmrd(path("no/such/dir/raw.h5"), sample_raw()));
    QVERIFY(!fs::exists(path("no")));
  }
  void scenarioRoundTrip() {
    Scenario s = scenario_preset("straight_vessel");
    s.sequence.TR_s = 0.0123;
    s.phantom.vessel_angle_deg = -12.5;
    save_scenario(s, path("s.json"));
    const Scenario b = load_scenario(path("s.json"));
    QCOMPARE(scenario_to_json_text(b), scenario_to_json_text(s));
  }
  // "simulation": {"model", "flow_transport", "spins_per_axis"}: the default (eulerian, gradient_frame) is not written, so files
  // without it keep their text; any other choice is written whole and read back.
  void scenarioSimulationModelRoundTrip() {
    Scenario s = scenario_preset("straight_vessel");
    QVERIFY(scenario_to_json_text(s).find("\"simulation\"") == std::string::npos);
    QCOMPARE(s.simulation.model, SimulationModel::Eulerian);
    QCOMPARE(s.simulation.flow_transport, FlowTransport::GradientFrame);
    for (const auto& [model, transport] : {std::pair{SimulationModel::Lagrangian, FlowTransport::GradientFrame},
                                           std::pair{SimulationModel::Eulerian, FlowTransport::DonorCell},
                                           std::pair{SimulationModel::Lagrangian, FlowTransport::DonorCell}}) {
      s.simulation = {model, transport};
      save_scenario(s, path("model.json"));
      const Scenario b = load_scenario(path("model.json"));
      QCOMPARE(b.simulation.model, model);
      QCOMPARE(b.simulation.flow_transport, transport);
      QCOMPARE(scenario_to_json_text(b), scenario_to_json_text(s));
    }
    s.simulation = {SimulationModel::Lagrangian, FlowTransport::GradientFrame, 8};
    save_scenario(s, path("spins.json"));
    QCOMPARE(load_scenario(path("spins.json")).simulation.spins_per_axis, 8);
    const Scenario j = scenario_from_json_text(
        R"({"format": "mrwb-scenario", "version": 1, "simulation": {"model": "lagrangian"}})", "S.json");
    QCOMPARE(j.simulation.model, SimulationModel::Lagrangian);
    QCOMPARE(j.simulation.flow_transport, FlowTransport::GradientFrame);
  }
  void scenarioErrorsNameTheField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    const QString head = R"({"format": "mrwb-scenario", "version": 1, )";
    QTest::newRow("negative TR") << head + R"("sequence": {"TR_s": -0.01}})" << "sequence.TR_s = -0.01 is out of range: allowed (0, 10] s";
    QTest::newRow("TE >= TR") << head + R"("sequence": {"TR_s": 0.01, "TE_s": 0.01}})" << "sequence.TE_s = 0.01 is out of range";
    QTest::newRow("unknown field") << head + R"("sequence": {"TR_ms": 10}})" << "sequence.TR_ms is not a known field";
    QTest::newRow("unknown top field") << head + R"("colour": 1})" << "colour is not a known field";
    QTest::newRow("wrong type") << head + R"("sequence": {"matrix": "big"}})" << "sequence.matrix must be an integer";
    QTest::newRow("integer beyond 32 bits") << head + R"("sequence": {"matrix": 4294967328}})"
                                            << "sequence.matrix = 4294967328 is out of range: allowed a 32-bit integer";
    QTest::newRow("negative integer beyond 32 bits") << head + R"("sequence": {"dummy_scans": -4294967296}})"
                                                     << "sequence.dummy_scans = -4294967296 is out of range";
    QTest::newRow("bad format") << R"({"format": "other", "version": 1})" << "format must be";
    QTest::newRow("no version") << R"({"format": "mrwb-scenario"})" << "version is missing";
    QTest::newRow("malformed") << R"({"format": "mrwb-scenario", )" << "not valid JSON";
    // Found by fuzz/fuzz_scenario: nlohmann's own exception text without the file (exit 1), the last of two
    // keys winning unseen, a NUL cutting the message that quotes a name.
    QTest::newRow("number beyond a double") << head + R"("sequence": {"TR_s": 1e999}})"
                                            << "not valid JSON: number overflow parsing '1e999' (allowed: numbers within";
    QTest::newRow("duplicate key") << head + R"("sequence": {"matrix": 100000, "matrix": 64}})"
                                   << "sequence.matrix appears twice in one object (allowed: each key once)";
    QTest::newRow("control character in a name") << head + R"("phantom": {"vessel_tissue": "blood\u0000x"}})"
                                                 << R"(phantom.vessel_tissue = "blood\x00x" holds control characters)";
    QTest::newRow("control character in a key") << head + R"("sequence": {"TR\u000as": 1}})"
                                                << R"(sequence.TR\x0as is not a known field)";
    QTest::newRow("unknown tissue") << head + R"("phantom": {"vessel_tissue": "unobtainium"}})" << "unknown tissue 'unobtainium'";
    QTest::newRow("bad simulation model") << head + R"("simulation": {"model": "particles"}})"
                                          << "simulation.model = 'particles' is not allowed (allowed: eulerian, lagrangian)";
    QTest::newRow("bad flow transport") << head + R"("simulation": {"flow_transport": "upwind"}})"
                                        << "simulation.flow_transport = 'upwind' is not allowed (allowed: gradient_frame, gradient_frame_limited, donor_cell)";
    QTest::newRow("unknown simulation field") << head + R"("simulation": {"spins": 3}})" << "simulation.spins is not a known field";
    QTest::newRow("too many spins") << head + R"("simulation": {"spins_per_axis": 17}})"
                                    << "simulation.spins_per_axis = 17 is out of range: allowed [1, 16]";
    QTest::newRow("simulation not an object") << head + R"("simulation": "lagrangian"})" << "simulation must be a JSON object";
    QTest::newRow("readout too long") << head + R"("sequence": {"TE_s": 0.001, "bandwidth_Hz_per_pixel": 100}})" << "sequence.TE_s = 0.001 is out of range: must exceed half the readout";
  }
  void scenarioErrorsNameTheField() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    try {
      scenario_from_json_text(json.toStdString(), "S.json");
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString msg = e.what();
      QVERIFY2(msg.startsWith("S.json: "), qPrintable(msg));
      QVERIFY2(msg.contains(expected), qPrintable(msg));
      QVERIFY2(!msg.contains('\n'), qPrintable(msg));
    }
  }
  void pngFilesAreWritten() {
    std::vector<float> v(32 * 16);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 32) - 16.f;
    write_png_error_map(path("err.png"), v, 32, 16);
    write_png_magnitude(path("mag.png"), v, 32, 16);
    for (const char* f : {"err.png", "mag.png"}) {
      const auto bytes = read_file(path(f));
      QVERIFY(bytes.size() > 60);
      QCOMPARE(bytes.substr(1, 3), std::string("PNG"));
    }
  }
};

QTEST_GUILESS_MAIN(TestIo)
#include "test_io.moc"
