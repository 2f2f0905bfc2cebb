#include <iostream>

#include "cli_commands.hpp"
#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/version.hpp"
#include "mrwb/scenario/scenario_ranges.hpp"
#include "mrwb/simulation/backend_registry.hpp"

namespace mrwb::cli {

Action add_info(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Version, backends, GPU name and memory if any; --limits: every input limit");
  auto limits = std::make_shared<bool>(false);
  sub->add_flag("--limits", *limits, "Print the allowed range of every scenario field and Pulseq value (Markdown)");
  return [limits] {
    if (*limits) {
      std::cout << input_limits_markdown();
      return 0;
    }
    std::cout << "mrwb " << version_string << "\n";
#ifdef MRWB_HAVE_CUDA
    std::cout << "build: CUDA backends in libmrwb_cuda.so, loaded when a command asks for auto or cuda\n";
#else
    std::cout << "build: CPU only (no CUDA)\n";
#endif
    if (const std::string why = cuda_backends_missing_reason(); !why.empty()) std::cout << "cuda: " << why << "\n";
    for (const auto& b : list_backends())
      std::cout << "backend " << to_string(b.name) << ": " << (b.available ? "available" : "unavailable") << " (" << b.device << ")\n";
    std::cout << "auto picks: " << make_simulation_engine(Backend::Auto)->name() << "\n";
    return 0;
  };
}

}  // namespace mrwb::cli
