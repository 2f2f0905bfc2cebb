#pragma once
// `mrwb simulate` (rank_decomposition.hpp) and `mrwb recon --method cg|gridding` (noncart_ranks.hpp) over ranks:
// one process of `mpirun -np N` each, MPI touched only when mpirun started this one; `--ranks N` runs the same
// command again through mpirun.
#include <functional>
#include <optional>

#include "mrwb/base/rank_comm.hpp"

namespace mrwb::cli {

inline constexpr int k_max_ranks = 256;

// Rank 0 writes, once every rank has finished its part; a single process always writes.
class OutputGate {
 public:
  explicit OutputGate(RankComm* comm) : comm_(comm) {}
  bool writes();

 private:
  RankComm* comm_;
  bool agreed_ = false;
};

// Runs `body` as this process's share of the run and returns the exit code. `ranks` is --ranks, if given. Not under mpirun: body(nullptr), or, for ranks > 1, this command again under `mpirun -np ranks`,
// whose failures it reports as one line. Under mpirun: body(comm), and a rank that throws ends every rank
// with one line "rank R: reason" and exit 2 (bad input, the same on every rank, is reported by rank 0 alone).
int run_as_ranks(std::optional<int> ranks, const std::function<int(RankComm*)>& body);

// fn() on every rank in turn, rank 0 first, each after the one before has finished: for files a reader opens
// for writing (HDF5 then locks it, and a second rank's open fails), as libismrmrd's own open did every ISMRMRD
// file; the ISMRMRD readers now open read-only, so for them the turns only keep the reads apart.
void in_rank_turns(RankComm* comm, const std::function<void()>& fn);

// Threads per rank: the machine's share of the ranks started on it.
int threads_per_rank(const RankComm& comm);

// Tests only: fails this rank inside its run when $MRWB_TEST_FAIL_RANK names it (R: out of memory, R:kill: SIGKILL).
void test_rank_failure_hook(const RankComm& comm);

// Remembers main's arguments for the re-run through mpirun.
void remember_command_line(int argc, char** argv);

}  // namespace mrwb::cli
