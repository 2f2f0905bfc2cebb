// NIfTI-1 (core/io/src/nifti_io.cpp): the bytes as a .nii file, read as `mrwb compare --image X.nii`
// reads it (read_image by extension).
#include "fuzz_support.hpp"
#include "mrwb/io/file_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = mrwb::fuzz::scratch_path("in.nii");
  mrwb::fuzz::write_file(path, mrwb::fuzz::bytes(data, size));
  mrwb::fuzz::accepts(path, [&] {
    const mrwb::Image2D img = mrwb::read_image(path);
    (void)img.magnitude();
  });
  return 0;
}
