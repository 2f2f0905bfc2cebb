#pragma once
// Small test objects several suites build alike: scenarios, a stationary cell volume, a spoiled GE program
// and single sequence events, GRAPPA parameters, random non-Cartesian sample positions. The suites set
// whatever else their case needs on what these return.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mrwb/phantom/phantom.hpp"
#include "mrwb/recon/reconstructor.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"

namespace mrwb::test {

// The shipped preset `name`, simulated on the CPU.
inline Scenario cpu_preset(const std::string& name) {
  Scenario s = scenario_preset(name);
  s.backend = Backend::Cpu;
  return s;
}

// The shipped preset `name` at matrix² and `dummy_scans` dummy TRs, simulated on the CPU.
inline Scenario cpu_preset(const std::string& name, int matrix, int dummy_scans) {
  Scenario s = cpu_preset(name);
  s.sequence.matrix = matrix;
  s.sequence.dummy_scans = dummy_scans;
  return s;
}

// Preset uniform_disc (a muscle disc 5 cm in radius) on a matrix² image, cells_per_voxel per axis, on the CPU.
inline Scenario uniform_disc_scenario(int matrix, int cells_per_voxel = 1) {
  Scenario s;
  s.phantom.preset = "uniform_disc";
  s.phantom.cells_per_voxel = cells_per_voxel;
  s.phantom.disc_radius_m = 0.05;
  s.sequence.matrix = matrix;
  s.backend = Backend::Cpu;
  return s;
}

// nx × ny × nz stationary cells of one tissue centred on z = 0, without uz (unlike uniform_phantom with nz > 1).
inline CellPhantom stationary_volume(int nx, int ny, int nz, double cell_m, float PD, float T1_s, float T2_s) {
  CellPhantom ph = uniform_phantom(nx, ny, cell_m, PD, T1_s, T2_s, CellType::Stationary);
  ph.nz = nz;
  ph.z0_m = -0.5 * (nz - 1) * ph.cell_size_m;
  const std::size_t n = ph.size();
  for (auto* v : {&ph.PD, &ph.T1_s, &ph.T2_s}) v->resize(n, v->front());
  ph.dB_T.assign(n, 0.f);
  ph.type.assign(n, static_cast<std::uint8_t>(CellType::Stationary));
  ph.ux.assign(n, 0.f);
  ph.uy.assign(n, 0.f);
  return ph;
}

// Cartesian spoiled GE of `matrix` lines over fov_m after dummy_scans dummy TRs, SequenceSpec's defaults else.
inline SequenceProgram spoiled_ge(int matrix, double fov_m, int dummy_scans) {
  SequenceSpec seq;
  seq.matrix = matrix;
  seq.fov_m = fov_m;
  seq.dummy_scans = dummy_scans;
  return build_sequence_program(seq);
}

// Free precession for dt_s with the gradient moments dk_x, dk_y, dk_z [cycles/m] over it.
inline SeqEvent free_event(double dt_s, double dk_x = 0, double dk_y = 0, double dk_z = 0) {
  SeqEvent e;
  e.kind = EventKind::Free;
  e.dt_s = dt_s;
  e.dk_x = dk_x;
  e.dk_y = dk_y;
  e.dk_z = dk_z;
  return e;
}

// A hard RF pulse of flip_rad about the axis at phase_rad.
inline SeqEvent rf_event(double flip_rad, double phase_rad = 0) {
  SeqEvent e;
  e.kind = EventKind::Rf;
  e.flip_rad = flip_rad;
  e.phase_rad = phase_rad;
  return e;
}

// Ideal spoiling: the transverse magnetization is destroyed.
inline SeqEvent spoil_event() {
  SeqEvent e;
  e.kind = EventKind::Spoil;
  return e;
}

// A one-sample readout (1 ns) into raw-data line `line` that records the cell truth (Mxy) at that sample.
inline SeqEvent probe_readout(int line) {
  SeqEvent ro;
  ro.kind = EventKind::Readout;
  ro.dt_s = 1e-9;
  ro.n_samples = 1;
  ro.line = line;
  ro.truth_sample = 0;
  return ro;
}

// GRAPPA `approach` with a K_PE × K_RO kernel and segment_cols-column segments, GrappaParams' defaults else.
inline GrappaParams grappa_params(const std::string& approach, int kernel_pe = 4, int kernel_ro = 5,
                                  int segment_cols = 32) {
  GrappaParams p;
  p.approach = approach;
  p.kernel_pe = kernel_pe;
  p.kernel_ro = kernel_ro;
  p.segment_cols = segment_cols;
  return p;
}

// M random sample positions, each of `dims` coordinates uniform in [−band, band) [cycles/FOV], from `seed`.
inline std::vector<float> random_k(std::size_t M, int dims, double band, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-band, band);
  std::vector<float> k(M * dims);
  for (auto& v : k) v = static_cast<float>(u(rng));
  return k;
}

}  // namespace mrwb::test
