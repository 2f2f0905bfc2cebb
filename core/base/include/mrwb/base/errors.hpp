#pragma once
// Error kinds shared by the CLI and the GUI: bad input (exit 2), cancellation, runtime failure (exit 1).
#include <stdexcept>
#include <string>

namespace mrwb {

// Bad input: a file, a field or a parameter outside its allowed range. The message is one line that
// names what and where (file, field) and the allowed range. The CLI maps it to exit code 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The user cancelled a long job; nothing partial has been written.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace mrwb
