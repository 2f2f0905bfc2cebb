// Jurczuk et al. 2016's liver-like slab for `mrwb bench --suite sim`: a 3-D organ vessel tree discretised into
// cubic cells, blood moving with the analytic Poiseuille field, the parenchyma stationary.
#include "bench_sim_slab.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "mrwb/flow/organ_slab.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/internal/separable_readout_signal.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb::cli {

OrganSlabSpec liver_slab_spec(int nx, int ny, int nz, double cell_m) {
  // A slab cut from a liver: every cell is parenchyma except the lumen.
  return {nx, ny, nz, cell_m, 48, 0.002, "liver"};
}

CellPhantom liver_slab(int nx, int ny, int nz, double cell_m) {
  return organ_slab_phantom(liver_slab_spec(nx, ny, nz, cell_m), "bench slab", k_liver_slab_max_bytes);
}

SequenceProgram first_readouts(const SequenceProgram& prog, int count) {
  SequenceProgram p = prog;
  p.events.clear();
  int seen = 0;
  for (const SeqEvent& e : prog.events) {
    if (e.kind == EventKind::Rf && seen >= count) break;
    p.events.push_back(e);
    if (e.kind == EventKind::Readout) ++seen;
  }
  p.readouts = seen;
  return p;
}

void bench_closed_form_only(const CellPhantom& slab, const SequenceProgram& prog, const std::string& name,
                            double roofline_GB_per_s, nlohmann::json& report) {
  bool cuda = false;
  for (const auto& b : list_backends()) cuda = cuda || (b.name == Backend::Cuda && b.available);
  if (!cuda) return;
  CellPhantom still = slab;
  still.flow_dt_s = 0;
  auto engine = make_simulation_engine(Backend::Cuda);
  std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(still.size());
  const auto t0 = std::chrono::steady_clock::now();
  engine->run(still, prog, samples, truth, {}, {});
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Bytes: one separable pass per readout along x over the grid, every cell with PD != 0 moving M
  // (24) and reading PD T1 T2 dB (16), the others PD (4); the passes without a readout are left out.
  double played = 0;
  for (float pd : still.PD) played += pd != 0.f;
  double passes = 0;
  for (const SeqEvent& e : prog.events) passes += separable::readout_is_separable(e);
  const double others = static_cast<double>(still.size()) - played;
  const double bytes = passes * (played * 40 + others * 4);
  const double gbs = bytes / sec * 1e-9;
  std::printf("%-44s %-6s %10.4f %14s %10.1f %6.1f%%\n", name.c_str(), "cuda", sec, "-", gbs, 100 * gbs / roofline_GB_per_s);
  // What the kernels move (the slab's two tissues: a 2-byte entry per cell; rows loaded ahead, so the
  // state of PD = 0 cells is read too): 26 B per played cell, 14 B per other cell and pass.
  const double kernel_gbs = passes * (played * 26 + others * 14) / sec * 1e-9;
  std::printf("%-44s %-6s %10s %14s %10.1f %6.1f%%\n", "  at the bytes its kernels move", "cuda", "-", "-", kernel_gbs,
              100 * kernel_gbs / roofline_GB_per_s);
  report["cases"].push_back({{"case", name}, {"engine", "cuda"}, {"seconds", sec}, {"closed_form_cells", played},
                             {"bytes", bytes}, {"GB_per_s", gbs}, {"roofline_fraction", gbs / roofline_GB_per_s},
                             {"kernel_GB_per_s", kernel_gbs}, {"kernel_roofline_fraction", kernel_gbs / roofline_GB_per_s}});
}

}  // namespace mrwb::cli
