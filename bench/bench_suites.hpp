#pragma once
// `mrwb bench` suites. Each fills `report` (JSON, written by --json) and prints a table on stdout.
// Timing lives here, never in tests.
#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/simulation_model.hpp"
#include "mrwb/phantom/phantom.hpp"

namespace mrwb {
struct SequenceSpec;  // sequence_spec.hpp: not included here, its Trajectory enum would clash in bench_noncart
}  // namespace mrwb

namespace mrwb::cli {

// Wall seconds since t0, as every suite times a run.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct BenchOptions {
  Backend backend = Backend::Auto;  // suites compare cpu and cuda when auto and a GPU exists
  bool quick = false;               // smaller sizes, for a smoke run on the CPU machine
  std::string only;                 // non-empty: run only the cases whose name contains it (sim, interactive)
  FlowTransport flow_transport = FlowTransport::GradientFrame;  // the sim suite's moving cases
  bool wants(const std::string& case_name) const { return only.empty() || case_name.find(only) != std::string::npos; }
};

// Which engines a suite that compares the CPU and CUDA times: the CPU unless --backend cuda, CUDA where a device
// is there unless --backend cpu; report["device"] names the device ("none"). nullopt, after one line on stderr
// naming `suite`, when --backend cuda finds no device.
struct BenchBackends {
  bool cpu = true, cuda = false;
};
std::optional<BenchBackends> bench_backends(const BenchOptions& options, const char* suite, nlohmann::json& report);

// One function per suite, each in its own file (bench_<suite>.cpp). Return 0 on success.
int bench_sim(const BenchOptions& options, nlohmann::json& report);
int bench_grappa(const BenchOptions& options, nlohmann::json& report);
int bench_espirit(const BenchOptions& options, nlohmann::json& report);
int bench_sparse(const BenchOptions& options, nlohmann::json& report);
int bench_noncart(const BenchOptions& options, nlohmann::json& report);
int bench_flow(const BenchOptions& options, nlohmann::json& report);
int bench_lagrangian(const BenchOptions& options, nlohmann::json& report);
int bench_interactive(const BenchOptions& options, nlohmann::json& report);
int bench_scale(const BenchOptions& options, nlohmann::json& report);

// Jurczuk et al. 2016, object (a), as the sim and lagrangian suites time it: a straight tube of blood filling
// the nx × ny grid, Poiseuille profile across y, peak u_max cells per flow step (bench_sim.cpp).
CellPhantom straight_tube(int nx, int ny, double cell_m, double u_max, double flow_dt_s);
// The benches' spoiled GE: `lines` PE lines over fov_m, TR 10 ms, TE 4 ms, 30°, 500 Hz/pixel, no dummy TRs.
SequenceSpec bench_ge(int lines, double fov_m);

}  // namespace mrwb::cli
