// `mrwb bench --suite lagrangian`: Lagrangian spin tracking (lagrangian_engine.hpp, its CUDA twin), in
// spin-steps per second: Σ over sub-steps of the spins alive (each moved and precessed) / wall time of the
// run, set-up included. Jurczuk et al. 2016's straight tube 940 × 190 cells of 0.1 mm with Poiseuille flow
// (peak 0.8 cells per flow step), 3 × 3 spins per cell and inflow through its left edge, spoiled GE
// 128 PE (--quick: 188 × 38, 16 PE). The CPU engine is a single-threaded reference: it always runs the
// quick tube.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_suites.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/lagrangian_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#endif

namespace mrwb::cli {
int bench_lagrangian(const BenchOptions& options, nlohmann::json& report) {
  std::vector<Backend> backends;
  bool cuda = false;
#ifdef MRWB_HAVE_CUDA
  cuda = gpu::device_available();
  if (cuda) report["device"] = gpu::device_description();
#endif
  if (options.backend == Backend::Cpu || (options.backend == Backend::Auto && !cuda)) backends.push_back(Backend::Cpu);
  if (options.backend == Backend::Cuda || (options.backend == Backend::Auto && cuda)) backends.push_back(Backend::Cuda);
  std::printf("%-40s %-16s %12s %10s %14s\n", "case", "engine", "spin-steps", "wall s", "spin-steps/s");
  report["cases"] = nlohmann::json::array();
  for (Backend b : backends) {
    const bool quick = options.quick || b == Backend::Cpu;
    const int nx = quick ? 188 : 940, ny = quick ? 38 : 190, lines = quick ? 16 : 128;
    char name[96];
    std::snprintf(name, sizeof name, "tube %dx%d flow, 3x3 spins, GE %d PE", nx, ny, lines);
    if (!options.wants(name)) continue;
    const CellPhantom ph = straight_tube(nx, ny, 1e-4, 0.8, 1e-4);
    const SequenceProgram prog = build_sequence_program(bench_ge(lines, nx * 1e-4));
    auto engine = make_simulation_engine(b, SimulationModel::Lagrangian);
    std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(ph.size());
    if (b == Backend::Cuda) {  // warm-up: context, module load
      const CellPhantom small = straight_tube(64, 16, 1e-4, 0.8, 1e-4);
      const SequenceProgram p2 = build_sequence_program(bench_ge(8, 0.01));
      std::vector<std::complex<float>> s2(static_cast<std::size_t>(p2.readouts) * p2.nx), t2(small.size());
      engine->run(small, p2, s2, t2, {}, {});
    }
    const auto t0 = std::chrono::steady_clock::now();
    engine->run(ph, prog, samples, truth, {}, {});
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto* tracker = dynamic_cast<const SpinTracker*>(engine.get());
    const SpinTrackingStats st = tracker ? tracker->last_run_stats() : SpinTrackingStats{};
    const double rate = wall > 0 ? st.spin_steps / wall : 0;
    std::printf("%-40s %-16s %12.4g %10.3f %14.4g\n", name, engine->name().c_str(), st.spin_steps, wall, rate);
    report["cases"].push_back({{"case", name},
                               {"engine", engine->name()},
                               {"spin_steps", st.spin_steps},
                               {"sub_steps", st.sub_steps},
                               {"initial_spins", st.initial_spins},
                               {"spins_born", st.spins_born},
                               {"seconds", wall},
                               {"spin_steps_per_s", rate}});
  }
  return 0;
}

}  // namespace mrwb::cli
