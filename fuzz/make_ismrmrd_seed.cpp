// Seed maker for fuzz_ismrmrd: an ISMRMRD raw-data file in the harness's input format
// (ismrmrd_fuzz_input.hpp). Usage: make_ismrmrd_seed IN.h5 OUT
#include <cstdio>
#include <exception>

#include "fuzz_support.hpp"
#include "ismrmrd_fuzz_input.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.h5 OUT\n", argv[0]);
    return 2;
  }
  try {
    mrwb::fuzz::write_file(argv[2], mrwb::fuzz::ismrmrd_fuzz_input(argv[1]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
    return 1;
  }
  return 0;
}
