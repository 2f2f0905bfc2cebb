// `mrwb bench ARGS`: runs `mrwb-bench bench ARGS` (beside this program), which links the CUDA engines and
// core's internals that the shipped CLI leaves out.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_commands.hpp"

namespace mrwb::cli {

Action add_bench_forward(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "Benchmarks: timing tables (runs mrwb-bench; mrwb bench --help lists the suites)");
  sub->prefix_command();  // every argument goes to mrwb-bench, --help too
  sub->set_help_flag();
  return [sub]() -> int {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path bench = self.parent_path() / "mrwb-bench";
    std::vector<std::string> args = {"mrwb", "bench"};  // argv[0] "mrwb": it speaks as the command typed
    for (const std::string& a : sub->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bench.c_str(), argv.data());
    throw std::runtime_error("bench: cannot run " + bench.string() + " (" + std::strerror(errno) +
                             "; build the mrwb-bench target)");
  };
}

}  // namespace mrwb::cli
