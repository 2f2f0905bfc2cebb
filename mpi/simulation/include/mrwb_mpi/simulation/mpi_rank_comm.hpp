#pragma once
// RankComm over MPI_COMM_WORLD: the processes `mpirun -np N` starts, one engine or recon share each.
#include <complex>
#include <cstddef>
#include <span>

#include "mrwb/base/rank_comm.hpp"

namespace mrwb::mpi {

// The number of processes mpirun started this one among (OMPI_COMM_WORLD_SIZE / PMIX / PMI in the
// environment), 0 when it was not started by mpirun: plain runs never touch MPI.
int launched_world_size();

// Initialises MPI (threads: serialized, since the engine's barrier completion talks from any thread) and
// finalises it when destroyed.
class MpiRankComm final : public RankComm {
 public:
  MpiRankComm();
  ~MpiRankComm() override;
  MpiRankComm(const MpiRankComm&) = delete;
  MpiRankComm& operator=(const MpiRankComm&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  void exchange_halos(std::span<const HaloField> fields) override;
  using RankComm::sum_in_rank_order;
  void sum_in_rank_order(std::span<double> values) override;
  void gather_to_root(std::span<std::complex<float>> whole, std::size_t begin, std::size_t end) override;
  void all_gather(std::span<std::complex<double>> whole, std::size_t begin, std::size_t end) override;
  bool all_agree(bool ok) override;
  void broadcast_bytes(std::span<std::byte> bytes, int root) override;
  double max_over_ranks(double value) override;
  // Ends every rank's process with `code` (mpirun returns it): a rank that cannot go on.
  [[noreturn]] void abort_all(int code);

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace mrwb::mpi
