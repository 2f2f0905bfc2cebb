#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/flow/lbm_backends.hpp"
#include "mrwb/recon/espirit_backend.hpp"
#include "mrwb/recon/noncart_volume.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb_gpu/flow/lbm_cuda.hpp"
#include "mrwb_gpu/pipeline/register_backends.hpp"
#include "mrwb_gpu/recon/espirit_cuda.hpp"
#include "mrwb_gpu/recon/fft_cuda.hpp"
#include "mrwb_gpu/recon/grappa_cuda.hpp"
#include "mrwb_gpu/recon/noncart_cuda.hpp"
#include "mrwb_gpu/recon/sparse_cuda.hpp"
#include "mrwb_gpu/simulation/cuda_lagrangian_engine.hpp"
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"

namespace mrwb::gpu {

void register_backends() {
  register_reconstructor(ReconMethod::Fft, Backend::Cuda,
                         ReconBackend{[] { return device_available(); }, [] { return make_fft_reconstructor_cuda(); }});
  register_reconstructor(ReconMethod::Grappa, Backend::Cuda,
                         ReconBackend{[] { return device_available(); }, [] { return make_grappa_cuda_reconstructor(); }});
  register_reconstructor(ReconMethod::Gridding, Backend::Cuda,
                         ReconBackend{[] { return device_available(); }, [] { return make_gridding_reconstructor_cuda(); }});
  register_reconstructor(ReconMethod::Cg, Backend::Cuda,
                         ReconBackend{[] { return device_available(); }, [] { return make_cg_reconstructor_cuda(); }});
  register_espirit(Backend::Cuda, EspiritBackend{[] { return device_available(); },
                                                [](const EspiritBlock& b, int nx, int ny, const EspiritParams& p) {
                                                  return espirit_from_calibration_cuda(b, nx, ny, p);
                                                }});
  register_reconstructor(ReconMethod::Sense, Backend::Cuda,
                         ReconBackend{[] { return device_available(); }, [] { return make_sense_reconstructor_cuda(); }});
  register_reconstructor(ReconMethod::Cs, Backend::Cuda,
                         ReconBackend{[] { return device_available(); }, [] { return make_cs_reconstructor_cuda(); }});
  noncart::register_volume_backend(Backend::Cuda,
                                   noncart::VolumeBackend{[] { return device_available(); }, reconstruct_volume_cuda});
  register_simulation_backend(
      Backend::Cuda, SimulationBackend{[] { return BackendInfo{Backend::Cuda, device_description(), device_available()}; },
                                       [](SimulationModel model) {
                                         return model == SimulationModel::Eulerian ? make_cuda_simulation_engine()
                                                                                   : make_cuda_lagrangian_engine();
                                       }});
  register_lbm_runner(Backend::Cuda, device_available, lbm_run_cuda);
  note_cuda_backends_registered({device_available, device_description, start_context});
}

}  // namespace mrwb::gpu
