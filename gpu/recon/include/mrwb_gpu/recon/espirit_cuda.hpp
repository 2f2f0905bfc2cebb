#pragma once
// CUDA twin of mrwb/recon/espirit.hpp (ESPIRiT, Uecker et al. 2014), the same maps up to float error:
//   calibration (complex double): the calibration matrix A built on the device, the Gram matrix of its
//     smaller side by cuBLAS ZHERK, its eigendecomposition by cuSOLVER ZHEEVD (A's singular values and
//     right singular vectors, their eq. 9), the kernels' image-space Gram G on the 2·kernel_size grid by two
//     ZGEMMs (eq. 16), the coils' principal component (the phase reference) by ZHERK and ZHEEVD;
//   maps (complex float): G interpolated to the image grid by two real SGEMMs (the interpolation is real and
//     separable), the top eigenpair of every voxel's C x C matrix by cuSOLVER's batched Jacobi CHEEVJ
//     (coils <= 32), the same phase reference and crop as the CPU, in chunks of rows.
// No CUDA type in this header (tests and the CLI include it).
#include "mrwb/recon/espirit.hpp"

namespace mrwb::gpu {

// cusolverDn<t>heevjBatched takes matrices up to 32 x 32.
constexpr int k_espirit_cuda_max_coils = 32;

// Device-side times (CUDA events) of one call.
struct EspiritCudaTiming {
  double calibrate_ms = 0;  // upload of the block, A, Gram, eigendecomposition, G on the small grid
  double maps_ms = 0;       // interpolation, batched eigenproblems, phase and crop, download
};

// espirit_maps on the device: the same input checks and calibration block, then InputError (one line) for
// more than k_espirit_cuda_max_coils coils.
EspiritMaps espirit_maps_cuda(const RawData& raw, const EspiritParams& p, EspiritCudaTiming* timing = nullptr);

}  // namespace mrwb::gpu
