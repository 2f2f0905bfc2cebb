#pragma once
// What every harness shares: the input as a file of this process (for readers that take a path), and the
// CLI's rule for a refusal. An InputError is bad input (exit 2) and must be one line naming the input;
// any other exception would be exit 1 (a runtime failure the input should not cause), so it is left to
// escape and abort the run, as a crash or a sanitizer report does, for libFuzzer to record.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mrwb/base/errors.hpp"

namespace mrwb::fuzz {

// The bytes libFuzzer hands over.
inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// "<dir>/<name>" in a folder of this process under $TMPDIR (removed at exit); the same path on every
// call, so a run of millions of inputs reuses one file.
std::string scratch_path(const std::string& name);
// Replaces the file's content with `content`.
void write_file(const std::string& path, std::string_view content);

// An InputError's message must be one line that names `input` (the file or source the reader was
// given); anything else aborts with the message, so libFuzzer keeps the input as a finding.
void check_refusal(const InputError& e, const std::string& input);

// Runs one reader stage: success or a well-formed refusal (true: it succeeded).
template <class F>
bool accepts(const std::string& input, F&& stage) {
  try {
    stage();
    return true;
  } catch (const InputError& e) {
    check_refusal(e, input);
    return false;
  }
}

}  // namespace mrwb::fuzz
