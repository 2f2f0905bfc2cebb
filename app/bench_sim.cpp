// `mrwb bench --suite sim`: the Bloch simulator on static spoiled-GE scenarios, CPU and CUDA.
#include <cstdio>

#include "bench_suites.hpp"
#include "mrwb/backend_registry.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/simulation_engine.hpp"

namespace mrwb::cli {

int bench_sim(const BenchOptions& options, nlohmann::json& report) {
  struct Case {
    const char* name;
    int matrix, cells_per_voxel;
  };
  std::vector<Case> cases = {{"default 128x128, 2 cells/voxel", 128, 2}, {"256x256, 4 cells/voxel", 256, 4}};
  if (options.quick) cases = {{"quick 64x64, 2 cells/voxel", 64, 2}};
  std::vector<std::string> backends;
  if (options.backend == "auto") {
    for (const auto& b : list_backends())
      if (b.available) backends.push_back(b.name);
  } else {
    backends.push_back(options.backend);
  }
  std::printf("%-34s %-6s %12s %16s\n", "case", "engine", "seconds", "cell-steps/s");
  report["cases"] = nlohmann::json::array();
  for (const auto& c : cases) {
    Scenario s = scenario_preset("default");
    s.sequence.matrix = c.matrix;
    s.phantom.cells_per_voxel = c.cells_per_voxel;
    const double cells = static_cast<double>(c.matrix) * c.cells_per_voxel * c.matrix * c.cells_per_voxel;
    // Cell-steps: every cell is advanced once per event interval and once per ADC sample.
    const double steps = cells * (2.0 * (s.sequence.dummy_scans + c.matrix) + static_cast<double>(c.matrix) * c.matrix);
    for (const auto& b : backends) {
      auto engine = make_simulation_engine(b);
      simulate(s, *engine, {}, {});  // warm-up (CUDA context, allocations)
      const SimulationResult r = simulate(s, *engine, {}, {});
      std::printf("%-34s %-6s %12.4f %16.3e\n", c.name, b.c_str(), r.seconds, steps / r.seconds);
      report["cases"].push_back({{"case", c.name}, {"engine", b}, {"seconds", r.seconds}, {"cells", cells},
                                 {"cell_steps_per_s", steps / r.seconds}});
    }
  }
  return 0;
}

}  // namespace mrwb::cli
