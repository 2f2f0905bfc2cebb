#pragma once
// What work split over processes needs from them: the slab-decomposed simulation (simulation/
// rank_decomposition.hpp: halo planes, signal sums, the cell truth, a final agreement) and the non-Cartesian
// recon split by voxels or samples (recon/noncart_ranks.hpp: ordered sums, the all-gather). Implemented by
// SerialRankComm (one process) and by MPI (mpi/simulation). GPU ranks exchange their halos on the device
// (peer stores through CUDA IPC or NCCL, gpu/simulation) and use this for the rest: the IPC handles and the NCCL id travel
// by broadcast_bytes.
#include <complex>
#include <cstddef>
#include <span>

namespace mrwb {

class RankComm {
 public:
  virtual ~RankComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank among those on its host (0 .. ranks on the host − 1): which GPU it takes.
  virtual int local_rank() const { return rank(); }
  // One field's traffic with the neighbours along the slab axis: `send_lower` goes to rank − 1 and lands in
  // its `recv_upper`; `send_upper` goes to rank + 1 and lands in its `recv_lower`. Spans towards a missing
  // neighbour are empty; a send and the receive it lands in have the same length.
  struct HaloField {
    std::span<const float> send_lower, send_upper;
    std::span<float> recv_lower, recv_upper;
  };
  // Every field of a step in one round (Mx, My, Mz); returns once this rank's receives have landed.
  virtual void exchange_halos(std::span<const HaloField> fields) = 0;
  // values := Σ over ranks of values, added in rank order (0 first) on every rank: deterministic, and the
  // same for any network or reduction algorithm.
  virtual void sum_in_rank_order(std::span<double> values) = 0;
  // The same for complex values, summed as their real and imaginary parts (std::complex<double> is laid out as
  // double[2]).
  void sum_in_rank_order(std::span<std::complex<double>> values) {
    sum_in_rank_order(std::span<double>(reinterpret_cast<double*>(values.data()), 2 * values.size()));
  }
  // Rank 0's `whole` receives every rank's [begin, end) of it (the ranks' ranges are disjoint); the other
  // ranks' `whole` is left as it is.
  virtual void gather_to_root(std::span<std::complex<float>> whole, std::size_t begin, std::size_t end) = 0;
  // Every rank's `whole` receives every rank's [begin, end) of it (disjoint ranges, which may be empty): the
  // CG's search direction and the voxel ranges of exact F^H d and Q, whole on every rank.
  virtual void all_gather(std::span<std::complex<double>> whole, std::size_t begin, std::size_t end) = 0;
  // True on every rank when every rank passed true: the step before rank 0 writes anything.
  virtual bool all_agree(bool ok) = 0;
  // Every rank's `bytes` := rank `root`'s.
  virtual void broadcast_bytes(std::span<std::byte> bytes, int root) = 0;
  // The largest `value` over the ranks, on every rank (e.g. the flow's top speed of ranks that built only their planes).
  virtual double max_over_ranks(double value) = 0;
};

// One process: rank 0 of 1, with nothing to exchange; or rank `rank` of `size` played alone (a rank timed by itself,
// the scale suite's MRWB_SCALE_SIM_SOLO), each collective answering for this rank only.
class SerialRankComm final : public RankComm {
 public:
  explicit SerialRankComm(int rank = 0, int size = 1) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void exchange_halos(std::span<const HaloField>) override {}
  using RankComm::sum_in_rank_order;
  void sum_in_rank_order(std::span<double>) override {}
  void gather_to_root(std::span<std::complex<float>>, std::size_t, std::size_t) override {}
  void all_gather(std::span<std::complex<double>>, std::size_t, std::size_t) override {}
  bool all_agree(bool ok) override { return ok; }
  void broadcast_bytes(std::span<std::byte>, int) override {}
  double max_over_ranks(double value) override { return value; }

 private:
  int rank_, size_;
};

}  // namespace mrwb
