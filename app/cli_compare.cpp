#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli_commands.hpp"
#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/metrics.hpp"

namespace mrwb::cli {

Action add_compare(CLI::App& app) {
  auto* sub = app.add_subcommand("compare", "Metrics of an image against a reference: PSNR, % error, NRMSE, SSIM");
  struct Opts {
    std::string image, reference, error_map;
    float error_max = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--image", o->image, "Image (.h5, .cfl or .nii)")->required();
  sub->add_option("--reference", o->reference, "Reference image (.h5, .cfl or .nii)")->required();
  sub->add_option("--error-map", o->error_map,
                  "Signed error map |image| - |reference| as PNG (cool-warm colormap, colorbar with its scale)");
  sub->add_option("--error-max", o->error_max, "Error map colour scale +-max, image units (default: largest |error|)")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--json", o->json, "Print metrics as JSON");
  return [o] {
    if (!o->error_map.empty()) {  // checked before the images are read and compared
      if (std::filesystem::path(o->error_map).extension() != ".png")
        throw InputError(o->error_map + ": --error-map must be a PNG image (allowed: .png)");
      require_output_folder(o->error_map);
    }
    const Image2D img = read_image(o->image);
    const Image2D ref = read_image(o->reference);
    if (img.nx != ref.nx || img.ny != ref.ny)
      throw InputError(o->image + ": " + std::to_string(img.nx) + "x" + std::to_string(img.ny) + " differs from " +
                       o->reference + ": " + std::to_string(ref.nx) + "x" + std::to_string(ref.ny));
    const auto a = img.magnitude(), b = ref.magnitude();
    const Metrics m = compare_images(a, b, img.nx, img.ny);
    if (!o->error_map.empty()) write_png_error_map(o->error_map, error_map(a, b), img.nx, img.ny, o->error_max);
    if (o->json) {
      nlohmann::json j = {{"psnr_db", m.psnr_db}, {"percent_error", m.percent_error}, {"nrmse", m.nrmse},
                          {"ssim", m.ssim}, {"image", o->image}, {"reference", o->reference}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::printf("psnr_db %.3f\npercent_error %.4f\nnrmse %.6f\nssim %.5f\n", m.psnr_db, m.percent_error, m.nrmse, m.ssim);
    }
    return 0;
  };
}

}  // namespace mrwb::cli
