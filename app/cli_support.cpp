#include <unistd.h>

#include <cstdio>
#include <mutex>

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

}  // namespace mrwb::cli
