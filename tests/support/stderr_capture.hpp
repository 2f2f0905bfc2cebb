#pragma once
// What a call prints on stderr (file descriptor 2, where HDF5, libismrmrd and libpng print by default),
// for suites that check that a refusal stays the one line of its message.
#include <unistd.h>

#include <cstdio>
#include <string>

namespace mrwb::test {

template <typename F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  FILE* sink = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(sink), 2);
  const auto restore = [&] {
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
  };
  try {
    f();
  } catch (...) {
    restore();
    std::fclose(sink);
    throw;
  }
  restore();
  std::string text;
  std::rewind(sink);
  for (int c; (c = std::fgetc(sink)) != EOF;) text += static_cast<char>(c);
  std::fclose(sink);
  return text;
}

}  // namespace mrwb::test
