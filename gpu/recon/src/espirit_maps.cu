// ESPIRiT's second stage on the device (twin of core/recon/src/espirit_eigenmaps.cpp; Uecker et al. 2014
// eq. 17) and espirit_from_calibration_cuda: G interpolated from the small grid to the image grid by two real
// SGEMMs, the top eigenpair of every voxel by a batched cuSOLVER eigensolver (CHEEVJ up to 32 coils, XSYEV
// batched beyond), phase reference and crop.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "espirit_cuda_impl.hpp"
#include "grappa_cuda_impl.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/recon/fft_layout.hpp"

namespace mrwb::gpu {
namespace espirit {
namespace {

constexpr int k_threads = 128;
// Voxel matrices held at once (C² complex floats each): 256 MiB, a 256 x 128 chunk at 32 coils.
constexpr std::size_t k_chunk_bytes = std::size_t{256} << 20;

// T(i, j) = (1/S)·sum_{|d| < K} e^{2 pi i d (u_i − u_j)}, column-major n x S: the samples of G on the small grid
// to its value at u_i = (i − n/2)/n (the CPU's interpolation, espirit_eigenmaps.cpp).
std::vector<float> interpolation(int n, int S, int K) {
  std::vector<float> T(static_cast<std::size_t>(n) * S);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < S; ++j) {
      const double du = static_cast<double>(i - n / 2) / n - static_cast<double>(j - S / 2) / S;
      double sum = 1;
      for (int d = 1; d < K; ++d) sum += 2 * std::cos(2 * std::numbers::pi * d * du);
      T[static_cast<std::size_t>(j) * n + i] = static_cast<float>(sum / S);
    }
  return T;
}

// Voxel i of the chunk: eigenvalue W[i][C−1] and eigenvector (column C−1 of its matrix), its projection on the
// reference made real and positive; zero where the eigenvalue is <= crop (BART's crop).
__global__ void top_pairs(const cuComplex* __restrict__ V, const float* __restrict__ W, int C, int voxels,
                          std::size_t first, std::size_t plane, const cuComplex* __restrict__ ref, float crop,
                          cuComplex* __restrict__ maps, float* __restrict__ eigenvalue) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= voxels) return;
  const float lambda = W[static_cast<std::size_t>(i) * C + C - 1];
  eigenvalue[first + i] = lambda;
  if (!(lambda > crop)) return;  // maps were zeroed
  const cuComplex* v = V + static_cast<std::size_t>(i) * C * C + static_cast<std::size_t>(C - 1) * C;
  cuComplex z = make_cuComplex(0, 0);
  for (int c = 0; c < C; ++c) z = cuCaddf(z, cuCmulf(cuConjf(ref[c]), v[c]));
  const float a = cuCabsf(z);
  const cuComplex rot = a > 0 ? make_cuComplex(z.x / a, -z.y / a) : make_cuComplex(1, 0);
  for (int c = 0; c < C; ++c) maps[c * plane + first + i] = cuCmulf(v[c], rot);
}

// The voxels' C x C matrices of one chunk to their eigenpairs in place (ascending eigenvalues in W, eigenvectors
// in the matrices' columns), by the chosen batched solver; its workspace sized once for the largest chunk.
class BatchedEigensolver {
 public:
  BatchedEigensolver(cusolverDnHandle_t solver, EspiritCudaSolver kind, int C, cuComplex* A, float* W, std::size_t chunk)
      : solver_(solver), jacobi_(kind == EspiritCudaSolver::Jacobi), C_(C), info_(chunk) {
    try {
      size_workspace(A, W, chunk);
    } catch (...) {
      release();  // the destructor does not run for a throwing constructor
      throw;
    }
  }
  ~BatchedEigensolver() { release(); }
  BatchedEigensolver(const BatchedEigensolver&) = delete;
  BatchedEigensolver& operator=(const BatchedEigensolver&) = delete;

  void solve(cuComplex* A, float* W, int voxels) {
    if (jacobi_)
      cusolver_check(cusolverDnCheevjBatched(solver_, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, C_, A, C_, W,
                                             reinterpret_cast<cuComplex*>(work_->get()),
                                             static_cast<int>(device_bytes_ / sizeof(cuComplex)), info_.get(),
                                             jacobi_params_, voxels),
                     "cheevjBatched");
    else
      cusolver_check(cusolverDnXsyevBatched(solver_, syev_params_, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, C_,
                                            CUDA_C_32F, A, C_, CUDA_R_32F, W, CUDA_C_32F, work_->get(), device_bytes_,
                                            host_work_.data(), host_bytes_, info_.get(), voxels),
                     "XsyevBatched");
  }

 private:
  void size_workspace(cuComplex* A, float* W, std::size_t chunk) {
    const int C = C_;
    if (jacobi_) {
      cusolver_check(cusolverDnCreateSyevjInfo(&jacobi_params_), "createSyevjInfo");
      int lwork = 0;
      cusolver_check(cusolverDnCheevjBatched_bufferSize(solver_, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, C, A, C,
                                                        W, &lwork, jacobi_params_, static_cast<int>(chunk)),
                     "cheevjBatched_bufferSize");
      device_bytes_ = static_cast<std::size_t>(std::max(1, lwork)) * sizeof(cuComplex);
    } else {
      cusolver_check(cusolverDnCreateParams(&syev_params_), "createParams");
      cusolver_check(cusolverDnXsyevBatched_bufferSize(solver_, syev_params_, CUSOLVER_EIG_MODE_VECTOR,
                                                       CUBLAS_FILL_MODE_LOWER, C, CUDA_C_32F, A, C, CUDA_R_32F, W,
                                                       CUDA_C_32F, &device_bytes_, &host_bytes_,
                                                       static_cast<int64_t>(chunk)),
                     "XsyevBatched_bufferSize");
      host_work_.resize(std::max<std::size_t>(1, host_bytes_));
    }
    work_ = std::make_unique<DeviceBuffer<char>>(std::max<std::size_t>(1, device_bytes_));
  }
  void release() {
    if (jacobi_params_) cusolverDnDestroySyevjInfo(jacobi_params_);
    if (syev_params_) cusolverDnDestroyParams(syev_params_);
    jacobi_params_ = {};
    syev_params_ = {};
  }

  cusolverDnHandle_t solver_;
  bool jacobi_;
  int C_;
  DeviceBuffer<int> info_;
  syevjInfo_t jacobi_params_{};
  cusolverDnParams_t syev_params_{};
  std::size_t device_bytes_ = 0, host_bytes_ = 0;
  std::unique_ptr<DeviceBuffer<char>> work_;
  std::vector<char> host_work_;
};

}  // namespace

EspiritMaps eigenmaps(cublasHandle_t blas, cusolverDnHandle_t solver, const DeviceSmallGrid& g, int nx, int ny,
                      double crop, EspiritCudaSolver kind) {
  const int C = g.coils, S = g.S;
  const std::size_t cc = static_cast<std::size_t>(C) * C, plane = static_cast<std::size_t>(nx) * ny;
  // Along x: H[jy][x] = sum_jx Tx(x, jx) G[jy][jx] per matrix entry; complex entries as pairs of floats, so one
  // real SGEMM per jy (2C² x S times S x nx), batched over jy.
  const std::vector<float> tx = interpolation(nx, S, g.kernel_size), ty = interpolation(ny, S, g.kernel_size);
  DeviceBuffer<float> Tx(tx.size()), Ty(ty.size());
  Tx.upload(tx.data());
  Ty.upload(ty.data());
  DeviceBuffer<cuComplex> H(cc * nx * S);
  const float one = 1, zero = 0;
  const int m = static_cast<int>(2 * cc);
  cublas_check(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, m, nx, S, &one,
                                         reinterpret_cast<const float*>(g.gram->get()), m, static_cast<long long>(m) * S,
                                         Tx.get(), nx, 0, &zero, reinterpret_cast<float*>(H.get()), m,
                                         static_cast<long long>(m) * nx, S),
               "sgemm (x interpolation)");

  // A chunk's matrices stay within k_chunk_bytes, far inside XSYEV batched's n·lda·batch <= INT32_MAX.
  const int rows = static_cast<int>(std::clamp<std::size_t>(k_chunk_bytes / (cc * sizeof(cuComplex) * nx), 1, ny));
  const std::size_t chunk = static_cast<std::size_t>(rows) * nx;
  DeviceBuffer<cuComplex> Gv(chunk * cc), maps(plane * C), ref(C);
  DeviceBuffer<float> W(chunk * C), eig(plane);
  ref.upload(reinterpret_cast<const cuComplex*>(g.principal.data()));
  cuda_check(cudaMemset(maps.get(), 0, maps.size() * sizeof(cuComplex)), "memset maps");
  BatchedEigensolver eigensolver(solver, kind, C, Gv.get(), W.get(), chunk);
  const int n_x = static_cast<int>(cc) * 2 * nx;  // the real rows of H per jy: (2C², x) flattened
  for (int y0 = 0; y0 < ny; y0 += rows) {
    const int nr = std::min(rows, ny - y0), voxels = nr * nx;
    // Along y: G(y, x) = sum_jy Ty(y, jy) H[jy][x], one SGEMM (2C²·nx x S times S x nr).
    cublas_check(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, n_x, nr, S, &one, reinterpret_cast<const float*>(H.get()),
                             n_x, Ty.get() + y0, ny, &zero, reinterpret_cast<float*>(Gv.get()), n_x),
                 "sgemm (y interpolation)");
    eigensolver.solve(Gv.get(), W.get(), voxels);
    top_pairs<<<(voxels + k_threads - 1) / k_threads, k_threads>>>(Gv.get(), W.get(), C, voxels,
                                                                     static_cast<std::size_t>(y0) * nx, plane, ref.get(),
                                                                     static_cast<float>(crop), maps.get(), eig.get());
    cuda_check(cudaGetLastError(), "top_pairs");
  }
  EspiritMaps out;
  out.coils = C;
  out.nx = nx;
  out.ny = ny;
  out.kernels = g.kernels;
  out.maps.resize(plane * C);
  out.eigenvalue.resize(plane);
  maps.download(reinterpret_cast<cuComplex*>(out.maps.data()));
  eig.download(out.eigenvalue.data());
  return out;
}

}  // namespace espirit

EspiritMaps espirit_from_calibration_cuda(const EspiritBlock& b, int nx, int ny, const EspiritParams& p,
                                          EspiritCudaSolver solver_kind, EspiritCudaTiming* timing) {
  check_espirit_calibration(b, nx, ny, p);  // the CPU's refusals first
  if (solver_kind == EspiritCudaSolver::Auto)
    solver_kind = b.coils <= k_espirit_jacobi_max_coils ? EspiritCudaSolver::Jacobi : EspiritCudaSolver::Syev;
  if (solver_kind == EspiritCudaSolver::Jacobi && b.coils > k_espirit_jacobi_max_coils)
    throw InputError("espirit --backend cuda: " + std::to_string(b.coils) + " coils with the Jacobi eigensolver (allowed: 1 .. " +
                     std::to_string(k_espirit_jacobi_max_coils) + ", cusolverDnCheevjBatched; the syev solver for more)");
  cublasHandle_t blas{};
  cusolverDnHandle_t solver{};
  cublas_check(cublasCreate(&blas), "create");
  cusolverDnCreate(&solver);
  struct Handles {
    cublasHandle_t b;
    cusolverDnHandle_t s;
    ~Handles() {
      if (s) cusolverDnDestroy(s);
      cublasDestroy(b);
    }
  } handles{blas, solver};
  if (!solver) throw std::runtime_error("cuSOLVER create failed");
  EventTimer t;
  t.start();
  const espirit::DeviceSmallGrid g = espirit::calibrate(blas, solver, b, p);
  const double calibrate_ms = t.stop_ms();
  t.start();
  EspiritMaps m = espirit::eigenmaps(blas, solver, g, nx, ny, p.crop, solver_kind);
  const double maps_ms = t.stop_ms();
  if (timing) *timing = {calibrate_ms, maps_ms};
  return m;
}

EspiritMaps espirit_maps_cuda(const RawData& raw, const EspiritParams& p, EspiritCudaTiming* timing) {
  const EspiritBlock b = espirit_calibration_block(raw, p);  // check_espirit_input's refusals first
  const FftLayout l = fft_layout(raw);
  return espirit_crop_to_image(raw, espirit_from_calibration_cuda(b, l.Nx, l.Ny, p, EspiritCudaSolver::Auto, timing));
}

}  // namespace mrwb::gpu
