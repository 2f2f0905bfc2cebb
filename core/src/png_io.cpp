// PNG output through libpng: magnitude images (grey, window/level) and signed error maps.
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "atomic_file.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"

namespace mrwb {
namespace {

struct Rgb {
  std::uint8_t r, g, b;
};

// Rows are written top row first; image row 0 is y = −FOV/2, so flip to show +y up.
void write_rgb_png(const std::string& path, const std::vector<Rgb>& pixels, int w, int h) {
  AtomicOutput out(path);
  FILE* f = std::fopen(out.temp_path().c_str(), "wb");
  if (!f) throw InputError(path + ": cannot open for writing");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    throw std::runtime_error(path + ": PNG encoding failed");
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = h - 1; y >= 0; --y) png_write_row(png, reinterpret_cast<png_const_bytep>(&pixels[static_cast<std::size_t>(y) * w]));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(f) != 0) throw std::runtime_error(path + ": write failed");
  out.commit();
}

// Moreland's perceptually balanced cool-warm diverging map, sampled at 5 points (t in [0, 1]).
Rgb coolwarm(double t) {
  static constexpr std::array<std::array<double, 3>, 5> k = {{
      {59, 76, 192}, {141, 176, 254}, {221, 221, 221}, {245, 156, 125}, {180, 4, 38}}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  auto mix = [&](int c) { return static_cast<std::uint8_t>(std::lround(k[i][c] + f * (k[i + 1][c] - k[i][c]))); };
  return {mix(0), mix(1), mix(2)};
}

}  // namespace

void write_png_magnitude(const std::string& path, const std::vector<float>& magnitude, int nx, int ny, float lo,
                         float hi) {
  if (magnitude.size() != static_cast<std::size_t>(nx) * ny) throw InputError(path + ": image size mismatch");
  if (hi <= lo) {
    lo = 0;
    hi = magnitude.empty() ? 1.f : *std::max_element(magnitude.begin(), magnitude.end());
    if (hi <= 0) hi = 1;
  }
  std::vector<Rgb> px(magnitude.size());
  for (std::size_t i = 0; i < px.size(); ++i) {
    const double t = std::clamp((magnitude[i] - lo) / (hi - lo), 0.f, 1.f);
    const auto v = static_cast<std::uint8_t>(std::lround(255 * t));
    px[i] = {v, v, v};
  }
  write_rgb_png(path, px, nx, ny);
}

void write_png_error_map(const std::string& path, const std::vector<float>& error, int nx, int ny, float max_abs) {
  if (error.size() != static_cast<std::size_t>(nx) * ny) throw InputError(path + ": error map size mismatch");
  if (max_abs <= 0) {
    for (float e : error) max_abs = std::max(max_abs, std::abs(e));
    if (max_abs <= 0) max_abs = 1;
  }
  // The map, a 4-pixel gap, then an 8-pixel colorbar from −max_abs (bottom) to +max_abs (top).
  const int gap = 4, bar = std::max(8, nx / 16);
  const int w = nx + gap + bar;
  std::vector<Rgb> px(static_cast<std::size_t>(w) * ny, Rgb{255, 255, 255});
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x)
      px[static_cast<std::size_t>(y) * w + x] = coolwarm(0.5 + 0.5 * error[static_cast<std::size_t>(y) * nx + x] / max_abs);
    const Rgb c = coolwarm(ny > 1 ? static_cast<double>(y) / (ny - 1) : 0.5);
    for (int x = nx + gap; x < w; ++x) px[static_cast<std::size_t>(y) * w + x] = c;
  }
  write_rgb_png(path, px, w, ny);
}

void write_image(const std::string& path, const Image2D& image) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5") return write_image_ismrmrd(path, image);
  if (ext == ".png") return write_png_magnitude(path, image.magnitude(), image.nx, image.ny);
  if (ext == ".cfl" || ext == ".nii")
    throw std::runtime_error(path + ": " + ext + " output is not yet available in this version (use .h5 or .png)");
  throw InputError(path + ": unknown image format '" + ext + "' (allowed: .h5, .png)");
}

Image2D read_image(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5") return read_image_ismrmrd(path);
  throw InputError(path + ": unknown image format '" + ext + "' (allowed: .h5)");
}

}  // namespace mrwb
