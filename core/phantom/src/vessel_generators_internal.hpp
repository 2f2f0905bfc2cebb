#pragma once
// Shared by the generator files: a portable seeded uniform deviate and the organ-tree grower.
#include <cstdint>
#include <random>

#include "mrwb/phantom/vessel_generators.hpp"

namespace mrwb::detail {

// Uniform in [0, 1) from the top 53 bits of mt19937_64, whose output sequence the C++ standard fixes:
// the same seed gives the same numbers with every standard library.
class Uniform01 {
 public:
  explicit Uniform01(std::uint64_t seed) : rng_(seed) {}
  double operator()() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 rng_;
};

// optimise_branch_points = false leaves each bifurcation at the centroid of its three ends.
VesselTree grow_organ_tree(const VesselTreeSpec& spec, bool optimise_branch_points);

}  // namespace mrwb::detail
