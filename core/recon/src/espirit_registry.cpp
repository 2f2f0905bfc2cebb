// ESPIRiT's backends (recon/espirit_backend.hpp).
#include "mrwb/recon/espirit_backend.hpp"

#include <string>

#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/recon/fft_layout.hpp"

namespace mrwb {
namespace {

BackendRegistry<EspiritFn>& registry() {
  static BackendRegistry<EspiritFn> r({{{"espirit", Backend::Cpu},
                                        {[] { return true; }, [](const EspiritBlock& b, int nx, int ny, const EspiritParams& p) {
                                           return espirit_from_calibration(b.data, b.cx, b.cy, b.coils, nx, ny, p);
                                         }}}});
  return r;
}

EspiritFn chosen(Backend backend) {
  const auto refusal = [](BackendRefusal why, Backend, Backend b) -> std::string {
    if (why == BackendRefusal::Unavailable) return "espirit --backend cuda: no CUDA device available here (allowed: cpu, auto)";
    if (b == Backend::Cuda) return "espirit --backend cuda: " + cuda_backends_missing_reason() + " (allowed: cpu, auto)";
    return "espirit --backend " + name_of(b) + ": not in this build (allowed: cpu, auto)";
  };
  return registry().choose("espirit", backend, refusal);
}

}  // namespace

void register_espirit(Backend backend, EspiritBackend b) { registry().add("espirit", backend, std::move(b)); }

EspiritMaps espirit_maps(const RawData& raw, const EspiritParams& p, Backend backend) {
  const EspiritBlock b = espirit_calibration_block(raw, p);  // the refusals before the backend's
  const EspiritFn maps = chosen(backend);
  const FftLayout l = fft_layout(raw);
  return espirit_crop_to_image(raw, maps(b, l.Nx, l.Ny, p));
}

EspiritMaps espirit_maps_noncart(const RawData& raw, int matrix, const EspiritParams& p, Backend backend) {
  const EspiritNoncartCalibration c = espirit_noncart_calibration(raw, matrix, p);
  return chosen(backend)(c.block, c.matrix, c.matrix, p);
}

}  // namespace mrwb
