#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli_commands.hpp"
#include "cli_outputs.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb::cli {

std::filesystem::path phantoms_dir() {
  if (const char* env = std::getenv("MRWB_PHANTOMS_DIR"); env && *env) return env;
#ifdef MRWB_INSTALLED_PHANTOMS_DIR
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = (exe.parent_path() / MRWB_INSTALLED_PHANTOMS_DIR).lexically_normal();
    if (std::filesystem::is_directory(installed, ec)) return installed;
  }
#endif
#ifdef MRWB_PHANTOMS_DIR
  return MRWB_PHANTOMS_DIR;
#else
  return "phantoms";
#endif
}

Action add_phantom(CLI::App& app) {
  auto* sub = app.add_subcommand("phantom", "List phantom presets or write one as a scenario file");
  auto list = std::make_shared<bool>(false);
  auto preset = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  sub->add_flag("--list", *list, "List the presets");
  sub->add_option("--preset", *preset, "Preset name");
  sub->add_option("--out", *out, "Scenario JSON to write");
  return [=] {
    if (*list) {
      // Each preset, and its shipped scenario file phantoms/NAME.json where there is one.
      const auto dir = phantoms_dir();
      for (const auto& n : scenario_preset_names()) {
        const auto file = dir / (n + ".json");
        std::cout << n << ": " << scenario_preset(n).description;
        if (std::filesystem::exists(file)) std::cout << " [" << file.string() << "]";
        std::cout << "\n";
      }
      return 0;
    }
    if (preset->empty() || out->empty()) throw InputError("phantom: give --list, or --preset NAME with --out P.json");
    CommandOutputs outputs({}, {*out});
    save_scenario(scenario_preset(*preset), *out);
    outputs.commit();
    std::cout << "wrote " << *out << "\n";
    return 0;
  };
}

}  // namespace mrwb::cli
