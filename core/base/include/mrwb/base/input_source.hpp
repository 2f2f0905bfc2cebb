#pragma once
// Refusals said about the input they concern: a step that cannot know the file (a gradient design, the
// conversion of a played sequence) refuses without it, and its caller, which knows it, names it.
#include <string>

#include "mrwb/base/errors.hpp"

namespace mrwb {

// Runs f() on behalf of `source` (a file, or "FILE: field"): an InputError whose message does not name it
// is said about it, "SOURCE: message".
template <class F>
auto about_source(const std::string& source, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const InputError& e) {
    if (std::string(e.what()).find(source) != std::string::npos) throw;
    throw InputError(source + ": " + e.what());
  }
}

}  // namespace mrwb
