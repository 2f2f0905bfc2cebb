// `mrwb`: the command-line face of MR Workbench. Exit codes: 0 ok, 1 runtime failure, 2 bad input.
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "cli_commands.hpp"
#include "cli_ranks.hpp"

#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/version.hpp"

namespace {
extern "C" void on_sigint(int) { mrwb::cli::interrupt_token().cancel(); }

// A number option given "nan" or "inf" passes every range check (each comparison with NaN is false), so
// every verb's FLOAT options are held to finite values here, once.
void refuse_non_finite(const CLI::App& sub) {
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->count() == 0 || opt->get_type_name().find("FLOAT") == std::string::npos) continue;
    for (const std::string& text : opt->results()) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end != text.c_str() && *end == '\0' && !std::isfinite(v))
        throw mrwb::InputError(opt->get_name() + " " + text.substr(0, 40) + ": not a finite number (allowed: a finite value)");
    }
  }
}

// A verb whose --backend may pick CUDA loads the CUDA module and starts the device's context while it reads
// its inputs (unless MRWB_EARLY_DEVICE_START=0, which times the start where the work first needs it).
bool may_use_device(const CLI::App& sub) {
  const char* early = std::getenv("MRWB_EARLY_DEVICE_START");
  if (early && std::string_view(early) == "0") return false;
  const CLI::Option* ranks = sub.get_option_no_throw("--ranks");
  if (ranks && ranks->count() > 0) return false;  // this process only starts mpirun; the ranks start their own
  const CLI::Option* backend = sub.get_option_no_throw("--backend");
  return backend && backend->as<std::string>() != "cpu";
}
}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGINT, on_sigint);
  mrwb::cli::remember_command_line(argc, argv);  // `simulate --ranks N` runs it again through mpirun
  CLI::App app{"MR Workbench: MRI simulation and reconstruction", "mrwb"};
  app.set_version_flag("--version", mrwb::version_string);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, mrwb::cli::Action>> actions;
  auto add = [&](mrwb::cli::Action (*f)(CLI::App&)) {
    auto before = app.get_subcommands({}).size();
    auto act = f(app);
    actions.emplace_back(app.get_subcommands({})[before], act);
  };
  add(mrwb::cli::add_info);
  add(mrwb::cli::add_phantom);
  add(mrwb::cli::add_simulate);
  add(mrwb::cli::add_recon);
  add(mrwb::cli::add_compare);
  add(mrwb::cli::add_bench_forward);
  add(mrwb::cli::add_flow);
  add(mrwb::cli::add_sequence);
  std::vector<std::pair<CLI::App*, std::string>> later;
  mrwb::cli::add_not_yet_available(app, later);

  if (const std::optional<int> rc = mrwb::cli::parse_command_line(app, argc, argv)) return *rc;
  for (auto& [sub, run] : actions)
    if (sub->parsed())
      return mrwb::cli::run_action("mrwb", [&sub = *sub, &run = run] {
        refuse_non_finite(sub);
        std::optional<mrwb::CudaStart> cuda_start;
        if (may_use_device(sub)) cuda_start.emplace();
        return run();
      });
  for (auto& [sub, name] : later)
    if (sub->parsed()) {
      std::cerr << "mrwb " << name << ": not yet available in this version\n";
      return 1;
    }
  return 1;
}
