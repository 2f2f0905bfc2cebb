#include "mrwb/pipeline/recon_coil_maps.hpp"

#include "mrwb/recon/espirit_backend.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/simulation/simulate.hpp"

namespace mrwb {

std::vector<std::complex<float>> recon_coil_maps(const Scenario& scenario, const RawData& raw, Backend backend) {
  if (scenario.recon.maps != "espirit") return scenario_image_coil_maps(scenario, raw.nx, raw.ny);
  if (!raw.volume()) return espirit_maps(raw, EspiritParams{}, backend).maps;
  // A slab's partitions are kz: its central plane in z is one partition of the hybrid space.
  const RawData central = raw.partitions > 1 ? extract_slice(hybrid_space(raw), 0, raw.partitions / 2)
                                             : extract_slice(raw, raw.slices / 2, 0);
  return espirit_maps(central, EspiritParams{}, backend).maps;
}

}  // namespace mrwb
