#pragma once
// CUDA twins of core's non-Cartesian reconstruction (noncart_*.hpp, gridding.hpp): exact F^H d and Q
// (Stone et al. 2008), Kaiser-Bessel gridding, and CG with cuFFT / cuBLAS entirely on the device.
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "mrwb/base/image_volume.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb::gpu {

// Exact F^H d / Q kernel choice.
//  "sfu": the paper's kernel: one thread per voxel, k-space tiles of {kx, ky, kz, rMu, iMu} structs in
//         __constant__ memory, voxel data in registers, __sincosf on the special-function units.
//  "rotate": one thread per `kRotateRun` consecutive voxels along x; one __sincosf per sample and thread,
//         the neighbours by complex rotation with e^{i 2 pi kx dx} held in the tile (separable phase
//         factor), so the SFU is no longer the bound (FP32 FMA is).
struct FhdConfig {
  std::string variant = "sfu";  // sfu | rotate
  // Defaults: the best of the H100 sweep (docs/benchmarks.md, "Non-Cartesian").
  int threads_per_block = 512;
  int tile = 2048;              // samples per constant-memory tile (<= max_tile(variant))
  int unroll = 16;              // 1, 2, 4, 8, 16
  // Voxel tiling (Stone et al. 2008): fhd_on_device / q_on_device compute this many voxels per device pass (rounded
  // down to whole rows), downloading each tile, so the device holds the samples and one tile only.
  // 0: automatic (all voxels up to kAutoTileVoxels, fewer when free GPU memory is short).
  std::size_t voxel_tile = 0;
  // GPUs F^H d and Q are split over: the exact sums by voxels (Stone et al. 2008 ran F^H d on four), each
  // GPU with every sample; gridding by samples, the images added. 1 (default), n, or 0 for every visible GPU
  // (device_parts.hpp).
  int devices = 1;
};
int max_tile(const std::string& variant);
constexpr int kRotateRun = 4;

// Largest automatic voxel tile: 2^24 voxels (128 MiB of float2), e.g. all of 256^3.
constexpr std::size_t kAutoTileVoxels = std::size_t{1} << 24;
struct VoxelTiling {
  std::size_t tile_voxels = 0;   // per pass, a multiple of the row length
  std::size_t tiles = 0;
  std::size_t device_bytes = 0;  // samples and one tile
};
// Plans the tiles of `voxels` (rows of `row` voxels) for M samples of `dims` dimensions, `with_data`
// (F^H d) or not (Q), in free_bytes of device memory; requested_tile 0: automatic. Throws InputError
// (one line, bytes needed and free) when not even one row fits beside the samples.
VoxelTiling plan_voxel_tiles(std::size_t voxels, int row, std::size_t M, int dims, bool with_data, std::size_t free_bytes,
                             std::size_t requested_tile);

struct Timing {
  double fhd_s = 0, q_s = 0, solver_s = 0, total_s = 0;
  int iterations = 0;
  double relative_residual = 0;
};

// One-coil exact F^H d and Q (Q on the 2n grid, same layout and Hermitian mirroring as core's exact_q),
// in voxel tiles (FhdConfig::voxel_tile, plan_voxel_tiles); InputError when the device lacks the memory.
// seconds: device time of the kernels (events, summed over tiles), if not null.
std::vector<noncart::cdouble> fhd_on_device(const noncart::Grid& g, const float* k, const noncart::cfloat* d,
                                            std::size_t M, const FhdConfig& c, double* seconds = nullptr);
std::vector<noncart::cdouble> q_on_device(const noncart::Grid& g, const float* k, std::size_t M, const FhdConfig& c,
                                          double* seconds = nullptr);
// Gridding twins: adjoint (w may be empty), gridded F^H d and Q; with devices != 1 the samples are split over
// the GPUs and their images added (0: every visible GPU).
std::vector<noncart::cdouble> gridding_adjoint_on_device(const noncart::Grid& g, const float* k,
                                                         const noncart::cfloat* d, const std::vector<float>& w,
                                                         std::size_t M, const noncart::GriddingParams& p,
                                                         int devices = 1);
std::vector<noncart::cdouble> gridded_q_on_device(const noncart::Grid& g, const float* k, std::size_t M,
                                                  const noncart::GriddingParams& p, int devices = 1);

// The whole CG reconstruction on the device: F^H d (exact or gridded), Q, then (P)CG with the Toeplitz
// normal operator; no host round trip per iteration (tolerance checks read the residual every 10).
// sens: [coil][n^D] or empty for one coil. Throws InputError when the device lacks the memory (bytes).
std::vector<noncart::cdouble> cg_on_device(const noncart::Grid& g, const noncart::Samples& s,
                                           const NoncartParams& p, const FhdConfig& c,
                                           const std::vector<noncart::cfloat>& sens, Timing* timing = nullptr,
                                           const ProgressFn& progress = {}, const CancelToken& cancel = {});
// Bytes of device memory cg_on_device needs.
std::size_t cg_device_bytes(const noncart::Grid& g, std::size_t M, int coils, const NoncartParams& p);

std::unique_ptr<Reconstructor> make_cg_reconstructor_cuda();
// 3-D volume of `mrwb recon` on the device (core's reconstruct_volume_cpu twin): cg_on_device, or gridding
// with Pipe-Menon weights and root-sum-of-squares over coils. Registered as the Cuda volume backend.
ImageVolume reconstruct_volume_cuda(const RawData& raw, ReconMethod method, const NoncartParams& p,
                                    const ProgressFn& progress, const CancelToken& cancel);
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cuda();

}  // namespace mrwb::gpu
