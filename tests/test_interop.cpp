// Interoperability with the tools users already have: files made by ismrmrd_generate_cartesian_shepp_logan
// and BART are read correctly; files we write are read by ismrmrd_recon_cartesian_2d and BART. Every file
// is generated here, in a temporary folder. A missing tool is a visible SKIP.
#include <QtTest>

#include <ismrmrd/dataset.h>

#include <cmath>

#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"
#include "mrwb/metrics.hpp"
#include "mrwb/recon_fft.hpp"
#include "mrwb/reconstructor.hpp"

using namespace mrwb;

namespace {

struct Run {
  int code;
  QString out, err;
};

Run run(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(300000)) return {-1, {}, "timeout"};
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

QString tool(const char* name) { return QStandardPaths::findExecutable(name); }

// Root sum of squares of the generator's coil images [coil][y][x_oversampled], cropped to the recon
// space (the phantom sits in the central columns of the oversampled readout).
std::vector<float> reference_sos(ISMRMRD::NDArray<std::complex<float>>& coil_images, int recon_nx) {
  const int nxo = static_cast<int>(coil_images.getDims()[0]), ny = static_cast<int>(coil_images.getDims()[1]);
  const int nc = static_cast<int>(coil_images.getDims()[2]);
  const int x0 = (nxo - recon_nx) / 2;
  std::vector<float> sos(static_cast<std::size_t>(recon_nx) * ny, 0.f);
  for (int c = 0; c < nc; ++c)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < recon_nx; ++x)
        sos[static_cast<std::size_t>(y) * recon_nx + x] += std::norm(coil_images(x + x0, y, c));
  for (auto& v : sos) v = std::sqrt(v);
  return sos;
}

}  // namespace

class TestInterop : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const char* n) const { return dir_.filePath(n); }
  std::string spath(const char* n) const { return path(n).toStdString(); }

  // Generator's file, FFT + SoS of ours against its own coil images. Returns PSNR [dB]; with
  // whiten = false the noise scan is ignored (to show what prewhitening does).
  double shepp_logan_psnr(const QStringList& extra, const char* name, bool whiten = true) {
    const QString gen = tool("ismrmrd_generate_cartesian_shepp_logan");
    QStringList args = {"-m", "128", "-c", "8", "-O", "2", "-C", "-o", path(name)};
    args << extra;
    if (!QFileInfo::exists(path(name))) {
      const Run r = run(gen, args);
      if (r.code != 0) qWarning("%s", qPrintable(r.err));
    }
    RawData raw = read_raw_ismrmrd(spath(name));
    if (raw.noise_samples != 256) qWarning("noise scan missing");
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
    QVERIFY(run(tool("ismrmrd_generate_cartesian_shepp_logan"), {"-m", "128", "-C", "-o", path("sl.h5")}).code == 0);
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
    // the reconstruction. The bar is checked at sd 0.005, and without noise the match is exact.
    const double psnr_default = shepp_logan_psnr({}, "sl_default.h5");
    const double psnr_low = shepp_logan_psnr({"-n", "0.005"}, "sl_low.h5");
    const double psnr_low_unwhitened = shepp_logan_psnr({"-n", "0.005"}, "sl_low.h5", false);
    const double psnr_none = shepp_logan_psnr({"-n", "0"}, "sl_none.h5");
    qInfo("FFT + SoS vs the file's coil images: PSNR %.2f dB at noise sd 0.005 (%.2f dB without prewhitening), "
          "%.2f dB without noise, %.2f dB at the generator's default sd 0.05 (noise-limited)",
          psnr_low, psnr_low_unwhitened, psnr_none, psnr_default);
    QVERIFY2(psnr_low >= 35.0, qPrintable(QString("PSNR %1 dB").arg(psnr_low)));
    QVERIFY2(psnr_none >= 80.0, qPrintable(QString("PSNR %1 dB without noise").arg(psnr_none)));
    QVERIFY(psnr_default > 20.0);
  }

  void sheppLoganAcceleratedFlagsCalibrationAndRepetitions() {
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) QSKIP("ismrmrd_generate_cartesian_shepp_logan not installed");
    QVERIFY(run(tool("ismrmrd_generate_cartesian_shepp_logan"),
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
      grappa = make_reconstructor("grappa", "cpu");
    } catch (const std::exception& e) {
      QSKIP(e.what());
    }
    const QString gen = tool("ismrmrd_generate_cartesian_shepp_logan");
    QVERIFY(run(gen, {"-m", "128", "-n", "0.005", "-a", "2", "-w", "24", "-C", "-o", path("g_acc.h5")}).code == 0);
    QVERIFY(run(gen, {"-m", "128", "-n", "0.005", "-C", "-o", path("g_full.h5")}).code == 0);
    const RawData acc = read_raw_ismrmrd(spath("g_acc.h5"));
    const Image2D full = reconstruct_fft(read_raw_ismrmrd(spath("g_full.h5")));
    const Image2D zf = reconstruct_fft(acc);
    ReconOptions o;
    o.method = "grappa";
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
    RawData raw;
    raw.nx = 64;
    raw.ny = 32;
    raw.fov_x_m = 0.4;
    raw.fov_y_m = 0.2;
    raw.recon_nx = 32;
    raw.recon_ny = 32;
    raw.recon_fov_x_m = 0.2;
    raw.recon_fov_y_m = 0.2;
    raw.kspace.resize(static_cast<std::size_t>(raw.nx) * raw.ny);
    for (int l = 0; l < raw.ny; ++l)
      for (int s = 0; s < raw.nx; ++s)
        raw.at(0, l, s) = std::polar(1.0f / (1.0f + 0.01f * ((s - 32) * (s - 32) + (l - 16) * (l - 16))), 0.3f * s - 0.2f * l);
    write_raw_ismrmrd(spath("ours.h5"), raw);
    const Run r = run(recon, {path("ours.h5")});
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

  void bartPhantomReadBackExactly() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    QCOMPARE(run(tool("bart"), {"phantom", "-x", "128", path("ph")}).code, 0);
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
    Run r = run(tool("bart"), {"show", "-m", path("ph_ours")});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("Dimensions: 16") && r.out.contains("AoD:\t128\t128\t1"), qPrintable(r.out));
    r = run(tool("bart"), {"nrmse", path("ph"), path("ph_ours")});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out.trimmed().toDouble(), 0.0);
    // The image reader agrees with BART's own dump.
    const Image2D img = read_image_cfl(spath("ph"));
    QCOMPARE(img.nx, 128);
    r = run(tool("bart"), {"slice", "1", "64", path("ph"), path("row")});
    QCOMPARE(r.code, 0);
    r = run(tool("bart"), {"show", path("row")});
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
    QCOMPARE(run(bart, {"phantom", "-k", "-s", "4", "-x", "64", path("k")}).code, 0);
    const RawData raw = read_raw_cfl(spath("k.cfl"));
    QCOMPARE(raw.nx, 64);
    QCOMPARE(raw.ny, 64);
    QCOMPARE(raw.ncoils, 4);
    const Image2D ours = reconstruct_fft(raw);
    write_image_cfl(spath("ours"), ours);
    // BART's reconstruction of the same k-space: inverse FFT (unnormalised) and root sum of squares.
    QCOMPARE(run(bart, {"fft", "-i", "3", path("k"), path("coils")}).code, 0);
    QCOMPARE(run(bart, {"rss", "8", path("coils"), path("rss")}).code, 0);
    QCOMPARE(run(bart, {"scale", QString::number(1.0 / (64 * 64), 'g', 17), path("rss"), path("rss_n")}).code, 0);
    const Run r = run(bart, {"nrmse", path("rss_n"), path("ours")});
    QCOMPARE(r.code, 0);
    qInfo("BART fft+rss vs ours: nrmse %s", qPrintable(r.out.trimmed()));
    QVERIFY2(r.out.trimmed().toDouble() < 1e-5, qPrintable(r.out));
  }

  void bartRadialTrajectoryIsReadInCyclesPerFov() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run(bart, {"traj", "-r", "-x", "64", "-y", "33", path("t")}).code, 0);
    QCOMPARE(run(bart, {"phantom", "-k", "-s", "2", "-t", path("t"), path("kr")}).code, 0);
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
    QCOMPARE(run(bart, {"phantom", "-k", "-s", "4", "-x", "64", path("ck")}).code, 0);
    Run r = run(MRWB_CLI_PATH, {"recon", "--in", path("ck.cfl"), "--out", path("ci.cfl"), "--out", path("ci.nii"),
                                "--out", path("ci.png"), "--out", path("ci.h5")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("slice 0, repetition 0, contrast 0") && r.err.contains("4 coil(s)"), qPrintable(r.err));
    r = run(bart, {"show", "-m", path("ci")});
    QVERIFY2(r.out.contains("AoD:\t64\t64\t1"), qPrintable(r.out));
    for (const char* other : {"ci.nii", "ci.h5"}) {
      r = run(MRWB_CLI_PATH, {"compare", "--image", path("ci.cfl"), "--reference", path(other), "--json"});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QVERIFY2(r.out.contains("\"nrmse\": 0.0"), qPrintable(r.out));
    }
  }
  void cliReconPicksRepetitionOfIsmrmrdFile() {
    if (tool("ismrmrd_generate_cartesian_shepp_logan").isEmpty()) QSKIP("ismrmrd_generate_cartesian_shepp_logan not installed");
    QVERIFY(run(tool("ismrmrd_generate_cartesian_shepp_logan"), {"-m", "32", "-c", "2", "-r", "3", "-C", "-o", path("rep.h5")}).code == 0);
    Run r = run(MRWB_CLI_PATH, {"recon", "--in", path("rep.h5"), "--repetition", "2", "--out", path("rep2.h5")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("repetition 2 of 0..2") && r.err.contains("1 noise acquisition"), qPrintable(r.err));
    r = run(MRWB_CLI_PATH, {"recon", "--in", path("rep.h5"), "--repetition", "3", "--out", path("rep3.h5")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.trimmed().count('\n') == 0 && r.err.contains("repetition 0..2"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(path("rep3.h5")));
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
      const Run r = run(MRWB_CLI_PATH, {"recon", "--in", path(in), "--out", path("never.h5")});
      QVERIFY2(r.code == 2, qPrintable(QString(in) + ": " + r.err));
      QVERIFY2(r.err.trimmed().count(QChar(10)) == 0 && r.err.contains(QString(in).section(QChar(46), 0, 0)), qPrintable(r.err));  // names the file
      QVERIFY(!QFileInfo::exists(path("never.h5")));
    }
  }
  void cliNonCartesianCflWithTrajectory() {
    if (tool("bart").isEmpty()) QSKIP("bart not installed");
    const QString bart = tool("bart");
    QCOMPARE(run(bart, {"traj", "-r", "-x", "64", "-y", "101", path("nt")}).code, 0);
    QCOMPARE(run(bart, {"phantom", "-k", "-t", path("nt"), path("nk")}).code, 0);
    // FFT cannot take it: a one-line input error.
    Run r = run(MRWB_CLI_PATH, {"recon", "--in", path("nk.cfl"), "--traj", path("nt.cfl"), "--method", "fft", "--out", path("nf.cfl")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("non-Cartesian"), qPrintable(r.err));
    // Gridding: whatever the registry offers for it answers (see reconstructor.hpp).
    r = run(MRWB_CLI_PATH, {"recon", "--in", path("nk.cfl"), "--traj", path("nt.cfl"), "--method", "gridding",
                            "--backend", "cpu", "--out", path("ng.cfl")});
    if (r.code == 1 && r.err.contains("not yet available")) QSKIP("gridding is not available in this build");
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("non-Cartesian k-space"), qPrintable(r.err));
    r = run(bart, {"show", "-m", path("ng")});
    QCOMPARE(r.code, 0);
    QCOMPARE(run(bart, {"phantom", "-x", "64", path("np")}).code, 0);
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
