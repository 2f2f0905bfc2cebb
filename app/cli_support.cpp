#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>

#include "cli_commands.hpp"

namespace mrwb::cli {

const CancelToken& interrupt_token() {
  static const CancelToken token;
  return token;
}

bool on_terminal() { return isatty(fileno(stderr)) != 0; }

ProgressFn terminal_progress(bool quiet) {
  // Redrawn in place only on a terminal: in a log (stderr a file or a pipe) every redraw would stay, one
  // line of a thousand "\r stage NN %" records; there the command's own summary lines say what ran.
  if (quiet || !on_terminal()) return {};
  auto last = std::make_shared<int>(-1);
  return [last](double f, std::string_view stage) {
    const int pct = static_cast<int>(f * 100);
    if (pct == *last) return;
    *last = pct;
    std::fprintf(stderr, "\r%-10.*s %3d %%%s", static_cast<int>(stage.size()), stage.data(), pct, pct >= 100 ? "\n" : "");
    std::fflush(stderr);
  };
}

void add_not_yet_available(CLI::App& app, std::vector<std::pair<CLI::App*, std::string>>& out) {
  for (const auto& [name, what] : std::vector<std::pair<std::string, std::string>>{}) {
    auto* sub = app.add_subcommand(name, what + " (not yet available)");
    sub->allow_extras();
    out.emplace_back(sub, name);
  }
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    std::cerr << app.get_name() << ": " << what << " (see " << app.get_name() << " --help)\n";
    return 2;
  }
  return std::nullopt;
}

int run_action(const std::string& name, const Action& run) {
  try {
    return run();
  } catch (const InputError& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 2;
  } catch (const Cancelled&) {
    std::cerr << name << ": cancelled; nothing written\n";
    return 130;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace mrwb::cli
