#pragma once
// Files: ISMRMRD raw data and images (libismrmrd), PNG (libpng). Every write goes to a temporary file
// beside the target and is renamed into place, so a failure never leaves a partial output.
#include <string>
#include <vector>

#include "mrwb/image.hpp"
#include "mrwb/raw_data.hpp"

namespace mrwb {

void write_raw_ismrmrd(const std::string& path, const RawData& raw);
RawData read_raw_ismrmrd(const std::string& path);

void write_image_ismrmrd(const std::string& path, const Image2D& image);
Image2D read_image_ismrmrd(const std::string& path);

// Magnitude as 8-bit grey PNG; window [lo, hi] (hi <= lo: 0 .. max).
void write_png_magnitude(const std::string& path, const std::vector<float>& magnitude, int nx, int ny,
                         float lo = 0, float hi = 0);
// Signed error map with a diverging blue-white-red colormap, symmetric around 0 (max_abs <= 0: auto),
// and a colorbar strip on the right.
void write_png_error_map(const std::string& path, const std::vector<float>& error, int nx, int ny,
                         float max_abs = 0);

// By extension: .h5 (ISMRMRD image) or .png (magnitude). Throws InputError for others.
void write_image(const std::string& path, const Image2D& image);
// .h5 (ISMRMRD image). Throws InputError naming the file on a bad or missing file.
Image2D read_image(const std::string& path);

}  // namespace mrwb
