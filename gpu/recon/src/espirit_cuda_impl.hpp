#pragma once
// The two device stages of ESPIRiT (espirit_cuda.hpp), shared by espirit_calibration.cu and espirit_maps.cu.
#include <cublas_v2.h>
#include <cuComplex.h>
#include <cusolverDn.h>

#include <complex>
#include <memory>
#include <vector>

#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/recon/espirit_cuda.hpp"

namespace mrwb::gpu::espirit {

// G of Uecker et al. 2014 eq. 16 on the S x S grid (S = 2·kernel_size), as core's espirit::SmallGrid.
struct DeviceSmallGrid {
  int S = 0, coils = 0, kernel_size = 0, kernels = 0;
  std::unique_ptr<DeviceBuffer<cuComplex>> gram;  // [jy][jx] of C x C column-major matrices, float
  std::vector<std::complex<float>> principal;     // C: the phase reference (host)
};

// The calibration block [coil][cy][cx] to G on the small grid.
DeviceSmallGrid calibrate(cublasHandle_t blas, cusolverDnHandle_t solver, const EspiritBlock& block,
                          const EspiritParams& p);

// G interpolated onto the nx x ny grid, top eigenpair per voxel by the batched solver `kind` (Jacobi or Syev),
// phase reference and crop.
EspiritMaps eigenmaps(cublasHandle_t blas, cusolverDnHandle_t solver, const DeviceSmallGrid& g, int nx, int ny,
                      double crop, EspiritCudaSolver kind);

}  // namespace mrwb::gpu::espirit
