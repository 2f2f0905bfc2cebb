// Interoperability with the tools users already have: files made by ismrmrd_generate_cartesian_shepp_logan
// and BART are read correctly; files we write are read by ismrmrd_recon_cartesian_2d and BART. Every file
// is generated here, in a temporary folder. A missing tool is a visible SKIP.
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

#include "process_runner.hpp"

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/xml.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/reconstructor.hpp"
#include "shepp_logan_reference.hpp"

using namespace mrwb;

namespace {

using mrwb_test::Run;
using mrwb_test::run_program;
using mrwb::test::reference_sos;

QString tool(const char* name) { return QStandardPaths::findExecutable(name); }

// The PSNR that the noise alone allows: the file's noise-free coil images plus complex Gaussian noise
// of the power measured in its noise scan (the generator adds that noise to the orthonormal k-space, so
// every coil pixel carries it), combined by root sum of squares, against the noise-free SoS. Mean of
// three draws; no FFT and no prewhitening are involved, so this is a bound no reconstruction can beat.
double noise_only_psnr(ISMRMRD::NDArray<std::complex<float>>& coil_images, int recon_nx, double noise_power,
                       const std::vector<float>& reference) {
  const int nxo = static_cast<int>(coil_images.getDims()[0]), ny = static_cast<int>(coil_images.getDims()[1]);
  const int nc = static_cast<int>(coil_images.getDims()[2]);
  const int x0 = (nxo - recon_nx) / 2;
  std::mt19937 rng(2024);
  std::normal_distribution<double> part(0.0, std::sqrt(noise_power / 2));
  double sum = 0;
  for (int draw = 0; draw < 3; ++draw) {
    std::vector<float> sos(static_cast<std::size_t>(recon_nx) * ny, 0.f);
    for (int c = 0; c < nc; ++c)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < recon_nx; ++x) {
          const std::complex<double> v = std::complex<double>(coil_images(x + x0, y, c)) + std::complex<double>(part(rng), part(rng));
          sos[static_cast<std::size_t>(y) * recon_nx + x] += static_cast<float>(std::norm(v));
        }
    for (auto& v : sos) v = std::sqrt(v);
    sum += compare_images(sos, reference, recon_nx, ny).psnr_db;
  }
  return sum / 3;
}

// 64 x 32 samples with readout oversampling 2: encoded 400 x 200 mm, recon 32 x 32 over 200 mm; no data yet.
RawData oversampled_geometry(int ncoils) {
  RawData raw;
  raw.nx = 64;
  raw.ny = 32;
  raw.ncoils = ncoils;
  raw.fov_x_m = 0.4;
  raw.fov_y_m = 0.2;
  raw.recon_nx = 32;
  raw.recon_ny = 32;
  raw.recon_fov_x_m = 0.2;
  raw.recon_fov_y_m = 0.2;
  return raw;
}

// The XML header of an ISMRMRD file read with the HDF5 C library alone (not libismrmrd's Dataset).
std::string hdf5_xml_header(const std::string& file) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return {};
  hid_t d = H5Dopen2(f, "/dataset/xml", H5P_DEFAULT);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  char* text = nullptr;
  std::string out;
  if (d >= 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) >= 0 && text) out = text;
  if (text) {
    hid_t sp = H5Dget_space(d);
    H5Dvlen_reclaim(t, sp, H5P_DEFAULT, &text);
    H5Sclose(sp);
  }
  H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  H5Fclose(f);
  return out;
}

// Number of acquisitions in /dataset/data, from the HDF5 dataspace.
long long hdf5_acquisition_count(const std::string& file) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  hid_t d = H5Dopen2(f, "/dataset/data", H5P_DEFAULT);
  long long n = -1;
  if (d >= 0) {
    hid_t sp = H5Dget_space(d);
    n = H5Sget_simple_extent_npoints(sp);
    H5Sclose(sp);
    H5Dclose(d);
  }
  H5Fclose(f);
  return n;
}

}  // namespace

class TestInterop : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const char* n) const { return dir_.filePath(n); }
  std::string spath(const char* n) const { return path(n).toStdString(); }

  // Generator's file, FFT + SoS of ours against its own coil images. Returns PSNR [dB]; with
  // whiten = false the noise scan is ignored (to show what prewhitening does). ceiling_db, when given,
  // receives the PSNR that the file's noise alone allows (noise_only_psnr).
  double shepp_logan_psnr(const QStringList& extra, const char* name, bool whiten = true, double* ceiling_db = nullptr) {
    const QString gen = tool("ismrmrd_generate_cartesian_shepp_logan");
    QStringList args = {"-m", "128", "-c", "8", "-O", "2", "-C", "-o", path(name)};
    args << extra;
    if (!QFileInfo::exists(path(name))) {
      const Run r = run_program(gen, args);
      if (r.code != 0) qWarning("%s", qPrintable(r.err));
    }
    RawData raw = read_raw_ismrmrd(spath(name));
    if (raw.noise_samples != 256) qWarning("noise scan missing");
    double noise_power = 0;  // E|n|² per complex sample, from the noise scan
    for (const auto& n : raw.noise) noise_power += std::norm(std::complex<double>(n));
    noise_power /= static_cast<double>(std::max<std::size_t>(1, raw.noise.size()));
    if (!whiten) raw.noise.clear(), raw.noise_samples = 0;
    const Image2D img = reconstruct_fft(raw);
    ISMRMRD::Dataset d(spath(name).c_str(), "dataset", false);
    ISMRMRD::NDArray<std::complex<float>> coil_images;
    d.readNDArray("coil_images", 0, coil_images);
    const auto ref = reference_sos(coil_images, img.nx);
    // The generator's k-space is the orthonormal DFT (1/sqrt(N)); ours inverts with 1/N.
    const float scale = std::sqrt(static_cast<float>(raw.nx) * raw.ny);
    auto mag = img.magnitude();
    for (auto& v : mag) v *= scale;
    if (ceiling_db) *ceiling_db = noise_only_psnr(coil_images, img.nx, noise_power, ref);
    return compare_images(mag, ref, img.nx, img.ny).psnr_db;
  }

 private slots:
  void initTestCase() {
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) qWarning("ismrmrd-tools not installed: those cases skip");
    if (tool("bart").isEmpty()) qWarning("bart not installed: those cases skip");
  }

  void sheppLoganOversampledEightCoilsWithNoiseMatchesCoilImages() {
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) QSKIP("ismrmrd_generate_cartesian_shepp_logan not installed");
    RawFileSummary sum;
    QVERIFY(run_program(tool("ismrmrd_generate_cartesian_shepp_logan"), {"-m", "128", "-C", "-o", path("sl.h5")}).code == 0);
    const RawData raw = read_raw_ismrmrd(spath("sl.h5"), RawSelection{}, &sum);
    QCOMPARE(raw.ncoils, 8);
    QCOMPARE(raw.nx, 256);  // readout oversampling 2 stays in the data
    QCOMPARE(raw.ny, 128);
    QCOMPARE(raw.recon_nx, 128);
    QCOMPARE(sum.noise_acquisitions, 1);
    QCOMPARE(raw.noise_samples, 256);  // the noise readout, never image data
    QCOMPARE(raw.accel_R, 1);
    const Image2D img = reconstruct_fft(raw);
    QCOMPARE(img.nx, 128);  // cropped after the readout iFFT: encoded 600 mm -> recon 300 mm
    QCOMPARE(img.ny, 128);
    QVERIFY(std::abs(img.fov_x_m - 0.3) < 1e-6);

    // The generator adds complex Gaussian noise (default sd 0.05 per part) to k-space; at that level the
    // root-sum-of-squares noise floor alone (about 0.2 over 8 coils) bounds the PSNR near 24 dB whatever
    // the reconstruction. The 35 dB bar is checked at sd 0.005; at the default noise ours must reach,
    // within 1 dB, the ceiling that the measured noise alone allows; without noise the match is exact.
    double ceiling_default = 0;
    const double psnr_default = shepp_logan_psnr({}, "sl_default.h5", true, &ceiling_default);
    const double psnr_low = shepp_logan_psnr({"-n", "0.005"}, "sl_low.h5");
    const double psnr_low_unwhitened = shepp_logan_psnr({"-n", "0.005"}, "sl_low.h5", false);
    const double psnr_none = shepp_logan_psnr({"-n", "0"}, "sl_none.h5");
    qInfo("FFT + SoS vs the file's coil images: PSNR %.2f dB at noise sd 0.005 (%.2f dB without prewhitening), "
          "%.2f dB without noise, %.2f dB at the generator's default sd 0.05 where its noise alone allows %.2f dB",
          psnr_low, psnr_low_unwhitened, psnr_none, psnr_default, ceiling_default);
    QVERIFY2(psnr_low >= 35.0, qPrintable(QString("PSNR %1 dB").arg(psnr_low)));
    QVERIFY2(psnr_none >= 80.0, qPrintable(QString("PSNR %1 dB without noise").arg(psnr_none)));
    QVERIFY2(psnr_default >= ceiling_default - 1.0,
             qPrintable(QString("PSNR %1 dB at default noise, noise-only ceiling %2 dB").arg(psnr_default).arg(ceiling_default)));
  }

  void sheppLoganAcceleratedFlagsCalibrationAndRepetitions() {
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) QSKIP("ismrmrd_generate_cartesian_shepp_logan not installed");
    QVERIFY(run_program(tool("ismrmrd_generate_cartesian_shepp_logan"),
                {"-m", "64", "-c", "4", "-a", "2", "-w", "16", "-r", "2", "-C", "-o", path("acc.h5")}).code == 0);
    RawFileSummary sum;
    // The generator writes one repetition per acceleration shift: repetition = r·R + shift.
    const RawData r0 = read_raw_ismrmrd(spath("acc.h5"), RawSelection{0, 0, 0}, &sum);
    QCOMPARE(sum.repetitions, 4);
    QCOMPARE(r0.accel_R, 2);
    int acs = 0, imaging = 0, acquired = 0;
    for (int l = 0; l < r0.ny; ++l) {
      const auto f = r0.flags(l);
      acs += (f & kLineCalibration) != 0;
      imaging += (f & kLineImaging) != 0;
      acquired += (f & kLineAcquired) != 0;
    }
    QCOMPARE(imaging, 32);   // every second line
    QCOMPARE(acquired, 40);  // plus the 8 calibration-only lines of the 16-line ACS block
    QCOMPARE(acs, 16);       // lines 24..39, flagged ACQ_IS_PARALLEL_CALIBRATION(_AND_IMAGING)
    QVERIFY(sum.calibration_lines == acs);
    // Shift 1 fills the odd lines.
    const RawData r1 = read_raw_ismrmrd(spath("acc.h5"), RawSelection{0, 1, 0});
    QVERIFY(r1.flags(1) & kLineImaging);
    QVERIFY(!(r1.flags(0) & kLineImaging));
    // Out-of-range selection is an input error naming the allowed range.
    try {
      read_raw_ismrmrd(spath("acc.h5"), RawSelection{0, 7, 0});
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("repetition 0..3"), e.what());
    }
  }

  void sheppLoganAcceleratedFeedsGrappa() {
    // The ACS flags and R read from the generator's file are what GRAPPA needs: its image must beat
    // the zero-filled FFT of the same lines clearly (both against the fully sampled reconstruction).
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) QSKIP("ismrmrd_generate_cartesian_shepp_logan not installed");
    std::unique_ptr<Reconstructor> grappa;
    try {
      grappa = make_reconstructor(ReconMethod::Grappa, Backend::Cpu);
    } catch (const std::exception& e) {
      QSKIP(e.what());
    }
    const QString gen = tool("ismrmrd_generate_cartesian_shepp_logan");
    QVERIFY(run_program(gen, {"-m", "128", "-n", "0.005", "-a", "2", "-w", "24", "-C", "-o", path("g_acc.h5")}).code == 0);
    QVERIFY(run_program(gen, {"-m", "128", "-n", "0.005", "-C", "-o", path("g_full.h5")}).code == 0);
    const RawData acc = read_raw_ismrmrd(spath("g_acc.h5"));
    const Image2D full = reconstruct_fft(read_raw_ismrmrd(spath("g_full.h5")));
    const Image2D zf = reconstruct_fft(acc);
    ReconOptions o;
    o.method = ReconMethod::Grappa;
    const Image2D g = grappa->reconstruct(acc, o, {}, CancelToken{});
    QCOMPARE(g.nx, full.nx);
    QCOMPARE(g.ny, full.ny);
    const double psnr_g = compare_images(g.magnitude(), full.magnitude(), g.nx, g.ny).psnr_db;
    const double psnr_zf = compare_images(zf.magnitude(), full.magnitude(), g.nx, g.ny).psnr_db;
    qInfo("generator R = 2, 24 ACS lines: GRAPPA %.2f dB, zero-filled FFT %.2f dB (vs fully sampled)", psnr_g, psnr_zf);
    QVERIFY(psnr_g > psnr_zf + 10.0);
  }
  void ourFileIsReadByIsmrmrdRecon() {
    const QString recon = tool("ismrmrd_recon_cartesian_2d");
    if (recon.isEmpty()) QSKIP("ismrmrd_recon_cartesian_2d not installed");
    // One coil, readout oversampling 2: a shifted square in k-space form.
    RawData raw = oversampled_geometry(1);
    raw.kspace.resize(static_cast<std::size_t>(raw.nx) * raw.ny);
    for (int l = 0; l < raw.ny; ++l)
      for (int s = 0; s < raw.nx; ++s)
        raw.at(0, l, s) = std::polar(1.0f / (1.0f + 0.01f * ((s - 32) * (s - 32) + (l - 16) * (l - 16))), 0.3f * s - 0.2f * l);
    write_raw_ismrmrd(spath("ours.h5"), raw);
    const Run r = run_program(recon, {path("ours.h5")});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains("Encoding Matrix Size        : [64, 32, 1]"));
    QVERIFY(r.out.contains("Reconstruction Matrix Size  : [32, 32, 1]"));
    ISMRMRD::Dataset d(spath("ours.h5").c_str(), "dataset", false);
    ISMRMRD::Image<float> theirs;
    d.readImage("cpp", 0, theirs);  // the tool appends its image as "cpp"
    const Image2D ours = reconstruct_fft(read_raw_ismrmrd(spath("ours.h5")));
    QCOMPARE(static_cast<int>(theirs.getMatrixSizeX()), ours.nx);
    QCOMPARE(static_cast<int>(theirs.getMatrixSizeY()), ours.ny);
    // Their FFT is unnormalised; ours divides by N.
    double worst = 0, peak = 0;
    for (int i = 0; i < ours.nx * ours.ny; ++i) {
      const double a = std::abs(ours.data[static_cast<std::size_t>(i)]) * raw.nx * raw.ny, b = theirs.getDataPtr()[i];
      worst = std::max(worst, std::abs(a - b));
      peak = std::max(peak, b);
    }
    QVERIFY2(worst < 1e-4 * peak, qPrintable(QString("max difference %1 of peak %2").arg(worst).arg(peak)));
  }

  void ourFileIsReadByIndependentReaders() {
    // Our header read by the HDF5 C library alone, checked against ISMRMRD's XML schema (xmllint) and
    // parsed by ismrmrd_test_xml and libismrmrd's deserialize; the acquisitions read by
    // ismrmrd_read_timing_test. (ismrmrd_info 1.8 ignores its arguments and prints only the library
    // version, so it cannot read a file.)
    RawData raw = oversampled_geometry(4);
    raw.field_T = 3.0;
    raw.dwell_s = 5e-6;
    raw.accel_R = 2;
    raw.kspace.assign(static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils, {0.5f, -0.25f});
    raw.line_flags.assign(static_cast<std::size_t>(raw.ny), 0);
    int acquired = 0;
    for (int l = 0; l < raw.ny; ++l) {
      const bool acs = l >= 12 && l < 20, imaging = l % 2 == 0;
      raw.line_flags[static_cast<std::size_t>(l)] = static_cast<std::uint8_t>(
          (acs || imaging ? kLineAcquired : 0) | (acs ? kLineCalibration : 0) | (imaging ? kLineImaging : 0));
      acquired += acs || imaging;
    }
    raw.noise_samples = 100;
    raw.noise.assign(static_cast<std::size_t>(raw.noise_samples) * raw.ncoils, {0.01f, 0.02f});
    write_raw_ismrmrd(spath("indep.h5"), raw);

    const std::string xml = hdf5_xml_header(spath("indep.h5"));
    QVERIFY2(!xml.empty(), "HDF5 could not read /dataset/xml");
    QCOMPARE(hdf5_acquisition_count(spath("indep.h5")), static_cast<long long>(acquired + 1));  // + the noise readout
    {
      QFile f(path("indep.xml"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(xml.data(), static_cast<qint64>(xml.size()));
    }
    const QString xsd = "/usr/share/ismrmrd/schema/ismrmrd.xsd";
    if (!tool("xmllint").isEmpty() && QFileInfo::exists(xsd)) {
      const Run r = run_program(tool("xmllint"), {"--noout", "--schema", xsd, path("indep.xml")});
      QVERIFY2(r.code == 0, qPrintable(r.err));
    } else {
      qWarning("xmllint or the ISMRMRD schema missing: schema check skipped");
    }
    if (!tool("ismrmrd_test_xml").isEmpty()) {
      const Run r = run_program(tool("ismrmrd_test_xml"), {path("indep.xml")});
      QVERIFY2(r.code == 0, qPrintable(r.out + r.err));  // it aborts on a header it cannot deserialize
    }
    if (!tool("ismrmrd_read_timing_test").isEmpty()) {
      const Run r = run_program(tool("ismrmrd_read_timing_test"), {path("indep.h5")});
      QVERIFY2(r.code == 0 && r.out.contains("READ TIMER"), qPrintable(r.out + r.err));
    }
    ISMRMRD::IsmrmrdHeader h;
    ISMRMRD::deserialize(xml.c_str(), h);
    QCOMPARE(h.experimentalConditions.H1resonanceFrequency_Hz, 127732437L);  // 3 T x 42.577 MHz/T
    QVERIFY(h.acquisitionSystemInformation && h.acquisitionSystemInformation->receiverChannels);
    QCOMPARE(static_cast<int>(*h.acquisitionSystemInformation->receiverChannels), 4);
    QCOMPARE(h.encoding.size(), std::size_t{1});
    const auto& e = h.encoding[0];
    QCOMPARE(static_cast<int>(e.encodedSpace.matrixSize.x), 64);
    QCOMPARE(static_cast<int>(e.encodedSpace.matrixSize.y), 32);
    QCOMPARE(static_cast<int>(e.reconSpace.matrixSize.x), 32);
    QCOMPARE(e.encodedSpace.fieldOfView_mm.x, 400.f);
    QCOMPARE(e.reconSpace.fieldOfView_mm.x, 200.f);
    QVERIFY(e.trajectory == ISMRMRD::TrajectoryType::CARTESIAN);
    QVERIFY(e.encodingLimits.kspace_encoding_step_1);
    QCOMPARE(static_cast<int>(e.encodingLimits.kspace_encoding_step_1->maximum), 31);
    QCOMPARE(static_cast<int>(e.encodingLimits.kspace_encoding_step_1->center), 16);
    QVERIFY(e.parallelImaging);
    QCOMPARE(static_cast<int>(e.parallelImaging->accelerationFactor.kspace_encoding_step_1), 2);
  }

  void bartPhantomReadBackExactly() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    QCOMPARE(run_program(tool("bart"), {"phantom", "-x", "128", path("ph")}).code, 0);
    const CflArray a = read_cfl(spath("ph"));
    QCOMPARE(a.dims.at(0), 128L);
    QCOMPARE(a.dims.at(1), 128L);
    QCOMPARE(a.size(), std::size_t{128 * 128});
    // Ours written back is byte-identical to BART's.
    write_cfl(spath("ph_ours.cfl"), a);
    QFile f1(path("ph.cfl")), f2(path("ph_ours.cfl"));
    QVERIFY(f1.open(QIODevice::ReadOnly) && f2.open(QIODevice::ReadOnly));
    QVERIFY(f1.readAll() == f2.readAll());
    // BART reads ours: dimensions, and a value at a known index.
    Run r = run_program(tool("bart"), {"show", "-m", path("ph_ours")});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("Dimensions: 16") && r.out.contains("AoD:\t128\t128\t1"), qPrintable(r.out));
    r = run_program(tool("bart"), {"nrmse", path("ph"), path("ph_ours")});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out.trimmed().toDouble(), 0.0);
    // The image reader agrees with BART's own dump.
    const Image2D img = read_image_cfl(spath("ph"));
    QCOMPARE(img.nx, 128);
    r = run_program(tool("bart"), {"slice", "1", "64", path("ph"), path("row")});
    QCOMPARE(r.code, 0);
    r = run_program(tool("bart"), {"show", path("row")});
    const QStringList vals = r.out.split(QRegularExpression("\\s+"), Qt::SkipEmptyParts);
    QCOMPARE(vals.size(), 128);
    for (int x = 0; x < 128; x += 17) {
      const QString v = vals[x];  // "+2.000000e-01+0.000000e+00i"
      const double re = QRegularExpression("^([+-]?[0-9.]+e[+-][0-9]+)").match(v).captured(1).toDouble();
      QVERIFY2(std::abs(re - img.data[64 * 128 + x].real()) < 1e-5, qPrintable(v));
    }
  }

  void bartMultiCoilKspaceReconAndOutputReadByBart() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run_program(bart, {"phantom", "-k", "-s", "4", "-x", "64", path("k")}).code, 0);
    const RawData raw = read_raw_cfl(spath("k.cfl"));
    QCOMPARE(raw.nx, 64);
    QCOMPARE(raw.ny, 64);
    QCOMPARE(raw.ncoils, 4);
    const Image2D ours = reconstruct_fft(raw);
    write_image_cfl(spath("ours"), ours);
    // BART's reconstruction of the same k-space: inverse FFT (unnormalised) and root sum of squares.
    QCOMPARE(run_program(bart, {"fft", "-i", "3", path("k"), path("coils")}).code, 0);
    QCOMPARE(run_program(bart, {"rss", "8", path("coils"), path("rss")}).code, 0);
    QCOMPARE(run_program(bart, {"scale", QString::number(1.0 / (64 * 64), 'g', 17), path("rss"), path("rss_n")}).code, 0);
    const Run r = run_program(bart, {"nrmse", path("rss_n"), path("ours")});
    QCOMPARE(r.code, 0);
    qInfo("BART fft+rss vs ours: nrmse %s", qPrintable(r.out.trimmed()));
    QVERIFY2(r.out.trimmed().toDouble() < 1e-5, qPrintable(r.out));
  }

  void bartRadialTrajectoryIsReadInCyclesPerFov() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run_program(bart, {"traj", "-r", "-x", "64", "-y", "33", path("t")}).code, 0);
    QCOMPARE(run_program(bart, {"phantom", "-k", "-s", "2", "-t", path("t"), path("kr")}).code, 0);
    const RawData raw = read_raw_cfl(spath("kr"), spath("t"));
    QVERIFY(!raw.cartesian());
    QCOMPARE(raw.nx, 64);
    QCOMPARE(raw.ny, 33);
    QCOMPARE(raw.ncoils, 2);
    QCOMPARE(raw.traj_dims, 2);
    const CflArray t = read_cfl(spath("t"));
    float kmax = 0;
    for (std::size_t p = 0; p < static_cast<std::size_t>(64 * 33); ++p) {
      QCOMPARE(raw.traj[2 * p], t.data[3 * p].real());
      QCOMPARE(raw.traj[2 * p + 1], t.data[3 * p + 1].real());
      kmax = std::max(kmax, std::hypot(raw.traj[2 * p], raw.traj[2 * p + 1]));
    }
    QVERIFY(kmax > 31 && kmax <= 32.01);  // cycles per FOV: a 64-sample spoke reaches |k| = 32
    // Through ISMRMRD and back: trajectory kept (normalised to the encoded matrix in the file).
    write_raw_ismrmrd(spath("radial.h5"), raw);
    const RawData back = read_raw_ismrmrd(spath("radial.h5"));
    QCOMPARE(back.ny, 33);
    QCOMPARE(back.traj_dims, 2);
    QVERIFY(back.kspace == raw.kspace);
    for (std::size_t i = 0; i < raw.traj.size(); ++i) QVERIFY(std::abs(back.traj[i] - raw.traj[i]) < 1e-4f);
    QVERIFY_THROWS_EXCEPTION(InputError, reconstruct_fft(raw));  // FFT refuses non-Cartesian data
  }
  void cliReconReadsCflWritesEveryFormatAndSaysWhatItRead() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run_program(bart, {"phantom", "-k", "-s", "4", "-x", "64", path("ck")}).code, 0);
    Run r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("ck.cfl"), "--out", path("ci.cfl"), "--out", path("ci.nii"),
                                "--out", path("ci.png"), "--out", path("ci.h5")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("slice 0, repetition 0, contrast 0") && r.err.contains("4 coil(s)"), qPrintable(r.err));
    r = run_program(bart, {"show", "-m", path("ci")});
    QVERIFY2(r.out.contains("AoD:\t64\t64\t1"), qPrintable(r.out));
    for (const char* other : {"ci.nii", "ci.h5"}) {
      r = run_program(MRWB_CLI_PATH, {"compare", "--image", path("ci.cfl"), "--reference", path(other), "--json"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QVERIFY2(r.out.contains("\"nrmse\": 0.0"), qPrintable(r.out));
    }
  }
  void cliReconPicksRepetitionOfIsmrmrdFile() {
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) QSKIP("ismrmrd_generate_cartesian_shepp_logan not installed");
    QVERIFY(run_program(tool("ismrmrd_generate_cartesian_shepp_logan"), {"-m", "32", "-c", "2", "-r", "3", "-C", "-o", path("rep.h5")}).code == 0);
    Run r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("rep.h5"), "--repetition", "2", "--out", path("rep2.h5")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("repetition 2 of 0..2") && r.err.contains("1 noise acquisition"), qPrintable(r.err));
    r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("rep.h5"), "--repetition", "3", "--out", path("rep3.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.trimmed().count('\n') == 0 && r.err.contains("repetition 0..2"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(path("rep3.h5")));
  }
  void cliSimulateWritesBartKspaceAndTruthInEveryFormat() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    {
      QFile f(path("small.json"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"format": "mrwb-scenario", "version": 1, "name": "small",
        "phantom": {"preset": "straight_vessel", "cells_per_voxel": 2, "disc_radius_m": 0.05},
        "sequence": {"type": "spoiled_gre", "TR_s": 0.01, "TE_s": 0.004, "flip_angle_deg": 20.0, "fov_m": 0.128,
                     "matrix": 32, "bandwidth_Hz_per_pixel": 500.0, "dummy_scans": 20},
        "coils": {"count": 2}, "backend": "cpu"})");
    }
    Run r = run_program(MRWB_CLI_PATH, {"simulate", "--scenario", path("small.json"), "--out", path("sk.cfl"), "--truth",
                                path("st.cfl"), "--truth", path("st.nii"), "--truth", path("st.png"), "--png-bits", "16",
                                "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    // BART reads our k-space [READ, PHS1, 1, COIL]; its inverse FFT + root sum of squares matches our FFT recon.
    r = run_program(bart, {"show", "-m", path("sk")});
    QVERIFY2(r.out.contains("AoD:\t32\t32\t1\t2"), qPrintable(r.out));
    QCOMPARE(run_program(bart, {"fft", "-i", "3", path("sk"), path("sc")}).code, 0);
    QCOMPARE(run_program(bart, {"rss", "8", path("sc"), path("srss")}).code, 0);
    QCOMPARE(run_program(bart, {"scale", QString::number(1.0 / (32 * 32), 'g', 17), path("srss"), path("srss_n")}).code, 0);
    r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("sk.cfl"), "--out", path("sr.cfl"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_program(bart, {"nrmse", path("srss_n"), path("sr")});
    QCOMPARE(r.code, 0);
    qInfo("simulate --out .cfl: BART fft -i + rss vs our FFT recon, nrmse %s", qPrintable(r.out.trimmed()));
    QVERIFY2(r.out.trimmed().toDouble() < 1e-5, qPrintable(r.out));
    // The truth in every format is the same image; the PNG has the asked bit depth.
    r = run_program(MRWB_CLI_PATH, {"compare", "--image", path("st.cfl"), "--reference", path("st.nii"), "--json"});
    QVERIFY2(r.code == 0 && r.out.contains("\"nrmse\": 0.0"), qPrintable(r.out + r.err));
    const PngPixels png = read_png(spath("st.png"));
    QCOMPARE(png.bit_depth, 16);
    QCOMPARE(png.width, 32);
    // Cartesian k-space has no trajectory: --traj-out is refused, nothing is written.
    r = run_program(MRWB_CLI_PATH, {"simulate", "--scenario", path("small.json"), "--out", path("sk2.cfl"), "--traj-out",
                            path("st2.cfl"), "--quiet"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.trimmed().count('\n') == 0 && r.err.contains("--traj-out"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(path("sk2.cfl")) && !QFileInfo::exists(path("st2.cfl")));
    // Unknown formats fail before simulating.
    for (const QStringList& bad : {QStringList{"--out", path("sk3.mat")}, QStringList{"--out", path("sk3.cfl"), "--truth", path("t.jpg")}}) {
      r = run_program(MRWB_CLI_PATH, QStringList{"simulate", "--scenario", path("small.json"), "--quiet"} + bad);
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.trimmed().count('\n') == 0, qPrintable(r.err));
      QVERIFY(!QFileInfo::exists(path("sk3.cfl")));
    }
  }
  void cliSimulateRadialWritesBartTrajectory() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    {
      QFile f(path("radial.json"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"format": "mrwb-scenario", "version": 1, "name": "radial",
        "phantom": {"preset": "straight_vessel", "cells_per_voxel": 2, "disc_radius_m": 0.05},
        "sequence": {"type": "spoiled_gre", "TR_s": 0.01, "TE_s": 0.004, "flip_angle_deg": 20.0, "fov_m": 0.128,
                     "matrix": 32, "bandwidth_Hz_per_pixel": 500.0, "dummy_scans": 20, "trajectory": "radial"},
        "recon": {"method": "gridding"}, "coils": {"count": 2}, "backend": "cpu"})");
    }
    // The same simulation as ISMRMRD and as BART k-space + trajectory (default name <out>_traj.cfl).
    Run r = run_program(MRWB_CLI_PATH, {"simulate", "--scenario", path("radial.json"), "--out", path("rad.h5"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run_program(MRWB_CLI_PATH, {"simulate", "--scenario", path("radial.json"), "--out", path("rad.cfl")});
    QVERIFY2(r.code == 0 && r.err.contains("rad_traj.cfl"), qPrintable(r.err));
    const RawData h5 = read_raw_ismrmrd(spath("rad.h5"));
    QVERIFY(!h5.cartesian());
    r = run_program(tool("bart"), {"show", "-m", path("rad_traj")});
    QVERIFY2(r.out.contains(QString("AoD:\t3\t%1\t%2").arg(h5.nx).arg(h5.ny)), qPrintable(r.out));
    r = run_program(tool("bart"), {"show", "-m", path("rad")});
    QVERIFY2(r.out.contains(QString("AoD:\t1\t%1\t%2\t2").arg(h5.nx).arg(h5.ny)), qPrintable(r.out));
    const RawData cfl = read_raw_cfl(spath("rad.cfl"), spath("rad_traj.cfl"));
    QCOMPARE(cfl.traj.size(), h5.traj.size());
    float kmax = 0, worst_k = 0;
    for (std::size_t i = 0; i < h5.traj.size(); ++i) {
      worst_k = std::max(worst_k, std::abs(cfl.traj[i] - h5.traj[i]));
      kmax = std::max(kmax, std::abs(cfl.traj[i]));
    }
    QVERIFY2(worst_k < 1e-3f, qPrintable(QString("trajectories differ by %1 cycles/FOV").arg(worst_k)));
    QVERIFY(kmax > 15 && kmax <= 16.01);  // cycles per FOV: a 32-sample spoke reaches |k| = 16
    QVERIFY(cfl.kspace == h5.kspace);  // the simulation is deterministic
  }
  void ourNonCartesianCflIsBartsOwn() {
    // BART's radial k-space and trajectory read and written back by us: identical arrays for BART.
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run_program(bart, {"traj", "-r", "-x", "32", "-y", "21", path("rt")}).code, 0);
    QCOMPARE(run_program(bart, {"phantom", "-k", "-s", "2", "-t", path("rt"), path("rk")}).code, 0);
    write_raw_cfl(spath("rk_ours.cfl"), spath("rt_ours.cfl"), read_raw_cfl(spath("rk"), spath("rt")));
    for (const auto& [theirs, ours] : {std::pair{"rk", "rk_ours"}, std::pair{"rt", "rt_ours"}}) {
      const Run r = run_program(bart, {"nrmse", path(theirs), path(ours)});
      QVERIFY2(r.code == 0 && r.out.trimmed().toDouble() == 0.0, qPrintable(QString(ours) + ": " + r.out + r.err));
    }
  }
  void cliPngBitDepthWindowLevelAndErrorMapScale() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    QCOMPARE(run_program(tool("bart"), {"phantom", "-k", "-s", "2", "-x", "48", path("pk")}).code, 0);
    // Window 0.5 wide centred at 0.35: [0.1, 0.6] maps onto 0 .. 65535.
    Run r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("pk.cfl"), "--out", path("pw.png"), "--out", path("pw.cfl"),
                                "--png-bits", "16", "--window", "0.5", "--level", "0.35", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const Image2D img = read_image_cfl(spath("pw"));
    const PngPixels png = read_png(spath("pw.png"));
    QCOMPARE(png.bit_depth, 16);
    QCOMPARE(png.channels, 1);
    QCOMPARE(png.width, img.nx);
    QCOMPARE(png.height, img.ny);
    int below = 0, above = 0;
    unsigned worst = 0;
    for (int row = 0; row < png.height; ++row)
      for (int x = 0; x < png.width; ++x) {
        const double m = std::abs(img.data[static_cast<std::size_t>(png.height - 1 - row) * img.nx + x]);  // +y up
        const double t = std::clamp((m - 0.1) / 0.5, 0.0, 1.0);
        const auto expect = static_cast<unsigned>(std::lround(65535 * t));
        const unsigned got = png.samples[static_cast<std::size_t>(row) * png.width + x];
        worst = std::max(worst, got > expect ? got - expect : expect - got);
        below += m < 0.1, above += m > 0.6;
      }
    QVERIFY2(worst <= 2, qPrintable(QString("16-bit window off by %1").arg(worst)));  // float rounding of the magnitude
    QVERIFY(below > 0 && above > 0);  // the window clips at both ends here
    // Default: 8 bits, full range 0 .. max.
    r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("pk.cfl"), "--out", path("pf.png"), "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const PngPixels full = read_png(spath("pf.png"));
    QCOMPARE(full.bit_depth, 8);
    QCOMPARE(*std::max_element(full.samples.begin(), full.samples.end()), 255u);
    // Bad options: one line, exit 2, no output.
    for (const QStringList& bad : {QStringList{"--png-bits", "12"}, QStringList{"--window", "0.5"},
                                   QStringList{"--window", "-1", "--level", "0"}}) {
      r = run_program(MRWB_CLI_PATH, QStringList{"recon", "--in", path("pk.cfl"), "--out", path("pbad.png"), "--quiet"} + bad);
      QVERIFY2(r.code == 2 && r.err.trimmed().count('\n') == 0, qPrintable(bad.join(' ') + ": " + r.err));
      QVERIFY(!QFileInfo::exists(path("pbad.png")));
    }
    // compare: error map in a perceptual colormap with a colorbar, scale as asked.
    r = run_program(MRWB_CLI_PATH, {"compare", "--image", path("pw.cfl"), "--reference", path("pw.cfl"), "--error-map",
                            path("pe.png"), "--error-max", "0.25"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const PngPixels err = read_png(spath("pe.png"));
    QCOMPARE(err.channels, 3);
    QVERIFY(err.width > img.nx);  // the colorbar sits right of the map
    bool scale_found = false;
    for (const auto& [k, v] : err.text)
      if (k == "mrwb:error_max_abs") scale_found = std::abs(std::stod(v) - 0.25) < 1e-6;
    QVERIFY(scale_found);
  }
  void cliMalformedInputsExitTwoWithOneLine() {
    // A .cfl whose size disagrees with its .hdr, a truncated HDF5 file, absurd .cfl dimensions.
    {
      QFile h(path("bad.hdr")), c(path("bad.cfl"));
      QVERIFY(h.open(QIODevice::WriteOnly) && c.open(QIODevice::WriteOnly));
      h.write("# Dimensions\n8 8 1 1\n");
      c.write(QByteArray(8 * 8 * 8 - 3, '\0'));
      QFile hh(path("absurd.hdr")), cc(path("absurd.cfl"));
      QVERIFY(hh.open(QIODevice::WriteOnly) && cc.open(QIODevice::WriteOnly));
      hh.write("# Dimensions\n1000000000 1000000000 1 1\n");
      cc.write(QByteArray(8, '\0'));
      QFile t(path("trunc.h5"));
      QVERIFY(t.open(QIODevice::WriteOnly));
      RawData raw;
      raw.nx = 16;
      raw.ny = 16;
      raw.kspace.assign(256, {1.f, 0.f});
      write_raw_ismrmrd(spath("whole.h5"), raw);
      QFile w(path("whole.h5"));
      QVERIFY(w.open(QIODevice::ReadOnly));
      const QByteArray all = w.readAll();
      t.write(all.left(all.size() / 2));
    }
    for (const char* in : {"bad.cfl", "absurd.cfl", "trunc.h5"}) {
      const Run r = run_program(MRWB_CLI_PATH, {"recon", "--in", path(in), "--out", path("never.h5")});
      QVERIFY2(r.code == 2, qPrintable(QString(in) + ": " + r.err));
      QVERIFY2(r.err.trimmed().count(QChar(10)) == 0 && r.err.contains(QString(in).section(QChar(46), 0, 0)), qPrintable(r.err));  // names the file
      QVERIFY(!QFileInfo::exists(path("never.h5")));
    }
  }
  void cliNonCartesianCflWithTrajectory() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run_program(bart, {"traj", "-r", "-x", "64", "-y", "101", path("nt")}).code, 0);
    QCOMPARE(run_program(bart, {"phantom", "-k", "-t", path("nt"), path("nk")}).code, 0);
    // FFT cannot take it: a one-line input error.
    Run r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("nk.cfl"), "--traj", path("nt.cfl"), "--method", "fft", "--out", path("nf.cfl")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("non-Cartesian"), qPrintable(r.err));
    // Gridding: whatever the registry offers for it answers (see reconstructor.hpp).
    r = run_program(MRWB_CLI_PATH, {"recon", "--in", path("nk.cfl"), "--traj", path("nt.cfl"), "--method", "gridding",
                            "--backend", "cpu", "--out", path("ng.cfl")});
    if (r.code == 1 && r.err.contains("not yet available")) QSKIP("gridding is not available in this build");
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("non-Cartesian k-space"), qPrintable(r.err));
    r = run_program(bart, {"show", "-m", path("ng")});
    QCOMPARE(r.code, 0);
    QCOMPARE(run_program(bart, {"phantom", "-x", "64", path("np")}).code, 0);
    // How close the gridding image is to BART's phantom (shape only: magnitudes, best scale).
    const Image2D g = read_image_cfl(spath("ng")), p = read_image_cfl(spath("np"));
    if (g.nx == p.nx && g.ny == p.ny) {
      double gp = 0, gg = 0, pp = 0;
      for (std::size_t i = 0; i < g.data.size(); ++i) {
        const double a = std::abs(g.data[i]), b = std::abs(p.data[i]);
        gp += a * b, gg += a * a, pp += b * b;
      }
      qInfo("gridding of BART's radial phantom k-space (101 spokes) vs bart phantom: correlation %.3f", gp / std::sqrt(gg * pp));
    }
  }
};

QTEST_GUILESS_MAIN(TestInterop)
#include "test_interop.moc"
