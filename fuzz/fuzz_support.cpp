#include "fuzz_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace mrwb::fuzz {
namespace {

namespace fs = std::filesystem;

// One folder per process: parallel fuzzing jobs (-jobs / -workers) never share a file.
const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("mrwb-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return dir;
}

}  // namespace

std::string scratch_path(const std::string& name) { return (scratch_dir() / name).string(); }

void write_file(const std::string& path, std::string_view content) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!f.flush()) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

void check_refusal(const InputError& e, const std::string& input) {
  const std::string_view msg = e.what();
  // MRWB_FUZZ_VERBOSE=1: every refusal on stderr, to see what a seed or a finding runs into.
  static const bool verbose = std::getenv("MRWB_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %.*s\n", static_cast<int>(msg.size()), msg.data());
  const char* broken = msg.empty()                                ? "is empty"
                       : msg.find('\n') != std::string_view::npos ? "spans several lines"
                       : msg.find(input) == std::string_view::npos ? "does not name the input"
                                                                   : nullptr;
  if (!broken) return;
  std::fprintf(stderr, "fuzz: refusal message %s (input %s): %.*s\n", broken, input.c_str(),
               static_cast<int>(std::min<std::size_t>(msg.size(), 2000)), msg.data());
  std::abort();
}

}  // namespace mrwb::fuzz
