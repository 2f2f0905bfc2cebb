// MpiRankComm's contract (rank_comm.hpp), run by CTest as `mpirun -np 3`: halo planes land at the right
// neighbour, the sum is added in rank order (an order-sensitive triple shows it), the gather fills rank 0's
// array from every rank's range, the all-gather every rank's, and the agreement is false when one rank says no. A NCCL communicator is to
// pass the same cases.
#include <QTest>

#include <memory>

#include "mrwb_mpi/simulation/mpi_rank_comm.hpp"

using namespace mrwb;

namespace {
mpi::MpiRankComm* g_comm = nullptr;
}

class TestMpiRankComm : public QObject {
  Q_OBJECT
 private slots:
  void halo_planes_reach_the_neighbours() {
    RankComm& c = *g_comm;
    const int r = c.rank(), n = c.size();
    QVERIFY(n >= 2);
    // Per field k: [recv_lower | send_lower ... send_upper | recv_upper], 4 values each.
    std::vector<float> m[2];
    std::vector<RankComm::HaloField> fields;
    for (int k = 0; k < 2; ++k) {
      m[k].assign(16, -1.f);
      for (int j = 0; j < 4; ++j) {
        m[k][4 + j] = 100.f * r + 10.f * k + j;       // sent down
        m[k][8 + j] = 100.f * r + 10.f * k + 5 + j;   // sent up
      }
      const bool lower = r > 0, upper = r + 1 < n;
      fields.push_back({lower ? std::span<const float>(m[k].data() + 4, 4) : std::span<const float>{},
                        upper ? std::span<const float>(m[k].data() + 8, 4) : std::span<const float>{},
                        lower ? std::span<float>(m[k].data(), 4) : std::span<float>{},
                        upper ? std::span<float>(m[k].data() + 12, 4) : std::span<float>{}});
    }
    c.exchange_halos(fields);
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 4; ++j) {
        QCOMPARE(m[k][j], r > 0 ? 100.f * (r - 1) + 10.f * k + 5 + j : -1.f);
        QCOMPARE(m[k][12 + j], r + 1 < n ? 100.f * (r + 1) + 10.f * k + j : -1.f);
      }
  }

  void sum_is_in_rank_order() {
    RankComm& c = *g_comm;
    // 1e16 + 1 rounds back to 1e16: ((1e16 + 1) − 1e16) = 0, while any other order of three gives 1 or 0.
    const double v[3] = {1e16, 1.0, -1e16};
    auto mine = [&](int r) { return r < 3 ? v[r] : 0.25 * r; };
    std::vector<std::complex<double>> values(1000);
    for (std::size_t j = 0; j < values.size(); ++j) values[j] = {mine(c.rank()), static_cast<double>(j) * (c.rank() + 1)};
    c.sum_in_rank_order(values);
    double expect = mine(0);
    for (int r = 1; r < c.size(); ++r) expect = expect + mine(r);
    for (std::size_t j = 0; j < values.size(); ++j) {
      QCOMPARE(values[j].real(), expect);
      QCOMPARE(values[j].imag(), static_cast<double>(j) * c.size() * (c.size() + 1) / 2);
    }
  }

  void gather_fills_rank_0() {
    RankComm& c = *g_comm;
    const std::size_t per = 7;
    std::vector<std::complex<float>> whole(per * c.size(), {-1.f, 0.f});
    for (std::size_t j = 0; j < per; ++j) whole[c.rank() * per + j] = {static_cast<float>(c.rank()), static_cast<float>(j)};
    c.gather_to_root(whole, c.rank() * per, (c.rank() + 1) * per);
    for (int r = 0; r < c.size(); ++r)
      for (std::size_t j = 0; j < per; ++j) {
        const bool known = c.rank() == 0 || r == c.rank();
        QCOMPARE(whole[r * per + j], known ? std::complex<float>(r, j) : std::complex<float>(-1.f, 0.f));
      }
  }

  // Uneven ranges, rank 0's empty (rank r holds r values): every rank ends with every rank's values.
  void all_gather_fills_every_rank() {
    RankComm& c = *g_comm;
    std::vector<std::size_t> first(c.size() + 1, 0);
    for (int r = 0; r < c.size(); ++r) first[r + 1] = first[r] + static_cast<std::size_t>(r);
    std::vector<std::complex<double>> whole(first.back(), {-1.0, 0.0});
    for (std::size_t j = first[c.rank()]; j < first[c.rank() + 1]; ++j) whole[j] = {static_cast<double>(c.rank()), 0.5 * j};
    c.all_gather(whole, first[c.rank()], first[c.rank() + 1]);
    for (int r = 0; r < c.size(); ++r)
      for (std::size_t j = first[r]; j < first[r + 1]; ++j) QCOMPARE(whole[j], std::complex<double>(r, 0.5 * j));
  }

  void agreement_needs_every_rank() {
    RankComm& c = *g_comm;
    QVERIFY(c.all_agree(true));
    QVERIFY(!c.all_agree(c.rank() != 1));
  }

  // The NCCL id of GPU ranks travels this way; one host here, so the local rank is the rank.
  void broadcast_and_local_rank() {
    RankComm& c = *g_comm;
    std::vector<std::byte> b(300, std::byte{0});
    if (c.rank() == 1)
      for (std::size_t j = 0; j < b.size(); ++j) b[j] = static_cast<std::byte>(j * 7);
    c.broadcast_bytes(b, 1);
    for (std::size_t j = 0; j < b.size(); ++j) QCOMPARE(b[j], static_cast<std::byte>(j * 7));
    QCOMPARE(c.local_rank(), c.rank());
    QCOMPARE(c.max_over_ranks(c.rank() == 1 ? 7.5 : -1.0 * c.rank()), 7.5);
  }
};

int main(int argc, char** argv) {
  auto comm = std::make_unique<mpi::MpiRankComm>();
  g_comm = comm.get();
  QCoreApplication app(argc, argv);
  TestMpiRankComm t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_mpi_rank_comm.moc"
