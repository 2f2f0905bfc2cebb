// Compressed sensing (recon/compressed_sensing.hpp; Lustig et al. 2007) with the SENSE model:
//  - the product bar: on a piecewise-smooth complex object seen by 8 loop coils, variable-density
//    Poisson-disc lines at R = 4 (16 ACS) and complex Gaussian k-space noise, L1-wavelet (FISTA) and TV
//    (ADMM) each beat zero-filled and CG-SENSE by >= 3 dB PSNR;
//  - against BART 0.8.00 on a case built with BART's own tools (phantom, 2-D Poisson-disc mask over kx-ky,
//    ecalib maps): `bart pics -l1`, `-R T:3:0:λ` and `-l2` with the same λ and iterations and BART's data
//    scaling switched off (-w 1, so λ means the same in both: our E is unitary like BART's); our PSNR is at
//    most 0.5 dB below BART's for each, and the times are reported. Skipped without `bart`.
//  - against BART's default usage on the path of `mrwb recon --in ku.cfl --method cs|sense --maps espirit`:
//    256^2, variable-density Poisson-disc lines at R = 3.5 with 24 calibration lines, each tool its own ESPIRiT
//    maps and its own default data scaling (ours is BART's rule: the same scale to 1e-4), lambda 0.005 and
//    100 iterations for TV, L1-wavelet and CG-SENSE; ours at most 0.5 dB below BART's for each. Skipped without
//    `bart`.
//  - refusals and cancellation.
// PSNR: magnitudes after one least-squares scale against the reference (BART scales its output; the
// zero-filled image has no natural scale), compare_images (metrics.hpp).
#include <QFile>
#include <QTest>

#include <QTemporaryDir>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "input_error.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/coil_sensitivity.hpp"
#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/cg_sense.hpp"
#include "mrwb/recon/compressed_sensing.hpp"
#include "mrwb/recon/espirit.hpp"
#include "mrwb/recon/reconstructor.hpp"
#include "mrwb/sequence/undersampling_pattern.hpp"

using namespace mrwb;
using cfloat = std::complex<float>;

namespace {

constexpr int kN = 128, kCoils = 8;
constexpr double kFov = 0.22;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Piecewise smooth: a head-like ellipse with a smooth bias, an inner region with a slow oscillation, discs
// with quadratic shading, a dark ventricle-like ellipse, and a smooth phase over the whole object.
std::vector<cfloat> piecewise_smooth() {
  std::vector<cfloat> im(kN * kN);
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      const double u = (x - kN / 2.0) / kN, v = (y - kN / 2.0) / kN;
      auto in = [&](double cx, double cy, double a, double b) {
        return ((u - cx) / a) * ((u - cx) / a) + ((v - cy) / b) * ((v - cy) / b) <= 1;
      };
      if (!in(0, 0, 0.42, 0.46)) continue;
      double m = 0.9 + 0.25 * u;  // scalp, with a receive-like bias
      if (in(0, 0, 0.36, 0.40)) m = 0.55 + 0.08 * std::sin(2 * M_PI * v * 3) + 0.1 * u;
      if (in(-0.12, -0.08, 0.07, 0.07)) m = 1.0 - 8 * ((u + 0.12) * (u + 0.12) + (v + 0.08) * (v + 0.08));
      if (in(0.14, 0.06, 0.06, 0.09)) m = 0.25 + 0.5 * (v - 0.06);
      if (in(0.0, 0.18, 0.15, 0.05)) m = 0.8;
      if (in(0.02, -0.02, 0.04, 0.12)) m = 0.1;
      im[y * kN + x] = std::polar(static_cast<float>(m), static_cast<float>(0.6 * u + 0.4 * v * v));
    }
  return im;
}

std::vector<float> magnitudes(const std::vector<cfloat>& a) {
  std::vector<float> m(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) m[i] = std::abs(a[i]);
  return m;
}

// PSNR of |a| against |ref| after the least-squares scale s = <|a|, |ref|> / <|a|, |a|>.
double psnr(const std::vector<cfloat>& a, const std::vector<cfloat>& ref, int nx, int ny) {
  std::vector<float> ma = magnitudes(a);
  const std::vector<float> mr = magnitudes(ref);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ma.size(); ++i) num += double(ma[i]) * mr[i], den += double(ma[i]) * ma[i];
  for (auto& v : ma) v = static_cast<float>(v * num / den);
  return compare_images(ma, mr, nx, ny).psnr_db;
}

// Keeps the lines of `flags`, zeroes the others.
void apply_lines(RawData& raw, const std::vector<std::uint8_t>& flags) {
  raw.line_flags = flags;
  for (int c = 0; c < raw.ncoils; ++c)
    for (int y = 0; y < raw.ny; ++y)
      if (!(flags[y] & kLineAcquired))
        for (int x = 0; x < raw.nx; ++x) raw.at(c, y, x) = {};
}

struct ProductCase {
  std::vector<cfloat> truth, maps;
  RawData raw;
};

ProductCase product_case() {
  ProductCase pc;
  pc.truth = piecewise_smooth();
  pc.maps = loop_coil_sensitivities(kCoils, kN, kN, kFov);
  pc.raw = multicoil_raw(pc.truth, pc.maps, kCoils, kN, kN, kFov, kFov);
  apply_lines(pc.raw, poisson_disc_lines(kN, 4.0, 16, 1));
  // Complex white noise of sigma per k-space sample: per-coil image noise sigma / sqrt(N) = 1.5 % of the
  // object's brightest value (the coils' own SNR then is about 30 where they see most).
  add_correlated_noise(pc.raw, coil_noise_covariance(kCoils, 0.0), 0.015 * kN, 0, 7);
  return pc;
}

bool have_bart() { return std::system("bart version > /dev/null 2>&1") == 0; }

int run(const QString& cmd) { return std::system(cmd.toLocal8Bit().constData()); }

}  // namespace

class TestCompressedSensing : public QObject {
  Q_OBJECT
 private slots:
  void beatsZeroFilledAndCgSense() {
    const ProductCase pc = product_case();
    const CartesianSenseOperator E(kN, kN, kCoils, pc.maps, line_mask(pc.raw));
    const auto k = unitary_kspace(pc.raw);
    const auto zero_filled = E.adjoint(k);  // sum_c S_c^H F^H d_c, scaled by the PSNR's fit
    // CG-SENSE (lambda 0) at its best stopping point over 1 .. 40 iterations: an oracle choice in its favour.
    double p_cg = -1e9;
    int cg_its = 0;
    for (int it = 1; it <= 40; ++it) {
      CgSenseParams c;
      c.iterations = it;
      const double p = psnr(cg_sense_solve(E, k, c), pc.truth, kN, kN);
      if (p > p_cg) p_cg = p, cg_its = it;
    }
    // lambda of each regulariser from a sweep on this case (0.0003 .. 0.15): l1 best near 0.0015, TV near 0.003.
    CsParams l1;
    l1.lambda = 0.0015;
    l1.iterations = 100;
    CsReport l1_rep;
    double t0 = now_s();
    const auto l1_image = cs_solve(E, k, l1, &l1_rep);
    const double t_l1 = now_s() - t0;
    CsParams tv;
    tv.regularizer = "tv";
    tv.lambda = 0.003;
    tv.iterations = 500;  // CG steps in all (BART's meaning of pics -i for ADMM)
    CsReport tv_rep;
    t0 = now_s();
    const auto tv_image = cs_solve(E, k, tv, &tv_rep);
    const double t_tv = now_s() - t0;
    const double p_zf = psnr(zero_filled, pc.truth, kN, kN);
    const double p_l1 = psnr(l1_image, pc.truth, kN, kN), p_tv = psnr(tv_image, pc.truth, kN, kN);
    // The noise floor: every line, CG-SENSE to convergence.
    RawData full = multicoil_raw(pc.truth, pc.maps, kCoils, kN, kN, kFov, kFov);
    add_correlated_noise(full, coil_noise_covariance(kCoils, 0.0), 0.015 * kN, 0, 7);
    const CartesianSenseOperator F(kN, kN, kCoils, pc.maps, line_mask(full));
    CgSenseParams conv;
    conv.iterations = 50;
    conv.tolerance = 1e-6;
    const double p_full = psnr(cg_sense_solve(F, unitary_kspace(full), conv), pc.truth, kN, kN);
    qInfo("128^2 piecewise-smooth object, 8 loop coils, poisson-disc lines R = 4 (32 of 128, 16 ACS), noise 1.5 %%:");
    qInfo("  PSNR zero-filled %.2f dB, CG-SENSE (best stop: %d iterations) %.2f dB; every line, CG-SENSE: %.2f dB",
          p_zf, cg_its, p_cg, p_full);
    qInfo("  L1-wavelet FISTA (lambda %.3g, %d it, L = %.3f, %d levels, %.2f s) %.2f dB (%+.2f dB); TV ADMM (lambda "
          "%.3g, %d x-updates, %d CG steps, %.2f s) %.2f dB (%+.2f dB)", l1.lambda, l1_rep.iterations, l1_rep.lipschitz,
          l1_rep.wavelet_levels, t_l1, p_l1, p_l1 - std::max(p_zf, p_cg), tv.lambda, tv_rep.iterations,
          tv_rep.cg_steps, t_tv, p_tv, p_tv - std::max(p_zf, p_cg));
    const double zf_or_cg = std::max(p_zf, p_cg);
    QVERIFY2(p_l1 >= zf_or_cg + 3.0, "L1-wavelet CS does not beat zero-filled and CG-SENSE by 3 dB");
    QVERIFY2(p_tv >= zf_or_cg + 3.0, "TV CS does not beat zero-filled and CG-SENSE by 3 dB");
  }

  void matchesBartPics() {
    if (!have_bart()) QSKIP("bart not found");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto f = [&](const char* name) { return dir.filePath(name); };
    const int n = 128, iters = 100;
    const double lambda_l1 = 0.005, lambda_tv = 0.005, lambda_l2 = 0.01;
    // The case: 8-coil Shepp-Logan k-space, a 2-D Poisson-disc mask over (kx, ky) (elliptical, 20 x 20 calibration) (BART's
    // poisson draws it over its dims 1, 2; transposed to 0, 1), the data masked, ESPIRiT maps from them.
    const QString build =
        QString("cd %1 && bart phantom -x %2 -s 8 -k k && bart poisson -Y %2 -Z %2 -y 2 -z 2 -C 20 -e -s 3 p0 "
                "&& bart transpose 0 2 p0 p && bart fmac k p ku && bart ecalib -m1 ku maps && bart fft -u -i 3 k ci "
                "&& bart fmac -C -s 8 ci maps ref")
            .arg(dir.path())
            .arg(n) + " > " + f("log") + " 2>&1";
    QCOMPARE(run(build), 0);
    const CflArray ku = read_cfl(f("ku").toStdString()), maps = read_cfl(f("maps").toStdString());
    const CflArray mask = read_cfl(f("p").toStdString()), ref = read_cfl(f("ref").toStdString());
    QCOMPARE(ku.size(), std::size_t(n) * n * 8);
    QCOMPARE(maps.size(), std::size_t(n) * n * 8);
    std::vector<float> m(std::size_t(n) * n);
    double acquired = 0;
    for (std::size_t i = 0; i < m.size(); ++i) acquired += (m[i] = mask.data[i].real());
    // BART's [x, y, 1, coil] is our [coil][y][x] in memory; BART's pics model is ours: unitary centred DFT.
    const CartesianSenseOperator E(n, n, 8, maps.data, m);
    struct Case {
      const char* name;
      QString bart_opts;
      double lambda;
    };
    const Case cases[] = {
        {"l1-wavelet", QString("-e -l1 -r %1 -i %2").arg(lambda_l1).arg(iters), lambda_l1},
        {"tv", QString("-R T:3:0:%1 -i %2").arg(lambda_tv).arg(iters / 2), lambda_tv},
        {"cg-sense", QString("-l2 -r %1 -i %2").arg(lambda_l2).arg(30), lambda_l2},
    };
    qInfo("bart phantom -x %d -s 8 -k; 2-D poisson-disc mask, %.0f of %d samples (R = %.2f); ecalib -m1 maps; "
          "reference: the fully sampled data combined with the maps", n, acquired, n * n, n * n / acquired);
    for (const Case& c : cases) {
      // Timed with one and with two OpenMP threads; the faster counts (BART's spinning threads lose much on
      // a machine shared with other jobs).
      double t_bart_omp[2] = {0, 0};
      for (int threads : {1, 2}) {
        const QString cmd = QString("cd %1 && OMP_NUM_THREADS=%4 bart pics -w 1 %2 ku maps out_%3 > log_%3 2>&1")
                                .arg(dir.path(), c.bart_opts, QString(c.name))
                                .arg(threads);
        const double t0 = now_s();
        QCOMPARE(run(cmd), 0);
        t_bart_omp[threads - 1] = now_s() - t0;
      }
      const double t_bart = std::min(t_bart_omp[0], t_bart_omp[1]);
      const CflArray out = read_cfl(f((std::string("out_") + c.name).c_str()).toStdString());
      std::vector<cfloat> ours;
      const double t0 = now_s();
      if (std::string(c.name) == "cg-sense") {
        CgSenseParams p;
        p.iterations = 30;
        p.lambda = c.lambda;
        ours = cg_sense_solve(E, ku.data, p);
      } else {
        CsParams p;
        p.regularizer = c.name;
        p.lambda = c.lambda;
        p.iterations = std::string(c.name) == "tv" ? iters / 2 : iters;
        CsReport rep;
        ours = cs_solve(E, ku.data, p, &rep);
        if (std::string(c.name) == "tv")  // BART's -i bounds ADMM's CG steps; its -d5 log shows about 6 x-updates, 55 steps
          qInfo("  tv ours: %d x-updates, %d CG steps, residual test met: %d", rep.iterations, rep.cg_steps, int(rep.converged));
      }
      const double t_ours = now_s() - t0;
      const double p_bart = psnr(out.data, ref.data, n, n), p_ours = psnr(ours, ref.data, n, n);
      qInfo("  %-10s bart pics -w 1 %s: PSNR %.2f dB in %.3f s (OMP 1: %.3f s, OMP 2: %.3f s); ours %.2f dB in %.3f s "
            "(%+.2f dB, time x %.2f of BART's faster)", c.name, qPrintable(c.bart_opts), p_bart, t_bart, t_bart_omp[0],
            t_bart_omp[1], p_ours, t_ours, p_ours - p_bart, t_ours / t_bart);
      QVERIFY2(p_ours >= p_bart - 0.5, c.name);
    }
  }

  // Each tool used as it comes, with the same lambda and iterations (a review compared so). The case: 8-coil
  // Shepp-Logan k-space (256^2), a variable-density Poisson-disc pattern of ky lines (bart poisson over dim 1;
  // its calibration region needs two dims, so the 24 central lines are added with bart ones / resize / saxpy)
  // at R = 3.5. BART: bart ecalib -m1 maps, pics with its default data scaling (OMP_NUM_THREADS=1: BART's
  // spinning threads lose much on a machine shared with other jobs). Ours: the raw data read from the .cfl
  // (zero lines unacquired), ESPIRiT maps from its calibration lines and the CPU reconstructors, as the CLI.
  // One row per method (each its own CTest entry, the case built in each: under a minute on a busy 2-core machine).
  void matchesBartPicsOwnMaps_data() {
    QTest::addColumn<QString>("method");
    for (const char* m : {"tv", "l1-wavelet", "cg-sense"}) QTest::newRow(m) << QString(m);
  }
  void matchesBartPicsOwnMaps() {
    QFETCH(QString, method);
    if (!have_bart()) QSKIP("bart not found");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto f = [&](const char* name) { return dir.filePath(name); };
    const int n = 256, iters = 100;
    const double lambda = 0.005;
    double t0 = now_s();
    const QString build =
        QString("cd %1 && export OMP_NUM_THREADS=1 && bart phantom -x %2 -s 8 -k k && bart poisson -Y %2 -Z 1 -y 3.8 "
                "-z 1 -v -s 3 pv && bart ones 3 1 24 1 c && bart resize -c 1 %2 c cal && bart fmac pv cal both && "
                "bart saxpy -- -1 both pv t && bart saxpy 1 cal t p && bart fmac k p ku && bart ecalib -m1 ku maps "
                "&& bart fft -u -i 3 k ci && bart fmac -C -s 8 ci maps ref")
            .arg(dir.path())
            .arg(n) + " > " + f("log") + " 2>&1";
    QCOMPARE(run(build), 0);
    const double t_build = now_s() - t0;
    const CflArray ref = read_cfl(f("ref").toStdString());
    const RawData raw = read_raw(f("ku.cfl").toStdString());
    int acquired = 0;
    for (int y = 0; y < raw.ny; ++y) acquired += (raw.flags(y) & kLineAcquired) ? 1 : 0;
    QCOMPARE(acquired, 72);  // R = 256 / 72 = 3.56
    t0 = now_s();
    ReconOptions o;
    o.sense.maps = espirit_maps(raw, EspiritParams{}).maps;
    const double t_maps = now_s() - t0;
    o.sense.cg.iterations = o.cs.iterations = iters;
    o.sense.cg.lambda = o.cs.lambda = lambda;
    const double scale = cs_data_scale(unitary_kspace(raw), line_mask(raw), n, n, raw.ncoils);
    qInfo("bart phantom -x %d -s 8 -k; poisson lines + 24 calibration lines: %d of %d (R = %.2f); ours: ESPIRiT "
          "maps %.2f s (case built in %.1f s)", n, acquired, n, double(n) / acquired, t_maps, t_build);
    struct Case {
      const char* name;
      QString bart_opts;
      ReconMethod method;
      const char* regularizer;
    };
    const Case cases[] = {
        {"tv", QString("-R T:3:0:%1 -i %2").arg(lambda).arg(iters), ReconMethod::Cs, "tv"},
        {"l1-wavelet", QString("-l1 -r %1 -i %2").arg(lambda).arg(iters), ReconMethod::Cs, "l1-wavelet"},
        {"cg-sense", QString("-l2 -r %1 -i %2").arg(lambda).arg(iters), ReconMethod::Sense, ""},
    };
    for (const Case& c : cases) {
      if (method != c.name) continue;
      t0 = now_s();
      QCOMPARE(run(QString("cd %1 && OMP_NUM_THREADS=1 bart pics -d3 %2 ku maps out_%3 > log_%3 2>&1")
                       .arg(dir.path(), c.bart_opts, QString(c.name))), 0);
      const double t_bart = now_s() - t0;
      if (c.method == ReconMethod::Cs) {
        // The data scale: BART's (its -d3 log) on its data, ours on the unitary scale of the project's raw data,
        // which reads BART's k-space as the unnormalised DFT: a factor n apart.
        QFile log_file(f((std::string("log_") + c.name).c_str()));
        QVERIFY(log_file.open(QIODevice::ReadOnly));
        const QString log = QString::fromUtf8(log_file.readAll());
        const int at = log.indexOf("Scaling: ");
        QVERIFY2(at >= 0, qPrintable(log));
        int end = at + 9;
        while (end < log.size() && (log[end].isDigit() || log[end] == '.')) ++end;
        const double bart_scale = log.mid(at + 9, end - at - 9).toDouble();
        qInfo("  %-10s data scale: BART %.6g, ours x %d = %.6g", c.name, bart_scale, n, scale * n);
        QVERIFY(std::abs(scale * n - bart_scale) <= 1e-4 * bart_scale);
      }
      const CflArray out = read_cfl(f((std::string("out_") + c.name).c_str()).toStdString());
      o.cs.regularizer = c.regularizer;
      t0 = now_s();
      const Image2D ours = make_reconstructor(c.method, Backend::Cpu)->reconstruct(raw, o, {}, {});
      const double t_ours = now_s() - t0;
      const double p_bart = psnr(out.data, ref.data, n, n), p_ours = psnr(ours.data, ref.data, n, n);
      qInfo("  %-10s bart pics %s: PSNR %.2f dB in %.2f s; ours %.2f dB in %.2f s (%+.2f dB)", c.name,
            qPrintable(c.bart_opts), p_bart, t_bart, p_ours, t_ours, p_ours - p_bart);
      QVERIFY2(p_ours >= p_bart - 0.5, c.name);
    }
  }

  // TV's ADMM ends on its CG budget (`iterations`, BART's meaning) or on the residual test of Boyd et al. 2011
  // (sec. 3.3.1), whichever comes first; stopped by the test it sits at the optimum that many more steps reach.
  void admmStopsOnBudgetOrResiduals() {
    const ProductCase pc = product_case();
    const CartesianSenseOperator E(kN, kN, kCoils, pc.maps, line_mask(pc.raw));
    std::vector<cfloat> k = unitary_kspace(pc.raw);
    const float scale = static_cast<float>(cs_data_scale(k, line_mask(pc.raw), kN, kN, kCoils));
    for (auto& v : k) v /= scale;
    CsParams p;
    p.regularizer = "tv";
    p.lambda = 0.003;
    p.iterations = 60;
    p.admm_abstol = p.admm_reltol = 0;  // the budget alone (the default, as BART's pics)
    CsReport budget;
    cs_solve(E, k, p, &budget);
    QVERIFY2(budget.cg_steps > 60 && budget.cg_steps <= 60 + p.cg_iterations, qPrintable(QString::number(budget.cg_steps)));
    QVERIFY(!budget.converged);
    p = CsParams{};
    p.regularizer = "tv";
    p.lambda = 0.003;
    p.iterations = 5000;
    p.admm_abstol = 1e-4;  // Boyd et al.'s test with BART's ADMM values (pics itself sets them to 0)
    p.admm_reltol = 1e-3;
    CsReport stopped;
    const auto x_stopped = cs_solve(E, k, p, &stopped);
    QVERIFY2(stopped.converged && stopped.cg_steps < 5000, qPrintable(QString::number(stopped.cg_steps)));
    p.admm_abstol = p.admm_reltol = 0;  // run far past the test's stop
    p.iterations = 3 * stopped.cg_steps;
    CsReport far;
    const auto x_far = cs_solve(E, k, p, &far);
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < x_far.size(); ++i) diff += std::norm(x_stopped[i] - x_far[i]), ref += std::norm(x_far[i]);
    qInfo("tv: budget 60 -> %d CG steps (%d x-updates); residual test after %d x-updates, %d CG steps, objective "
          "%.6g; run on to %d CG steps: objective %.6g, image %.3g %% apart",
          budget.cg_steps, budget.iterations, stopped.iterations, stopped.cg_steps, stopped.objective, far.cg_steps,
          far.objective, 100 * std::sqrt(diff / ref));
    QVERIFY(stopped.objective <= 1.01 * far.objective);
    QVERIFY(std::sqrt(diff / ref) < 0.02);
  }

  void refusalsAndCancel() {
    const ProductCase pc = product_case();
    CsParams alpha;
    alpha.admm_alpha = 2.0;
    QString a = mrwb::test::input_error([&] { compressed_sensing(pc.raw, pc.maps, alpha); });
    QVERIFY2(a.contains("admm_alpha = 2") && a.contains("0 < alpha < 2"), qPrintable(a));
    CsParams bad;
    bad.lambda = -0.5;
    QString m = mrwb::test::input_error([&] { compressed_sensing(pc.raw, pc.maps, bad); });
    QVERIFY2(m.contains("lambda = -0.5") && m.contains("allowed: >= 0"), qPrintable(m));
    m = mrwb::test::input_error([&] { compressed_sensing(pc.raw, std::vector<cfloat>(kN * kN), {}); });
    QVERIFY2(m.contains("maps hold 16384") && m.contains("8 x 128 x 128"), qPrintable(m));
    CsParams reg;
    reg.regularizer = "l2";
    m = mrwb::test::input_error([&] { compressed_sensing(pc.raw, pc.maps, reg); });
    QVERIFY2(m.contains("regularizer") && m.contains("allowed: l1-wavelet, tv"), qPrintable(m));
    CancelToken cancel;
    bool thrown = false;
    try {
      compressed_sensing(pc.raw, pc.maps, {}, nullptr, [&](double, std::string_view) { cancel.cancel(); }, cancel);
    } catch (const Cancelled&) {
      thrown = true;
    }
    QVERIFY(thrown);
  }
};

QTEST_GUILESS_MAIN(TestCompressedSensing)
#include "test_compressed_sensing.moc"
