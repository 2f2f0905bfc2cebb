#include "mrwb/pipeline/recon_coil_maps.hpp"

#include <cmath>

#include "mrwb/recon/espirit_backend.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/simulation/simulate.hpp"

namespace mrwb {
namespace {

// Every voxel's maps scaled to a root sum of squares of 1 (zero where all are zero).
void normalise_rss(std::vector<std::complex<float>>& maps, int coils) {
  const std::size_t plane = maps.size() / coils;
  for (std::size_t i = 0; i < plane; ++i) {
    double ss = 0;
    for (int c = 0; c < coils; ++c) ss += std::norm(maps[c * plane + i]);
    if (!(ss > 0)) continue;
    const float inv = static_cast<float>(1 / std::sqrt(ss));
    for (int c = 0; c < coils; ++c) maps[c * plane + i] *= inv;
  }
}

std::vector<std::complex<float>> noncart_coil_maps(const Scenario& scenario, const RawData& raw, Backend backend,
                                                   int matrix) {
  if (!scenario.recon.maps) return {};
  if (*scenario.recon.maps == "espirit") return espirit_maps_noncart(raw, matrix, EspiritParams{}, backend).maps;
  const int n = matrix > 0 ? matrix : noncart::default_matrix(noncart::samples_from_raw(raw));
  std::vector<std::complex<float>> maps = scenario_image_coil_maps(scenario, n, n);
  normalise_rss(maps, raw.ncoils);
  return maps;
}

}  // namespace

std::vector<std::complex<float>> recon_coil_maps(const Scenario& scenario, const RawData& raw, Backend backend,
                                                 int matrix) {
  if (!raw.cartesian()) return noncart_coil_maps(scenario, raw, backend, matrix);
  if (scenario.recon.maps != "espirit") return scenario_image_coil_maps(scenario, raw.nx, raw.ny);
  if (!raw.volume()) return espirit_maps(raw, EspiritParams{}, backend).maps;
  // A slab's partitions are kz: its central plane in z is one partition of the hybrid space.
  const RawData central = raw.partitions > 1 ? extract_slice(hybrid_space(raw), 0, raw.partitions / 2)
                                             : extract_slice(raw, raw.slices / 2, 0);
  return espirit_maps(central, EspiritParams{}, backend).maps;
}

}  // namespace mrwb
