// Volume reconstruction of multi-slice 2-D and 3-D Cartesian data through the 2-D reconstructors.
#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/recon/multislice.hpp"

namespace mrwb {

ImageVolume reconstruct_volume(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                               const CancelToken& cancel) {
  if (!raw.cartesian() && raw.volume())
    throw InputError("recon: multi-slice / 3-D data with a trajectory (allowed: Cartesian)");
  // 3-D: kz first, so every partition is an ordinary 2-D k-space (GRAPPA in-plane works per partition).
  const RawData hybrid = hybrid_space(raw);
  auto recon = make_reconstructor(options.method, options.backend);
  const int planes = raw.slices * raw.partitions;
  std::vector<Image2D> images;
  images.reserve(static_cast<std::size_t>(planes));
  for (int s = 0; s < raw.slices; ++s)
    for (int p = 0; p < raw.partitions; ++p) {
      cancel.throw_if_cancelled();
      const int done = static_cast<int>(images.size());
      ProgressFn plane_progress;
      if (progress)
        plane_progress = [&](double f, std::string_view stage) { progress((done + f) / planes, stage); };
      images.push_back(recon->reconstruct(extract_slice(hybrid, s, p), options, plane_progress, cancel));
    }
  if (progress) progress(1.0, "volume");
  // z extent: slices × spacing (2-D), the slab (3-D).
  const double spacing = raw.slice_spacing_m > 0 ? raw.slice_spacing_m : raw.fov_z_m;
  return stack_images(images, raw.partitions > 1 ? raw.fov_z_m : spacing * raw.slices);
}

}  // namespace mrwb
