#pragma once
// Shared set-ups of the fluid time-stepping tests (test_moving_steps, test_transport_stencil): small 2-D
// tubes and 3-D vessel slabs whose signal is the fluid cells' alone, a short spoiled GE, the plain CPU
// engine's run and relative L2 differences.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "mrwb/flow/organ_slab.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb::fluid_test {

using cf = std::complex<float>;
using cd = std::complex<double>;

constexpr std::uint8_t k_fluid = static_cast<std::uint8_t>(CellType::Fluid);

// A 2-D tube of blood across the grid (rows [2, ny − 2), Poiseuille ux plus a small uy so the y faces
// carry flux too, some off-resonance) in a frame of stationary cells with PD = 0, so the engine's signal
// is the fluid cells' alone. `inside`: the vessel ends at columns 4 and nx − 5 instead, its end columns
// open (open_end) so the non-fluid faces there exchange with the outside.
inline CellPhantom tube_2d(int nx, int ny, bool inside = false) {
  const TissueProperties& blood = tissue_1p5T("blood");
  CellPhantom ph = uniform_phantom(nx, ny, 1e-4, 0.f, 1.0f, 0.05f, CellType::Stationary);
  ph.flow_dt_s = 1e-4;
  if (inside) ph.open_end.assign(ph.size(), 0);
  const int x0 = inside ? 4 : 0, x1 = inside ? nx - 5 : nx - 1;
  for (int iy = 2; iy < ny - 2; ++iy)
    for (int ix = x0; ix <= x1; ++ix) {
      const std::size_t i = static_cast<std::size_t>(iy) * nx + ix;
      const double r = (iy - 2 + 0.5) / (ny - 4) * 2 - 1;  // −1 .. 1 across the lumen
      ph.type[i] = k_fluid;
      ph.PD[i] = static_cast<float>(blood.PD);
      ph.T1_s[i] = static_cast<float>(blood.T1_s);
      ph.T2_s[i] = static_cast<float>(blood.T2_s);
      ph.ux[i] = static_cast<float>(0.7 * (1 - r * r));
      ph.uy[i] = static_cast<float>(0.15 * std::sin(0.3 * ix) * (1 - r * r));
      ph.dB_T[i] = static_cast<float>(2e-7 * ((i * 7) % 5));
      if (inside && (ix == x0 || ix == x1)) ph.open_end[i] = 1;
    }
  return ph;
}

// A small version of the bench's liver slab (mrwb/flow/organ_slab.hpp): blood on the analytic Poiseuille
// field, every other cell with PD = 0 (so the engine's signal is the fluid cells'), and a small
// off-resonance pattern on the blood so ΔB takes part.
inline CellPhantom vessel_slab(int nx, int ny, int nz, double cell_m) {
  CellPhantom ph = organ_slab_phantom({nx, ny, nz, cell_m, 12, 2.5 * cell_m, ""}, "test slab", std::size_t{1} << 30);
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph.type[i] == k_fluid) ph.dB_T[i] = static_cast<float>(1e-7 * ((i * 3) % 7));
  return ph;
}

inline std::vector<std::uint32_t> fluid_cells(const CellPhantom& ph) {
  std::vector<std::uint32_t> f;
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph.type[i] == k_fluid) f.push_back(static_cast<std::uint32_t>(i));
  return f;
}

// A short spoiled GE: `matrix` lines of `matrix` samples, two dummy TRs; with_dkz adds a z moment to
// every Free interval (so the twin's z positions matter in a slab).
inline SequenceProgram short_ge(int matrix, double fov_m, bool with_dkz = false) {
  SequenceSpec seq;
  seq.matrix = matrix;
  seq.fov_m = fov_m;
  seq.TR_s = 0.01;
  seq.TE_s = 0.004;
  seq.flip_angle_deg = 30;
  seq.bandwidth_Hz_per_pixel = 500;
  seq.dummy_scans = 2;
  SequenceProgram prog = build_sequence_program(seq);
  if (with_dkz)
    for (SeqEvent& e : prog.events)
      if (e.kind == EventKind::Free) e.dk_z = 0.7 / fov_m;
  return prog;
}

// Relative L2 difference (+inf against an all-zero reference): mrwb/metrics/relative_l2.hpp.
inline double rel_l2(const std::vector<cd>& a, const std::vector<cd>& ref) { return mrwb::relative_l2(a, ref); }

template <typename T>
std::vector<cd> to_cd(const std::vector<std::complex<T>>& v) {
  return std::vector<cd>(v.begin(), v.end());
}

struct Run {
  std::vector<cd> samples, truth;
  std::vector<float> state;  // twins only: final Mx, My, Mz
};

inline Run run_engine(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                      SimulationEngine& engine) {
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  std::vector<cf> s(per_coil * coils.ncoils), t(ph.size());
  engine.run(ph, prog, coils, s, t, {}, {});
  return {to_cd(s), to_cd(t)};
}
inline Run run_engine(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils) {
  CpuSimulationEngine engine(2);
  return run_engine(ph, prog, coils, engine);
}

// Two smooth, complex, clearly different receive maps on the cell grid.
inline CoilMaps two_coils(const CellPhantom& ph) {
  CoilMaps c;
  c.ncoils = 2;
  c.sens.resize(2 * ph.size());
  for (std::size_t i = 0; i < ph.size(); ++i) {
    const double x = static_cast<double>(i % ph.nx) / ph.nx, y = static_cast<double>(i / ph.nx % ph.ny) / ph.ny;
    c.sens[i] = std::polar(static_cast<float>(0.4 + 0.6 * x), static_cast<float>(1.3 * y));
    c.sens[ph.size() + i] = std::polar(static_cast<float>(1.0 - 0.5 * x * y), static_cast<float>(-0.8 * x + 0.2));
  }
  return c;
}

}  // namespace mrwb::fluid_test
