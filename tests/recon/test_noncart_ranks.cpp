// The non-Cartesian recon over ranks without MPI (noncart_ranks.hpp; ranks played by threads of this process):
// the exact F^H d and Q of a voxel split equal the whole sums bit for bit (Stone et al. 2008, Eqs. 3-4: one sum
// per voxel), and the CG (exact and gridded operators, preconditioners, two coils) and gridding (Pipe-Menon
// weights split by samples) over 2 and 3 ranks equal one process, on every rank (the exact CG bit for bit), on a grid of 26^2 = 676
// voxels and 41 x 53 = 2,173 samples (neither divisible by 3).
#include <QTest>

#include <cmath>

#include "coil_test_object.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/recon/noncart_coil_raw.hpp"
#include "mrwb/recon/noncart_exact.hpp"
#include "mrwb/recon/noncart_ranks.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/sequence/trajectory.hpp"
#include "thread_rank_comm.hpp"

using namespace mrwb;
using namespace mrwb::noncart;

namespace {

constexpr int k_n = 26;

// Two coils of the test object on the radial trajectory: a uniform coil and one with a smooth magnitude
// and phase across the field of view.
RawData two_coil_raw() {
  const auto t = radial_2d(k_n, 41, 53, true);
  const std::size_t nv = static_cast<std::size_t>(k_n) * k_n;
  std::vector<std::complex<float>> sens(2 * nv, 1.0f);
  for (int y = 0; y < k_n; ++y)
    for (int x = 0; x < k_n; ++x)
      sens[nv + static_cast<std::size_t>(y) * k_n + x] =
          std::polar(0.5f + static_cast<float>(x) / k_n, 0.1f * static_cast<float>(y - k_n / 2));
  return multicoil_raw_noncart(mrwb_test::coil_test_object(k_n), sens, k_n, 2, t.k, t.readouts, t.samples, 0.2);
}

// Every rank's image of `ranks` thread ranks (threads 1 each).
std::vector<Image2D> over_ranks(const RawData& raw, const ReconOptions& o, int ranks) {
  std::vector<Image2D> out(ranks);
  mrwb_test::run_thread_ranks(ranks, [&](RankComm& comm, int r) { out[r] = reconstruct_noncart_cpu(raw, o, &comm, 1, {}, {}); });
  return out;
}

}  // namespace

class TestNoncartRanks : public QObject {
  Q_OBJECT
  RawData raw_ = two_coil_raw();

 private slots:
  void exact_sums_split_by_voxels_are_the_whole() {
    const Samples s = samples_from_raw(raw_);
    const Grid g{2, k_n};
    const std::size_t M = s.count();
    const auto fhd = exact_fhd(g, s.k.data(), s.d.data(), M, Precision::Single, 1);
    auto q = exact_q(g, s.k.data(), M, Precision::Single, 1);
    for (int ranks : {2, 3}) {
      std::vector<std::vector<cdouble>> f(ranks), qh(ranks);
      mrwb_test::run_thread_ranks(ranks, [&](RankComm& comm, int r) {
        f[r] = split_by_voxels(&comm, g.voxels(), [&](std::size_t b, std::size_t e) {
          return exact_fhd_voxels(g, s.k.data(), s.d.data(), M, Precision::Single, b, e, 1);
        });
        qh[r] = split_by_voxels(&comm, q_half_voxels(g), [&](std::size_t b, std::size_t e) {
          return exact_q_half_voxels(g, s.k.data(), M, Precision::Single, b, e, 1);
        });
        complete_q_hermitian(g, qh[r]);
      });
      for (int r = 0; r < ranks; ++r) {
        QVERIFY2(f[r] == fhd, qPrintable(QString("F^H d, %1 ranks, rank %2").arg(ranks).arg(r)));
        QVERIFY2(qh[r] == q, qPrintable(QString("Q, %1 ranks, rank %2").arg(ranks).arg(r)));
      }
    }
  }

  void ranks_equal_one_process_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("operators");
    QTest::addColumn<QString>("preconditioner");
    QTest::addColumn<QString>("regularizer");
    QTest::addColumn<int>("ranks");
    QTest::newRow("cg exact, 2 ranks") << "cg" << "exact" << "none" << "identity" << 2;
    QTest::newRow("cg exact, 3 ranks") << "cg" << "exact" << "none" << "identity" << 3;
    QTest::newRow("cg exact circulant, 3 ranks") << "cg" << "exact" << "circulant" << "identity" << 3;
    QTest::newRow("cg gridded diagonal, fd, 3 ranks") << "cg" << "gridded" << "diagonal" << "finite-difference" << 3;
    QTest::newRow("gridding, 2 ranks") << "gridding" << "" << "" << "" << 2;
    QTest::newRow("gridding, 3 ranks") << "gridding" << "" << "" << "" << 3;
  }
  void ranks_equal_one_process() {
    QFETCH(QString, method);
    QFETCH(QString, operators);
    QFETCH(QString, preconditioner);
    QFETCH(QString, regularizer);
    QFETCH(int, ranks);
    ReconOptions o;
    o.method = method == "cg" ? ReconMethod::Cg : ReconMethod::Gridding;
    o.noncart.matrix = k_n;
    o.noncart.iterations = 12;
    o.noncart.operators = operators == "exact" ? CgOperators::Exact : CgOperators::Gridded;
    if (!preconditioner.isEmpty()) o.noncart.preconditioner = preconditioner.toStdString();
    if (!regularizer.isEmpty()) o.noncart.regularizer = regularizer.toStdString();
    if (regularizer == "finite-difference") o.noncart.lambda = 1e-3;
    const Image2D one = reconstruct_noncart_cpu(raw_, o, nullptr, 1, {}, {});
    const std::vector<Image2D> many = over_ranks(raw_, o, ranks);
    for (int r = 0; r < ranks; ++r) {
      QCOMPARE(many[r].data.size(), one.data.size());
      const double e = relative_l2(many[r].data, one.data);
      if (r == 0) qInfo("%s: relative RMS against one process %.3g", QTest::currentDataTag(), e);
      QVERIFY2(e <= 1e-6, qPrintable(QString("rank %1: %2").arg(r).arg(e)));
      // Exact operators: every voxel's sums and every dot product add in one process's order (noncart_cg.cpp).
      if (operators == "exact" && method == "cg") QVERIFY2(many[r].data == one.data, qPrintable(QString("rank %1: not bit for bit").arg(r)));
    }
  }
};

QTEST_GUILESS_MAIN(TestNoncartRanks)
#include "test_noncart_ranks.moc"
