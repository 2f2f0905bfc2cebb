#pragma once
// CUDA twin of mrwb/recon/espirit.hpp (ESPIRiT, Uecker et al. 2014), the same maps up to float error:
//   calibration (complex double): the calibration matrix A built on the device, the Gram matrix of its
//     smaller side by cuBLAS ZHERK, its eigendecomposition by cuSOLVER ZHEEVD (A's singular values and
//     right singular vectors, their eq. 9), the kernels' image-space Gram G on the 2·kernel_size grid by two
//     ZGEMMs (eq. 16), the coils' principal component (the phase reference) by ZHERK and ZHEEVD;
//   maps (complex float): G interpolated to the image grid by two real SGEMMs (the interpolation is real and
//     separable), the top eigenpair of every voxel's C x C matrix by a batched cuSOLVER eigensolver, the same
//     phase reference and crop as the CPU, in chunks of rows.
// The calibration block is the CPU's (espirit_calibration_block, or espirit_noncart_calibration's gridded centre
// of a trajectory), so Cartesian and non-Cartesian data share the device stages.
// No CUDA type in this header (tests and the CLI include it).
#include "mrwb/recon/espirit.hpp"

namespace mrwb::gpu {

// The batched eigensolver of the voxels' C x C matrices. Jacobi: cusolverDnCheevjBatched, matrices up to 32 x 32.
// Syev: cusolverDnXsyevBatched (CUDA 12.6+), any C; its documented bound is n·lda·batch <= INT32_MAX, which the
// chunks keep. Auto: Jacobi up to 32 coils, Syev above.
enum class EspiritCudaSolver { Auto, Jacobi, Syev };
constexpr int k_espirit_jacobi_max_coils = 32;

// Device-side times (CUDA events) of one call.
struct EspiritCudaTiming {
  double calibrate_ms = 0;  // upload of the block, A, Gram, eigendecomposition, G on the small grid
  double maps_ms = 0;       // interpolation, batched eigenproblems, phase and crop, download
};

// espirit_from_calibration on the device: the maps of the block [coil][cy][cx] on an nx x ny grid. InputError
// (one line) for what espirit_from_calibration refuses and for Jacobi with more than 32 coils.
EspiritMaps espirit_from_calibration_cuda(const EspiritBlock& block, int nx, int ny, const EspiritParams& p,
                                          EspiritCudaSolver solver = EspiritCudaSolver::Auto,
                                          EspiritCudaTiming* timing = nullptr);

// espirit_maps on the device: the same input checks, calibration block and crop to the image.
EspiritMaps espirit_maps_cuda(const RawData& raw, const EspiritParams& p, EspiritCudaTiming* timing = nullptr);

}  // namespace mrwb::gpu
