// ISMRMRD raw data, header and acquisitions (core/io/src/ismrmrd_io.cpp): the input is the header XML and
// the acquisitions in the format of ismrmrd_fuzz_input.hpp, read as `mrwb recon --in X.h5` reads a file's
// header and acquisitions (read_raw_ismrmrd after HDF5).
#include <algorithm>

#include "fuzz_support.hpp"
#include "ismrmrd_fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = mrwb::fuzz::bytes(data, size);
  const std::size_t nul = std::min(in.find('\0'), in.size());
  const std::string xml(in.substr(0, nul));
  mrwb::fuzz::read_raw_as_recon("fuzz.h5", xml, mrwb::fuzz::parse_acquisitions(in.substr(std::min(nul + 1, in.size()))));
  return 0;
}
