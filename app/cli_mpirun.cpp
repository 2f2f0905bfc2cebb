// `--ranks N`: the same command again through mpirun, and mpirun's reports turned into one line.
#include "cli_mpirun.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>

#include "cli_commands.hpp"
#include "mrwb/base/errors.hpp"

extern char** environ;

namespace mrwb::cli {
namespace {

// The arguments after the executable, less --ranks and its value.
std::vector<std::string> without_ranks(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--ranks") {
      ++i;
      continue;
    }
    if (args[i].rfind("--ranks=", 0) == 0) continue;
    out.push_back(args[i]);
  }
  return out;
}

// mpirun frames each report between lines of dashes. Kept: a rank killed by a signal; dropped: the reports
// that follow a rank's own line (MPI_Abort, a non-zero exit); OpenMPI's refusal to run as root becomes the
// --ranks line that says what allows it; any other report becomes "mpirun: <its text>".
// mpirun's own log lines ("[host:pid] ...", e.g. ORTE_ERROR_LOG while it tears an aborted job down) are
// held back and shown only when no rank has said what went wrong (a rank that did ends the job with 2 or 130).
struct ReportFilter {
  std::string option;  // "--ranks N"
  bool inside = false;
  std::vector<std::string> lines;
  std::string killed;  // "rank R: killed by signal N (name)"
  bool aborted = false;  // a rank called MPI_Abort after its own line
  bool other = false;
  std::vector<std::string> held;

  void line(const std::string& l) {
    // A rank's text and mpirun's frame can share a line when the two streams interleave: split them.
    if (const auto at = l.find(std::string(20, '-')); at != std::string::npos && at > 0) {
      line(l.substr(0, at));
      const auto end = l.find_first_not_of('-', at);
      line(l.substr(at, end == std::string::npos ? std::string::npos : end - at));
      if (end != std::string::npos) line(l.substr(end));
      return;
    }
    if (l.size() >= 20 && l.find_first_not_of('-') == std::string::npos) {
      if (inside) close();
      inside = !inside;
      return;
    }
    static const std::regex log_re(R"(^\[[^\]]+:[0-9]+\] )");
    if (inside)
      lines.push_back(l);
    else if (std::regex_search(l, log_re))
      held.push_back(l);
    else
      std::cerr << l << "\n";
  }
  void finish(int rc) {
    if (!aborted && killed.empty() && rc != 2 && rc != 130)
      for (const auto& l : held) std::cerr << l << "\n";
    if (!killed.empty()) std::cerr << killed << "\n";
  }
  void close() {
    std::string text;
    for (const auto& l : lines) text += l + " ";
    lines.clear();
    static const std::regex signal_re(R"(process rank (\d+) with PID .* exited on signal (\d+) \(([^)]*)\))");
    std::smatch m;
    if (std::regex_search(text, m, signal_re)) {
      if (killed.empty()) killed = "rank " + m[1].str() + ": killed by signal " + m[2].str() + " (" + m[3].str() + ")";
    } else if (text.find("MPI_ABORT was invoked") != std::string::npos) {
      aborted = true;
    } else if (text.find("attempt to run as root") != std::string::npos) {
      if (!other)
        std::cerr << "mrwb: " << option << ": OpenMPI's mpirun refuses to run as root (allowed: another user, or "
                  << "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the environment)\n";
      other = true;
    } else if (text.find("a non-zero exit code") == std::string::npos &&
               text.find("exited with non-zero status") == std::string::npos) {
      const auto first = text.find_first_not_of(' '), last = text.find_last_not_of(' ');
      if (first != std::string::npos && !other) std::cerr << "mpirun: " << text.substr(first, last + 1 - first) << "\n";
      other = true;
    }
  }
};

}  // namespace

int rerun_through_mpirun(int ranks, const std::vector<std::string>& args) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw std::runtime_error("--ranks: cannot find this executable (/proc/self/exe)");
  std::vector<std::string> argv_s = {"mpirun", "--oversubscribe", "-np", std::to_string(ranks), self};
  for (auto& a : without_ranks(args)) argv_s.push_back(a);
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  int err[2];
  if (pipe(err) != 0) throw std::runtime_error("--ranks: no pipe for mpirun's reports");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addclose(&actions, err[0]);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "mpirun", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(err[1]);
  if (spawned != 0) {
    close(err[0]);
    throw InputError("--ranks " + std::to_string(ranks) + ": mpirun not found (install openmpi-bin; allowed without it: 1)");
  }
  ReportFilter filter;
  filter.option = "--ranks " + std::to_string(ranks);
  FILE* in = fdopen(err[0], "r");
  std::string line;
  for (int c; (c = std::fgetc(in)) != EOF;) {
    if (c != '\n') {
      line += static_cast<char>(c);
      continue;
    }
    filter.line(line);
    line.clear();
  }
  if (!line.empty()) filter.line(line);
  std::fclose(in);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (interrupt_token().cancelled()) {  // Ctrl-C reached mpirun too, which ended every rank
    std::cerr << "mrwb: cancelled; nothing written\n";
    return 130;
  }
  filter.finish(rc);
  if (rc == 0 && filter.killed.empty()) return 0;
  return rc == 130 ? 130 : 2;
}

}  // namespace mrwb::cli
