// ISMRMRD files byte by byte (core/io/src/ismrmrd_checks.cpp, ismrmrd_io.cpp): the bytes as an .h5 file,
// read as raw data (`mrwb recon --in X.h5`) and as an image (`mrwb compare --image X.h5`). Damaged HDF5
// structure and wrong compound types must be refused by the layout checks before libismrmrd reads.
#include "fuzz_support.hpp"
#include "mrwb/io/file_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = mrwb::fuzz::scratch_path("file.h5");
  mrwb::fuzz::write_file(path, mrwb::fuzz::bytes(data, size));
  mrwb::RawSelection all;
  all.slice = -1;  // recon's default
  mrwb::fuzz::accepts(path, [&] { (void)mrwb::read_raw(path, "", all); });
  mrwb::fuzz::accepts(path, [&] { (void)mrwb::read_image(path); });
  return 0;
}
