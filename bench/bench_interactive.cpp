// `mrwb bench --suite interactive`: for every shipped teaching scenario, the time from a parameter edit
// to the updated image through the code the GUI's Run and live mode call (run_pipeline: simulate,
// reconstruct, compare with the truth). The GUI adds its edit debounce (300 ms) and the views' redraw.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench_suites.hpp"
#include "cli_commands.hpp"
#include "mrwb/pipeline/live_mode.hpp"
#include "mrwb/pipeline/pipeline.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb::cli {
namespace {

double seconds_of(const Scenario& s, PipelineResult* out) {
  const auto t0 = std::chrono::steady_clock::now();
  PipelineResult r = run_pipeline(s, {}, {});
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (out) *out = std::move(r);
  return t;
}

}  // namespace

int bench_interactive(const BenchOptions& options, nlohmann::json& report) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(phantoms_dir()))
    if (e.path().filename().string().starts_with("teaching_") && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // The bars of the live teaching workbench: 0.5 s with a GPU, 5 s on the CPU.
  const bool quick = options.quick;
  std::printf("interactive: edit -> image through run_pipeline (flip angle x 0.8), median of %d edits\n", quick ? 1 : 3);
  std::printf("  %-38s %-6s %7s %10s %10s %-8s %s\n", "scenario", "live", "matrix", "first s", "edit s", "engine",
              "bar");
  nlohmann::json rows = nlohmann::json::array();
  int rc = 0;
  for (const auto& f : files) {
    if (!options.wants(f.stem().string())) continue;
    Scenario s = load_scenario(f.string());
    if (options.backend != Backend::Auto) s.backend = options.backend;
    const std::string refusal = live_mode_refusal(s);
    PipelineResult first;
    const double t_first = seconds_of(s, &first);
    std::vector<double> edits;
    for (int i = 0; i < (quick ? 1 : 3); ++i) {
      Scenario e = s;
      e.sequence.flip_angle_deg = s.sequence.flip_angle_deg * (i % 2 ? 0.9 : 0.8);
      edits.push_back(seconds_of(e, nullptr));
    }
    std::sort(edits.begin(), edits.end());
    const double t_edit = edits[edits.size() / 2];
    const bool gpu = first.backend.find("cuda") != std::string::npos || first.backend.find("CUDA") != std::string::npos;
    const double bar = gpu ? 0.5 : 5.0;
    std::printf("  %-38s %-6s %7d %10.3f %10.3f %-8s <= %.1f s: %s\n", f.stem().c_str(), refusal.empty() ? "yes" : "Run",
                s.sequence.matrix, t_first, t_edit, gpu ? "cuda" : "cpu", bar, t_edit <= bar ? "met" : "MISSED");
    rows.push_back({{"scenario", f.stem().string()}, {"live", refusal.empty()}, {"live_refusal", refusal},
                    {"matrix", s.sequence.matrix}, {"first_run_s", t_first}, {"edit_to_image_s", t_edit},
                    {"engine", first.backend}, {"bar_s", bar}, {"met", t_edit <= bar}});
  }
  report["cases"] = rows;
  report["note"] = "edit_to_image_s: run_pipeline of the edited scenario (median); the GUI adds a 300 ms debounce";
  return rc;
}

}  // namespace mrwb::cli
