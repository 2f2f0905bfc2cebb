#pragma once
// Live mode: the workbench re-simulates and re-reconstructs after every edit (debounced, the run in
// flight cancelled). It suits 2-D scenarios of teaching size; volumes and large matrices take longer
// than a class waits, so they keep the Run button. The GUI and `mrwb bench --suite interactive` share
// this rule.
#include <string>

#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

// Largest matrix run live (128: the default scenario's size).
constexpr int k_live_max_matrix = 128;

// Empty when the scenario may run live; else one line saying why not (shown in the Run dock).
std::string live_mode_refusal(const Scenario& s);

}  // namespace mrwb
