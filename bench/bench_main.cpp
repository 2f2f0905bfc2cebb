// `mrwb-bench`: the timing suites (bench_*.cpp), also run as `mrwb bench`. `mrwb-bench --suite sim` and
// `mrwb-bench bench --suite sim` are the same (the second is how `mrwb bench` and the ranks of the scale
// suite call it). Exit codes as mrwb's.
#include <csignal>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli_commands.hpp"
#include "mrwb/base/version.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/pipeline/register_backends.hpp"
#endif

namespace {
extern "C" void on_sigint(int) { mrwb::cli::interrupt_token().cancel(); }
}  // namespace

int main(int argc, char** argv) {
#ifdef MRWB_HAVE_CUDA
  mrwb::gpu::register_backends();
#endif
  std::signal(SIGINT, on_sigint);
  std::vector<char*> args(argv, argv + argc);
  static char bench[] = "bench";
  if (argc < 2 || std::string_view(argv[1]) != bench) args.insert(args.begin() + 1, bench);
  // Run as `mrwb bench` (argv[0] "mrwb"), its messages begin "mrwb:" as every verb's.
  const std::string name = std::filesystem::path(argv[0]).filename().string() == "mrwb" ? "mrwb" : "mrwb-bench";
  CLI::App app{"MR Workbench benchmarks: timing tables (run on the GPU machine for GPU figures)", name};
  app.set_version_flag("--version", mrwb::version_string);
  app.require_subcommand(1);
  const mrwb::cli::Action run = mrwb::cli::add_bench(app);
  if (const auto rc = mrwb::cli::parse_command_line(app, static_cast<int>(args.size()), args.data())) return *rc;
  return mrwb::cli::run_action(name, run);
}
