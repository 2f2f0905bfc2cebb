#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli_commands.hpp"
#include "cli_outputs.hpp"
#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/metrics/metrics.hpp"

namespace mrwb::cli {
namespace {

// An image or a volume (.h5 and .cfl of any nz; .nii: one slice), as a volume.
ImageVolume read_compared(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".nii") return stack_images({read_image(path)}, 0);
  return read_image_volume(path);
}

std::string size_text(const ImageVolume& v) {
  std::string t = std::to_string(v.nx) + "x" + std::to_string(v.ny);
  return v.nz > 1 ? t + "x" + std::to_string(v.nz) : t;
}

// The slice of a volume's error map with the largest sum of squared errors (the one a PNG shows).
int worst_slice(const std::vector<float>& e, std::size_t plane, int nz) {
  int worst = 0;
  double worst_se = -1;
  for (int z = 0; z < nz; ++z) {
    double se = 0;
    for (std::size_t i = z * plane; i < (z + 1) * plane; ++i) se += static_cast<double>(e[i]) * e[i];
    if (se > worst_se) {
      worst_se = se;
      worst = z;
    }
  }
  return worst;
}

}  // namespace

Action add_compare(CLI::App& app) {
  auto* sub = app.add_subcommand("compare",
                                 "Metrics of an image or a volume against a reference: PSNR, % error, NRMSE, SSIM (3-D "
                                 "windows for volumes of 7 slices or more)");
  struct Opts {
    std::string image, reference, error_map;
    float error_max = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--image", o->image, "Image or volume (.h5, .cfl; .nii: 2-D)")->required();
  sub->add_option("--reference", o->reference, "Reference image or volume (.h5, .cfl; .nii: 2-D)")->required();
  sub->add_option("--error-map", o->error_map,
                  "Signed error map |image| - |reference| as PNG (cool-warm colormap, colorbar with its scale); of a "
                  "volume, the slice with the largest error (printed as error_map_slice)");
  sub->add_option("--error-max", o->error_max, "Error map colour scale +-max, image units (default: largest |error|)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", o->json, "Print metrics as JSON");
  return [o] {
    if (!o->error_map.empty()) {  // checked before the images are read and compared
      if (std::filesystem::path(o->error_map).extension() != ".png")
        throw InputError(o->error_map + ": --error-map must be a PNG image (allowed: .png)");
    }
    CommandOutputs outputs({o->image, o->reference}, {o->error_map});
    const ImageVolume img = read_compared(o->image);
    const ImageVolume ref = read_compared(o->reference);
    if (img.nx != ref.nx || img.ny != ref.ny || img.nz != ref.nz)
      throw InputError(o->image + ": " + size_text(img) + " differs from " + o->reference + ": " + size_text(ref));
    const std::vector<float> a = img.magnitude(), b = ref.magnitude();
    // Every figure divides by the reference's peak, RMS or range: against zeros there is none to report.
    if (std::none_of(b.begin(), b.end(), [](float v) { return v != 0.f; }))
      throw InputError(o->reference + ": the reference is all zero, so PSNR, % error and NRMSE are undefined "
                       "(allowed: a reference with signal)");
    const Metrics m = compare_volumes(a, b, img.nx, img.ny, img.nz);
    int map_slice = -1;
    if (!o->error_map.empty()) {
      const std::vector<float> e = error_map(a, b);
      map_slice = worst_slice(e, img.plane(), img.nz);
      const auto first = e.begin() + static_cast<std::ptrdiff_t>(map_slice * img.plane());
      write_png_error_map(o->error_map, std::vector<float>(first, first + static_cast<std::ptrdiff_t>(img.plane())), img.nx,
                          img.ny, o->error_max);
    }
    outputs.commit();
    if (o->json) {
      nlohmann::json j = {{"psnr_db", m.psnr_db}, {"percent_error", m.percent_error}, {"nrmse", m.nrmse},
                          {"ssim", m.ssim}, {"image", o->image}, {"reference", o->reference}};
      if (img.nz > 1) {
        j["slices"] = img.nz;
        if (map_slice >= 0) j["error_map_slice"] = map_slice;
      }
      std::cout << j.dump(2) << "\n";
    } else {
      std::printf("psnr_db %.3f\npercent_error %.4f\nnrmse %.6f\nssim %.5f\n", m.psnr_db, m.percent_error, m.nrmse, m.ssim);
      if (img.nz > 1) std::printf("slices %d\n", img.nz);
      if (img.nz > 1 && map_slice >= 0) std::printf("error_map_slice %d\n", map_slice);
    }
    return 0;
  };
}

}  // namespace mrwb::cli
