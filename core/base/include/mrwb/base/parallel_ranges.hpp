#pragma once
// Host passes over every cell of a large phantom (the liver slab: 70 M cells) split over threads:
// fn(part, begin, end) for `parts` contiguous ranges of [0, n), in order of part, run in parallel.
// fn must not throw.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <thread>
#include <vector>

namespace mrwb {

// The MPI ranks started on this host (OpenMPI's OMPI_COMM_WORLD_LOCAL_SIZE); 0 outside mpirun (unknown).
inline int ranks_on_host() {
  const char* env = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long n = env ? std::strtol(env, nullptr, 10) : 0;
  return n >= 1 && n <= 1 << 16 ? static_cast<int>(n) : 0;
}

// The threads a host pass may use: the hardware's, shared among the ranks on this host (four GPU ranks set up
// at once), or fewer with MRWB_HOST_THREADS=n (n >= 1; timing comparisons).
inline unsigned host_threads() {
  const unsigned ranks = static_cast<unsigned>(std::max(1, ranks_on_host()));
  const unsigned share = std::max(1u, std::thread::hardware_concurrency() / ranks);
  const char* env = std::getenv("MRWB_HOST_THREADS");
  const long n = env ? std::strtol(env, nullptr, 10) : 0;
  return n >= 1 && static_cast<unsigned long>(n) < share ? static_cast<unsigned>(n) : share;
}

// One part per host thread, but none under 2^16 items (thread start-up would dominate).
inline int range_parts(std::size_t n) {
  const std::size_t by_size = std::max<std::size_t>(1, n >> 16);
  return static_cast<int>(std::min<std::size_t>(host_threads(), by_size));
}

inline std::size_t range_begin(std::size_t n, int parts, int part) {
  const std::size_t p = static_cast<std::size_t>(part), k = static_cast<std::size_t>(parts);
  return n / k * p + std::min(p, n % k);
}

template <typename Fn>
void for_each_range(std::size_t n, int parts, Fn&& fn) {
  std::vector<std::thread> pool;
  for (int p = 1; p < parts; ++p)
    pool.emplace_back([&fn, n, parts, p] { fn(p, range_begin(n, parts, p), range_begin(n, parts, p + 1)); });
  fn(0, range_begin(n, parts, 0), range_begin(n, parts, 1));
  for (auto& t : pool) t.join();
}

}  // namespace mrwb
