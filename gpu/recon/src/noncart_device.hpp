#pragma once
// Device-pointer building blocks shared by the non-Cartesian .cu files (internal to gpu/).
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb_gpu/recon/noncart_cuda.hpp"

namespace mrwb::gpu::nc {

// out[v - first] += sum_m mu_m e^{i 2 pi k_m . x_v} for the voxels first <= v < first + voxels of an
// n_out^dims grid (a tile of it, or all with first = 0), x = (i - origin) * spacing. k: [M][dims]
// cycles/FOV on the device; mu: [M]. The rotate variant needs tiles of whole rows.
void exact_sum_sfu(int dims, int n_out, float spacing, int origin, std::size_t first, std::size_t voxels, const float* k,
                   const float2* mu, std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st);
void exact_sum_rotate(int dims, int n_out, float spacing, int origin, std::size_t first, std::size_t voxels, const float* k,
                      const float2* mu, std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st);
void exact_sum(int dims, int n_out, float spacing, int origin, std::size_t first, std::size_t voxels, const float* k,
               const float2* mu, std::size_t M, const FhdConfig& c, float2* out, cudaStream_t st);
// The exact sum over `voxels` (rows of `row`) of an n_out grid split by whole rows over c.devices GPUs
// (device_parts.hpp), each part uploading the host samples k and mu = scale·d (d null: mu = scale) and tiling
// its voxels; the result on the host. seconds: the kernels' event time with one part, the wall time of the
// split with several.
std::vector<noncart::cdouble> split_exact_sum(int dims, int n_out, float spacing, int origin, std::size_t voxels,
                                              int row, const float* k, const noncart::cfloat* d, float scale,
                                              std::size_t M, const FhdConfig& c, double* seconds);
// Q's Hermitian completion on the 2n grid (same rule as core's exact_q).
void mirror_q(int dims, int n, float2* q, cudaStream_t st);
// mu_m = scale * d_m (F^H d: scale = phi) or mu_m = (scale, 0) when d is null (Q: scale = phi^2).
void make_mu(const float2* d, std::size_t M, float scale, float2* mu, cudaStream_t st);

// Kaiser-Bessel adjoint gridding onto the image of an n_img grid: out = out_scale * sum_m w_m d_m
// e^{i 2 pi (k_mult k_m) . x} (approximately), n_img^dims values. w may be null.
void gridding_adjoint(int dims, int n_img, float k_mult, const float* k, const float2* d, const float* w,
                      std::size_t M, const noncart::GriddingParams& p, float out_scale, float2* out, cudaStream_t st);
std::size_t gridding_bytes(int dims, int n_img, double oversampling);
// gridding_adjoint's image split by samples over `devices` GPUs (device_parts.hpp: 0 all): each part grids
// its contiguous share of the samples (d null: unit data, as Q) onto a whole image; the parts' images are
// added on the host in part order. The result on the host.
std::vector<noncart::cdouble> split_gridding(int dims, int n_img, float k_mult, const float* k,
                                             const noncart::cfloat* d, const std::vector<float>& w, std::size_t M,
                                             const noncart::GriddingParams& p, float out_scale, int devices);

}  // namespace mrwb::gpu::nc
