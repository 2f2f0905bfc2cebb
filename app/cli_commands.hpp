#pragma once
// The `mrwb` subcommands (ARCHITECTURE.md, "CLI contract"). Each registers its options on the app and
// returns the function that runs it.
#include <CLI/CLI.hpp>

#include <functional>

#include "mrwb/base/progress.hpp"

namespace mrwb::cli {

using Action = std::function<int()>;

// Set by SIGINT: long commands stop within ~100 ms and write nothing.
const CancelToken& interrupt_token();
// Progress on stderr as one updating line ("simulate  42 %"), silent when quiet.
ProgressFn terminal_progress(bool quiet);

Action add_info(CLI::App& app);
Action add_phantom(CLI::App& app);
Action add_simulate(CLI::App& app);
Action add_recon(CLI::App& app);
Action add_compare(CLI::App& app);
Action add_bench(CLI::App& app);
Action add_flow(CLI::App& app);
Action add_sequence(CLI::App& app);
// Verbs parsed but answered "not yet available" (exit 1); none at present.
void add_not_yet_available(CLI::App& app, std::vector<std::pair<CLI::App*, std::string>>& out);

}  // namespace mrwb::cli
