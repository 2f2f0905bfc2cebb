#pragma once
// The simulator's part of `mrwb bench --suite scale` (bench_scale_sim.cpp).
#include <nlohmann/json.hpp>

#include "bench_suites.hpp"

namespace mrwb::cli {

// Strong and weak scaling of the liver slab over 1, 2, 4 ... ranks (GPUs when there are, else 1 and 2 CPU ranks),
// each run started through mpirun. Fills report["simulator_ranks"].
int scale_simulator(const BenchOptions& options, nlohmann::json& report);
// True in a process that mpirun started as one rank of such a run; scale_sim_rank then plays it.
bool is_scale_sim_rank();
int scale_sim_rank(const BenchOptions& options);

}  // namespace mrwb::cli
