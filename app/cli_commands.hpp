#pragma once
// The `mrwb` subcommands (ARCHITECTURE.md, "CLI contract"). Each registers its options on the app and
// returns the function that runs it.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "mrwb/base/enum_names.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/progress.hpp"

namespace mrwb::cli {

using Action = std::function<int()>;

// Set by SIGINT: long commands stop within ~100 ms and write nothing.
const CancelToken& interrupt_token();
// Progress on stderr as one updating line ("simulate  42 %") when stderr is a terminal; silent in a log
// (stderr a file or a pipe) and when quiet.
ProgressFn terminal_progress(bool quiet);
// Whether stderr is a terminal. A verb says what it starts only there; in a log its one closing line
// ("wrote …") carries what the start line said, so that a log holds one line per verb.
bool on_terminal();

// An option's text as its enum, read once where the option is used; another text is refused as
// "FLAG TEXT: unknown WHAT (allowed: a, b, c)" (InputError: exit 2, like every bad value).
template <class E, std::size_t N>
E parse_flag(const std::string& flag, const std::string& text, const EnumNames<E, N>& names, const std::string& what) {
  if (const std::optional<E> e = enum_from_name(names, text)) return *e;
  throw InputError(flag + " " + text + ": unknown " + what + " (allowed: " + enum_name_list(names) + ")");
}

// The shipped scenario files: $MRWB_PHANTOMS_DIR; else the installed copy beside this executable
// (cmake/Install.cmake: <bin>/../share/mrwb/phantoms); else the source tree's phantoms/.
std::filesystem::path phantoms_dir();

Action add_info(CLI::App& app);
Action add_phantom(CLI::App& app);
Action add_simulate(CLI::App& app);
Action add_recon(CLI::App& app);
Action add_compare(CLI::App& app);
Action add_bench(CLI::App& app);
Action add_flow(CLI::App& app);
Action add_sequence(CLI::App& app);
// `mrwb bench ...`: runs mrwb-bench (beside this program) with the same arguments.
Action add_bench_forward(CLI::App& app);
// Verbs parsed but answered "not yet available" (exit 1); none at present.
void add_not_yet_available(CLI::App& app, std::vector<std::pair<CLI::App*, std::string>>& out);

// The command line parsed onto `app`: nullopt when a verb is to run, else the exit code (0 after --help or
// --version, 2 after one line "NAME: what was wrong (see NAME --help)").
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);
// Runs `run` with the CLI's exit codes (ARCHITECTURE.md): its own, 2 for bad input (InputError), 130 when
// cancelled, 1 for any other failure, each with one line "NAME: ..." on stderr.
int run_action(const std::string& name, const Action& run);

}  // namespace mrwb::cli
