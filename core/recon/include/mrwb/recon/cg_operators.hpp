#pragma once
// Which F^H d and Q the CG of Stone et al. 2008 uses: the exact sums of their Eqs. 3-4 (one sine and cosine
// per sample-voxel pair, O(M N^D)) or the Kaiser-Bessel gridded approximations (O(M W^D + N^D log N)), which
// reach the same PSNR within 0.15 dB on the benchmark cases (docs/benchmarks.md, "Non-Cartesian").
// Auto takes the exact sums where their estimated time on the backend that runs them is within
// k_exact_budget_s, the gridded ones elsewhere; Exact and Gridded are the user's explicit choice.
#include <cstddef>
#include <string>

#include "mrwb/base/backend.hpp"
#include "mrwb/recon/noncart_types.hpp"

namespace mrwb {

enum class CgOperators { Auto, Exact, Gridded };

namespace noncart {

// Auto's budget for the exact sums: one second of estimated time.
constexpr double k_exact_budget_s = 1.0;
// Sample-voxel pairs per second of the exact sums, as measured: CUDA's `sfu` kernel 1.70e12 on an H100 and
// an H200 (docs/benchmarks.md); the CPU (CPU.SP) per thread on the 2-core machine: 256^2 with 403 spokes of
// 512 samples, 4.07e10 pairs in 261 s, 7.8e7 per thread (7.3 - 9.5e7 on 2 threads beside a build).
constexpr double k_exact_pairs_per_s_cuda = 1.7e12;
constexpr double k_exact_pairs_per_s_cpu_thread = 7.5e7;

struct CgOperatorChoice {
  bool exact = true;
  double exact_pairs = 0;       // sample-voxel pairs of F^H d (every coil) and Q (its Hermitian half)
  double exact_estimate_s = 0;  // their estimated time on the backend
  std::string text;             // one line: what runs and why, e.g. for the CLI's stderr
};

// backend: where the CG runs (Cpu or Cuda; Auto counts as Cpu). cpu_threads: 0 = hardware concurrency.
CgOperatorChoice choose_cg_operators(const Grid& g, std::size_t M, int coils, Backend backend, CgOperators requested,
                                     unsigned cpu_threads = 0);

}  // namespace noncart
}  // namespace mrwb
