// The roles of one `mrwb simulate` or `mrwb recon` process among ranks: the plain run, the re-run through mpirun
// (cli_mpirun.cpp), and a rank under mpirun with its failure path.
#include "cli_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "cli_mpirun.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#ifdef MRWB_HAVE_MPI
#include "mrwb_mpi/simulation/mpi_rank_comm.hpp"
#endif

namespace mrwb::cli {
namespace {

std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}

#ifdef MRWB_HAVE_MPI
// One line, then every rank ends with `code`; the others may be waiting for this one in a halo exchange.
[[noreturn]] void end_all(mpi::MpiRankComm& comm, const std::string& line, int code) {
  // One write: mpirun forwards a rank's stderr as it comes, and a line written in two pieces can have its
  // MPI_ABORT notice land between them.
  const std::string whole = line + "\n";
  std::fwrite(whole.data(), 1, whole.size(), stderr);
  std::fflush(stderr);
  comm.abort_all(code);
}

int run_rank(std::optional<int> ranks, const std::function<int(RankComm*)>& body) {
  mpi::MpiRankComm comm;
  const std::string me = "rank " + std::to_string(comm.rank()) + ": ";
  // Bad input and cancellation reach every rank alike: rank 0 says it; the others wait to be ended by
  // its abort, and speak only if it never comes (the error was theirs alone).
  auto same_everywhere = [&](const std::string& what, int code) {
    if (comm.rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(5));
    end_all(comm, (comm.rank() == 0 ? "mrwb: " : me) + what, code);
  };
  try {
    if (ranks && *ranks != comm.size())
      throw InputError("--ranks " + std::to_string(*ranks) + ": mpirun started " + std::to_string(comm.size()) +
                       " processes (allowed: --ranks " + std::to_string(comm.size()) + " or none)");
    return body(&comm);
  } catch (const InputError& e) {
    same_everywhere(e.what(), 2);
  } catch (const Cancelled&) {
    same_everywhere("cancelled; nothing written", 130);
  } catch (const std::bad_alloc&) {
    end_all(comm, me + "out of memory", 2);
  } catch (const std::exception& e) {
    end_all(comm, me + e.what(), 2);
  }
  return 2;  // not reached: every handler ends the run
}
#endif

}  // namespace

bool OutputGate::writes() {
  if (!comm_) return true;
  if (!agreed_) comm_->all_agree(true);  // every rank is done: nothing can fail half-written any more
  agreed_ = true;
  return comm_->rank() == 0;
}

void in_rank_turns(RankComm* comm, const std::function<void()>& fn) {
  if (!comm) return fn();
  for (int r = 0; r < comm->size(); ++r) {
    if (comm->rank() == r) fn();
    comm->all_agree(true);  // a barrier: rank r has closed the file
  }
}

void remember_command_line(int argc, char** argv) { command_line().assign(argv, argv + argc); }

int threads_per_rank(const RankComm& comm) {
  // Under mpirun the ranks on this host share it (host_threads); ranks of one process share it all.
  if (ranks_on_host() > 0) return static_cast<int>(host_threads());
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores / comm.size());
}

int run_as_ranks(std::optional<int> ranks, const std::function<int(RankComm*)>& body) {
  if (ranks && (*ranks < 1 || *ranks > k_max_ranks))
    throw InputError("--ranks " + std::to_string(*ranks) + ": out of range (allowed: 1 to " + std::to_string(k_max_ranks) + ")");
#ifdef MRWB_HAVE_MPI
  if (mpi::launched_world_size() > 0) return run_rank(ranks, body);
  if (ranks && *ranks > 1) return rerun_through_mpirun(*ranks, command_line());
#else
  if (ranks && *ranks > 1)
    throw InputError("--ranks " + std::to_string(*ranks) + ": this mrwb was built without MPI (allowed: 1)");
#endif
  return body(nullptr);
}

void test_rank_failure_hook(const RankComm& comm) {
  // Tests only (tests/simulation/test_sim_ranks): MRWB_TEST_FAIL_RANK=R fails rank R inside its run as if
  // out of memory, R:kill kills it.
  const char* v = std::getenv("MRWB_TEST_FAIL_RANK");
  if (!v || !*v || std::atoi(v) != comm.rank()) return;
  if (std::string(v).find(":kill") != std::string::npos) std::raise(SIGKILL);
  throw std::bad_alloc();
}

}  // namespace mrwb::cli
