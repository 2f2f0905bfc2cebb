#pragma once
// One scenario per sequence family (the shipped scenario where there is one), small enough for CI: the
// export / import round trip and the CUDA-vs-CPU comparison play the same list.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"

namespace mrwb::test {

inline std::vector<std::string> sequence_family_names() {
  return {"spoiled_gre", "spin_echo",       "bssfp",       "bssfp_still", "tof",           "phase_contrast", "grappa_separate_acs",
          "partial_fourier", "multi_slice", "tof_3d",      "radial",      "golden_radial", "spiral",         "stack_of_spirals"};
}

// Family `n`'s scenario (the shipped one from source_dir/phantoms where there is one): few dummy scans, no
// receiver noise (the import path adds none), sequence.fidelity spelled out as played so that an exported
// file is played alike.
inline Scenario sequence_family_scenario(const std::string& n, const std::string& source_dir) {
  Scenario s;
  auto disc = [&](Trajectory t) {
    s = uniform_disc_scenario(32, 1);
    s.sequence.trajectory = t;
    s.sequence.TE_s = 0.004;
    s.sequence.TR_s = 0.012;
    s.recon.method = ReconMethod::Gridding;
  };
  auto shipped = [&](const char* file) { return load_scenario(source_dir + "/phantoms/" + file + ".json"); };
  if (n == "spoiled_gre") s = shipped("teaching_inflow_spoiled_gre");
  else if (n == "spin_echo") s = shipped("teaching_flow_void_spin_echo");
  else if (n == "phase_contrast") s = shipped("teaching_phase_contrast");
  else if (n == "multi_slice") s = shipped("tof_multislice");
  else if (n == "tof_3d") s = shipped("tof_3d");
  else if (n == "grappa_separate_acs") {
    s = cpu_preset("straight_vessel", 32, 10);
    s.coils.count = 4;
    s.sequence.acceleration = 2;
    s.sequence.acs_lines = 12;
    s.sequence.acs_mode = "separate";
    s.recon.method = ReconMethod::Grappa;
  } else if (n == "bssfp" || n == "tof" || n == "bssfp_still") {
    s = n == "bssfp_still" ? cpu_preset("straight_vessel", 32, 10) : shipped("teaching_inflow_spoiled_gre");
    s.sequence.type = n == "tof" ? SequenceType::Tof : SequenceType::Bssfp;
    SequenceSpec shortest = s.sequence;
    shortest.TE_s = shortest.TR_s = 0;  // the builder's minima (bSSFP: TE = TR / 2)
    const seq::BuiltSequence b = seq::scenario_blocks(shortest, "test");
    s.sequence.TE_s = b.TE_s;
    s.sequence.TR_s = b.TR_s;
  } else if (n == "partial_fourier") {
    s = shipped("teaching_flow_void_spin_echo");
    s.sequence.partial_fourier = 0.625;
  } else if (n == "radial") disc(Trajectory::Radial);
  else if (n == "golden_radial") disc(Trajectory::GoldenRadial);
  else if (n == "spiral") disc(Trajectory::Spiral);
  else if (n == "stack_of_spirals") {
    disc(Trajectory::StackOfSpirals);
    s.sequence.matrix = 16;
    s.sequence.interleaves = 4;
    s.sequence.dummy_scans = 2;
    s.phantom.slab_thickness_m = 0.128 * 6 / 16;
  } else if (n != "spoiled_gre" && n != "spin_echo" && n != "phase_contrast" && n != "multi_slice" && n != "tof_3d") {
    throw std::invalid_argument("sequence_family_scenario: unknown family " + n);
  }
  s.sequence.dummy_scans = std::min(s.sequence.dummy_scans, 10);
  s.coils.noise_std = 0;
  s.backend = Backend::Cpu;
  s.sequence.fidelity = played_fidelity(s.sequence);
  return s;
}

}  // namespace mrwb::test
