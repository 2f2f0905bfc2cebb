#include <cstdio>
#include <iostream>

#include "bench_suites.hpp"
#include "cli_commands.hpp"
#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#endif

namespace mrwb::cli {

std::optional<BenchBackends> bench_backends(const BenchOptions& options, const char* suite, nlohmann::json& report) {
  BenchBackends b;
  b.cpu = options.backend != Backend::Cuda;
#ifdef MRWB_HAVE_CUDA
  b.cuda = options.backend != Backend::Cpu && gpu::device_available();
  report["device"] = b.cuda ? gpu::device_description() : std::string("none");
#else
  report["device"] = "none";
#endif
  if (options.backend == Backend::Cuda && !b.cuda) {
    std::fprintf(stderr, "bench %s: --backend cuda but no CUDA device\n", suite);
    return std::nullopt;
  }
  return b;
}

namespace {

using SuiteFn = int (*)(const BenchOptions&, nlohmann::json&);

// One line per suite; `all` runs them in this order.
const std::vector<std::pair<std::string, SuiteFn>> k_suites = {
    {"sim", bench_sim},
    {"grappa", bench_grappa},
    {"espirit", bench_espirit},
    {"sparse", bench_sparse},
    {"noncart", bench_noncart},
    {"flow", bench_flow},
    {"lagrangian", bench_lagrangian},
    {"interactive", bench_interactive},
    {"scale", bench_scale},
};

}  // namespace

Action add_bench(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "Benchmarks: timing tables (run on the GPU machine for GPU figures)");
  struct Opts {
    std::string suite = "all", backend = "auto", json, only, flow_transport = "gradient_frame";
    bool quick = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--suite", o->suite, "sim | grappa | espirit | sparse | noncart | flow | lagrangian | interactive | scale | all");
  sub->add_option("--backend", o->backend, "auto | cpu | cuda");
  sub->add_option("--json", o->json, "Write the results as JSON");
  sub->add_flag("--quick", o->quick, "Small sizes (smoke run)");
  sub->add_option("--flow-transport", o->flow_transport,
                  "Eulerian flow transport of the sim suite's moving cases: gradient_frame | gradient_frame_limited | "
                  "donor_cell (default gradient_frame)");
  sub->add_option("--case", o->only, "Run only the cases whose name contains this text (sim, interactive), e.g. tube");
  return [o] {
    const std::vector<std::string> contract = {"sim", "grappa", "espirit", "sparse", "noncart", "flow", "lagrangian", "interactive", "scale", "all"};
    if (std::find(contract.begin(), contract.end(), o->suite) == contract.end())
      throw InputError("--suite " + o->suite + ": unknown suite (allowed: sim, grappa, espirit, sparse, noncart, flow, lagrangian, interactive, scale, all)");
    // No OutputTransaction: the suites read back the scratch files they write (for bart); the one output, the
    // JSON, is checked before the suites run and written through a temporary.
    if (!o->json.empty()) require_output_folder(o->json);
    BenchOptions opts{parse_flag("--backend", o->backend, k_backend_names, "backend"), o->quick, o->only,
                      parse_flag("--flow-transport", o->flow_transport, k_flow_transport_names, "flow transport")};
    nlohmann::json report = nlohmann::json::object();
    bool ran = false;
    int rc = 0;
    for (const auto& [name, fn] : k_suites) {
      if (o->suite != "all" && o->suite != name) continue;
      ran = true;
      nlohmann::json part = nlohmann::json::object();
      rc |= fn(opts, part);
      report[name] = part;
    }
    if (!ran) {
      std::cerr << "mrwb bench --suite " << o->suite << ": not yet available in this version\n";
      return 1;
    }
    if (!o->json.empty()) {
      AtomicOutput out(o->json);
      const std::string text = report.dump(2) + "\n";
      out.write_bytes(text.data(), text.size());
      out.commit();
    }
    return rc;
  };
}

}  // namespace mrwb::cli
