// The CG's W (noncart_regularizer.hpp): first-order differences as links, cut at the edges of an
// anatomical reference (Haldar et al. 2008, Stone et al. 2008's [14]); and that paper's quality shape at
// its sampling ratio (iterative about 3x lower % error than gridding), which the anatomical W brings out
// and plain differences do not.
#include <QTest>

#include <cmath>
#include <random>

#include "mrwb/base/errors.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/analytic_phantom.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_cg.hpp"
#include "mrwb/recon/noncart_regularizer.hpp"
#include "mrwb/recon/noncart_toeplitz.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/sequence/trajectory.hpp"
#include "numeric.hpp"

using namespace mrwb;
using namespace mrwb::noncart;

namespace {

using mrwb::test::mag;

cdouble dot(const std::vector<cdouble>& a, const std::vector<cdouble>& b) {
  cdouble s{};
  for (std::size_t i = 0; i < a.size(); ++i) s += std::conj(a[i]) * b[i];
  return s;
}

std::vector<cdouble> apply(const Grid& g, const Links& l, const std::vector<cdouble>& x) {
  std::vector<cdouble> y(x.size());
  apply_linked_fd_normal(g, l.data(), x.data(), y.data());
  return y;
}

}  // namespace

class TestNoncartPrior : public QObject {
  Q_OBJECT
 private slots:
  // W^H W from links against its definition: <x, W^H W x> = sum over links of |x_i - x_j|^2, symmetric,
  // diagonal = link_degree; grid_links = every neighbour pair inside the grid; anatomical_links cuts exactly
  // the pairs across the reference's edge, and W^H W of an image constant on each side is then zero.
  void linksDefineWHW() {
    std::mt19937 rng(7);
    std::normal_distribution<double> nd;
    for (const Grid g : {Grid{2, 9}, Grid{3, 6}}) {
      const std::size_t nv = g.voxels();
      const std::size_t stride[3] = {1, static_cast<std::size_t>(g.n), static_cast<std::size_t>(g.n) * g.n};
      std::vector<float> ref(nv);
      for (auto& v : ref) v = static_cast<float>(nd(rng) > 0.8 ? 1.0 : 0.0);
      const Links full = grid_links(g), cut = anatomical_links(g, ref, 0.5, "ref");
      std::vector<cdouble> x(nv), y(nv);
      for (std::size_t i = 0; i < nv; ++i) x[i] = {nd(rng), nd(rng)}, y[i] = {nd(rng), nd(rng)};
      std::size_t pairs = 0, kept = 0;
      for (const Links* l : {&full, &cut}) {
        double energy = 0;
        for (std::size_t i = 0; i < nv; ++i) {
          const int c[3] = {static_cast<int>(i % g.n), static_cast<int>(i / g.n % g.n), static_cast<int>(i / stride[2])};
          for (int d = 0; d < g.dims; ++d) {
            const bool inside = c[d] + 1 < g.n;
            const bool linked = (*l)[i] >> d & 1u;
            if (l == &full) QCOMPARE(linked, inside);
            if (l == &cut) QCOMPARE(linked, inside && ref[i] == ref[i + stride[d]]);
            if (linked) energy += std::norm(x[i] - x[i + stride[d]]);
            pairs += l == &full && linked;
            kept += l == &cut && linked;
          }
          QCOMPARE((*l)[i] >> g.dims, 0);  // no bits beyond the axes
        }
        const auto Ax = apply(g, *l, x), Ay = apply(g, *l, y);
        QVERIFY(std::abs(dot(x, Ax).real() - energy) < 1e-9 * energy);
        QVERIFY(std::abs(dot(x, Ay) - dot(Ax, y)) < 1e-9 * std::abs(dot(x, Ay)));
        for (std::size_t i : {std::size_t{0}, nv / 2, nv - 1}) {
          std::vector<cdouble> e(nv);
          e[i] = 1;
          QCOMPARE(apply(g, *l, e)[i].real(), static_cast<double>(link_degree(g, l->data(), i)));
        }
      }
      qInfo("%d-D %d: %zu pairs, %zu kept across the reference's edges", g.dims, g.n, pairs, kept);
      QVERIFY(kept > 0 && kept < pairs);
      // An image constant on each side of the reference's edge: no penalty with the cut links.
      std::vector<cdouble> piecewise(nv);
      for (std::size_t i = 0; i < nv; ++i) piecewise[i] = ref[i] > 0 ? cdouble(3, 1) : cdouble(-1, 0);
      const auto a = apply(g, cut, piecewise), b = apply(g, full, piecewise);
      QCOMPARE(std::sqrt(std::real(dot(a, a))), 0.0);
      QVERIFY(std::real(dot(b, b)) > 1.0);
    }
  }

  void badPriorIsRejected() {
    const Grid g{2, 8};
    std::vector<float> ref(64, 1.f);
    QVERIFY_THROWS_EXCEPTION(InputError, anatomical_links(g, std::vector<float>(63), 0.02, "--prior"));
    QVERIFY_THROWS_EXCEPTION(InputError, anatomical_links(g, ref, 1.0, "--prior"));
    QVERIFY_THROWS_EXCEPTION(InputError, anatomical_links(g, ref, -0.1, "--prior"));
    ref[5] = NAN;
    QVERIFY_THROWS_EXCEPTION(InputError, anatomical_links(g, ref, 0.02, "--prior"));
    QVERIFY_THROWS_EXCEPTION(InputError, regularizer_links(g, "anatomical", {}, 0.02));
    QVERIFY_THROWS_EXCEPTION(InputError, regularizer_links(g, "tv", {}, 0.02));
    QVERIFY(regularizer_links(g, "identity", {}, 0.02).empty());
    try {
      anatomical_links(g, std::vector<float>(10), 0.02, "--prior");
    } catch (const InputError& e) {
      qInfo("%s", e.what());
      QVERIFY(QString(e.what()).contains("--prior") && QString(e.what()).contains("64"));
    }
  }

  // Stone et al. 2008's 3-D case scaled down at its sampling ratio (284,592 samples for 128^3 voxels,
  // 13.6 %): 48^3 voxels, stone2008_points (15,008 samples), analytic 3-D Shepp-Logan k-space, truth = voxel
  // means (2^3 sub-samples). Gridded CG (60 it.), lambda relative to F^H F's diagonal Q(0) = M phi^2. The
  // paper's gridding baseline: bilinear, Pipe-Menon density, scaled to the truth; Kaiser-Bessel beside it.
  //  - Plain first-order differences (lambda_rel 0.1, the bench's best): the regulariser keeps the gridded
  //    CG from diverging (measured 108 % at lambda 0, 58 % at 0.1; asserted: below 0.6x), but the ratio stays
  //    near 1 (1.06: aliasing dominates): the paper's ~3x is an expected failure there.
  //  - The paper's own W (anatomically constrained, [14]): differences cut at the edges of a reference scan of
  //    the same ellipsoids in another contrast (shepp_logan_other_contrast), lambda_rel 10: measured 16.8 %
  //    (3.65x below bilinear, 3.77x below Kaiser-Bessel gridding); asserted >= 3x below both, and below 1/3 of
  //    bilinear gridding with the diagonal preconditioner too (its diagonal counts each voxel's links).
  //  - Noisy data (Stone et al. 2008 Fig. 6(b)): white noise of 5 % of the samples' RMS, lambda_rel 100: measured
  //    18.64 % vs bilinear gridding 61.53 % (3.30x); asserted >= 2.5x.
  void seedShapeAtItsSamplingRatio() {
    const int n = 48;
    const Grid g{3, n};
    Samples s;
    s.dims = 3;
    s.k = stone2008_points(n);
    const std::size_t M = s.count();
    const AnalyticPhantom ph = AnalyticPhantom::shepp_logan(3);
    s.d = ph.kspace(s.k);
    const auto truth = ph.image(n, 2);
    GriddingParams gp;
    const auto w = density_compensation(g, s, gp);
    const auto gk = gridding_recon(g, s.k.data(), s.d.data(), M, w, gp);
    gp.kernel = "bilinear";
    const auto gb = gridding_recon(g, s.k.data(), s.d.data(), M, w, gp);
    const Metrics mk = compare_images(mag(gk, magnitude_scale(mag(gk), truth)), truth, n, n * n);
    const Metrics mb = compare_images(mag(gb, magnitude_scale(mag(gb), truth)), truth, n, n * n);
    const ToeplitzNormal T(g, gridded_q(g, s.k.data(), M, GriddingParams{}));
    const auto fhd = gridded_fhd(g, s.k.data(), s.d.data(), M, GriddingParams{});
    const double q0 = static_cast<double>(M) * g.phi() * g.phi();
    auto cg = [&](const std::string& reg, double lambda_rel, const std::string& precond) {
      CgOptions o;
      o.iterations = 60;
      o.regularizer = reg;
      o.lambda = lambda_rel * q0;
      o.preconditioner = precond;
      if (reg == "anatomical") o.prior = AnalyticPhantom::shepp_logan_other_contrast(3).image(n, 2);
      return compare_images(mag(cg_solve(T, fhd, o, {}, 1)), truth, n, n * n);
    };
    const Metrics m0 = cg("finite-difference", 0, "none"), mfd = cg("finite-difference", 0.1, "none");
    const Metrics man = cg("anatomical", 10, "none"), mand = cg("anatomical", 10, "diagonal");
    qInfo("48^3, %zu samples: gridding bilinear %.2f %% / %.2f dB, Kaiser-Bessel %.2f %% / %.2f dB (scaled)", M,
          mb.percent_error, mb.psnr_db, mk.percent_error, mk.psnr_db);
    qInfo("gridded CG 60 it.: FD W lambda 0 %.2f %%, lambda_rel 0.1 %.2f %% / %.2f dB (bilinear / CG %.2f); anatomical W "
          "lambda_rel 10 %.2f %% / %.2f dB (bilinear / CG %.2f, Kaiser-Bessel / CG %.2f); with the diagonal PCG %.2f %%",
          m0.percent_error, mfd.percent_error, mfd.psnr_db, mb.percent_error / mfd.percent_error, man.percent_error,
          man.psnr_db, mb.percent_error / man.percent_error, mk.percent_error / man.percent_error, mand.percent_error);
    QVERIFY(mfd.percent_error < 0.6 * m0.percent_error);
    QVERIFY2(man.percent_error * 3.0 <= mb.percent_error && man.percent_error * 3.0 <= mk.percent_error,
             qPrintable(QString("anatomical CG %1 %% vs gridding %2 / %3 %% (bar 3x)")
                            .arg(man.percent_error).arg(mb.percent_error).arg(mk.percent_error)));
    QVERIFY(mand.percent_error < mb.percent_error / 3.0);  // the diagonal PCG (link degrees) reaches it too
    // Stone et al. 2008's noisy case (Fig. 6(b): 16 % vs 47 %): complex white Gaussian noise of 5 % of the samples'
    // RMS; lambda_rel 100 (more smoothing inside regions for noisy data).
    Samples noisy = s;
    double power = 0;
    for (const auto& v : s.d) power += std::norm(v);
    const float sigma = static_cast<float>(0.05 * std::sqrt(power / static_cast<double>(M) / 2));
    std::mt19937 rng(3);
    std::normal_distribution<float> nd;
    for (auto& v : noisy.d) v += cfloat(sigma * nd(rng), sigma * nd(rng));
    gp.kernel = "bilinear";
    const auto gn = gridding_recon(g, noisy.k.data(), noisy.d.data(), M, w, gp);
    const Metrics mbn = compare_images(mag(gn, magnitude_scale(mag(gn), truth)), truth, n, n * n);
    CgOptions on;
    on.iterations = 60;
    on.regularizer = "anatomical";
    on.lambda = 100 * q0;
    on.prior = AnalyticPhantom::shepp_logan_other_contrast(3).image(n, 2);
    const auto fhdn = gridded_fhd(g, noisy.k.data(), noisy.d.data(), M, GriddingParams{});
    const Metrics mcn = compare_images(mag(cg_solve(T, fhdn, on, {}, 1)), truth, n, n * n);
    qInfo("noisy (5 %% of the samples' RMS): bilinear gridding %.2f %%, anatomical CG lambda_rel 100 %.2f %% / %.2f dB (%.2fx)",
          mbn.percent_error, mcn.percent_error, mcn.psnr_db, mbn.percent_error / mcn.percent_error);
    QVERIFY(mcn.percent_error * 2.5 <= mbn.percent_error);
    QEXPECT_FAIL("", "plain first-order differences do not reproduce Stone et al. 2008's ~3x at 13.6 % of "
                     "Nyquist", Continue);
    QVERIFY(mfd.percent_error * 2.5 <= mb.percent_error);
  }
};

QTEST_GUILESS_MAIN(TestNoncartPrior)
#include "test_noncart_prior.moc"
