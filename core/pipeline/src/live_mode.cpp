#include "mrwb/pipeline/live_mode.hpp"

namespace mrwb {

std::string live_mode_refusal(const Scenario& s) {
  const SequenceSpec& q = s.sequence;
  if (q.partitions > 1 || q.trajectory == Trajectory::StackOfSpirals)
    return "live mode is off for 3-D volumes: press Run";
  if (q.slices > 1) return "live mode is off for multi-slice scenarios (" + std::to_string(q.slices) + " slices): press Run";
  if (q.matrix > k_live_max_matrix)
    return "live mode is off above a " + std::to_string(k_live_max_matrix) + " matrix (this one: " +
           std::to_string(q.matrix) + "): press Run";
  return {};
}

}  // namespace mrwb
