#pragma once
// The message of an expected InputError, for suites that check what it says.
#include <QString>

#include "mrwb/base/errors.hpp"

namespace mrwb::test {

// The message of the InputError that f() throws, or an empty string when it throws none.
template <typename F>
QString input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace mrwb::test
