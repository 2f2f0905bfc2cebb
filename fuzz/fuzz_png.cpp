// PNG (core/io/src/png_io.cpp): the bytes as a .png file, decoded by read_png (libpng), the reader the
// tests and viewers use on the magnitude images and error maps the CLI writes.
#include "fuzz_support.hpp"
#include "mrwb/io/file_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = mrwb::fuzz::scratch_path("in.png");
  mrwb::fuzz::write_file(path, mrwb::fuzz::bytes(data, size));
  mrwb::fuzz::accepts(path, [&] { (void)mrwb::read_png(path); });
  return 0;
}
