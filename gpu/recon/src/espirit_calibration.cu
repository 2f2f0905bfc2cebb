// ESPIRiT calibration on the device (twin of core/recon/src/espirit_calibration.cpp, complex double): the
// calibration matrix A (Uecker et al. 2014 eq. 3), its signal space from the eigendecomposition of the smaller
// Gram matrix (ZHERK, ZHEEVD; eq. 9, BART ecalib -t), G on the 2·kernel_size grid (eq. 16), and the coils'
// first principal component.
#include <algorithm>
#include <cmath>
#include <string>

#include "espirit_cuda_impl.hpp"
#include "grappa_cuda_impl.hpp"
#include "mrwb/base/errors.hpp"

namespace mrwb::gpu::espirit {
namespace {

constexpr int k_threads = 256;
constexpr double k_two_pi = 6.283185307179586;

int blocks_for(std::size_t n) { return static_cast<int>(std::min<std::size_t>((n + k_threads - 1) / k_threads, 65535)); }

// A (rows x cols, column-major): row y·rx + x, column (coil, py, px), px fastest.
__global__ void calibration_matrix(const cuComplex* __restrict__ calib, int cx, int cy, int k, int coils,
                                   cuDoubleComplex* __restrict__ A) {
  const int rx = cx - k + 1;
  const std::size_t rows = static_cast<std::size_t>(rx) * (cy - k + 1), total = rows * k * k * coils;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t row = i % rows, col = i / rows;
    const int c = static_cast<int>(col / (k * k)), p = static_cast<int>(col % (k * k)), y = static_cast<int>(row / rx),
              x = static_cast<int>(row % rx);
    const cuComplex v = calib[(static_cast<std::size_t>(c) * cy + y + p / k) * cx + x + p % k];
    A[i] = make_cuDoubleComplex(v.x, v.y);
  }
}

// The coils' samples as Y (coils x plane, column-major) in double.
__global__ void coil_samples(const cuComplex* __restrict__ calib, int coils, std::size_t plane,
                             cuDoubleComplex* __restrict__ Y) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < plane * coils;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t c = i % coils, s = i / coils;
    const cuComplex v = calib[c * plane + s];
    Y[i] = make_cuDoubleComplex(v.x, v.y);
  }
}

// Column j of V scaled by scale[j] (1 / sigma_j, or 1) and conjugated: A's rows lie in the span of the
// conjugated right singular vectors (A = U S V^H), those are the kernels.
__global__ void scale_conjugate(cuDoubleComplex* __restrict__ V, std::size_t rows, int cols, const double* __restrict__ scale) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < rows * cols;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const double s = scale[i / rows];
    V[i] = make_cuDoubleComplex(V[i].x * s, -V[i].y * s);
  }
}

// E(j, p) = e^{+2 pi i (py·u_jy + px·u_jx)}, S² x k² column-major: the kernels' inverse DFT on the small grid.
__global__ void exponentials(int S, int k, cuDoubleComplex* __restrict__ E) {
  const int n = S * S * k * k;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int j = i % (S * S), p = i / (S * S), jy = j / S, jx = j % S, py = p / k, px = p % k;
    const double phase = k_two_pi * (py * (jy - S / 2) + px * (jx - S / 2)) / S;
    double s, c;
    sincos(phase, &s, &c);
    E[i] = make_cuDoubleComplex(c, s);
  }
}

__global__ void to_float(const cuDoubleComplex* __restrict__ in, cuComplex* __restrict__ out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = make_cuComplex(static_cast<float>(in[i].x), static_cast<float>(in[i].y));
}

// Eigendecomposition of the Hermitian n x n matrix H (lower triangle) in place: ascending eigenvalues.
std::vector<double> heevd(cusolverDnHandle_t solver, DeviceBuffer<cuDoubleComplex>& H, int n) {
  DeviceBuffer<double> w(n);
  DeviceBuffer<int> info(1);
  int lwork = 0;
  cusolver_check(cusolverDnZheevd_bufferSize(solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, H.get(), n,
                                             w.get(), &lwork),
                 "zheevd_bufferSize");
  DeviceBuffer<cuDoubleComplex> work(std::max(1, lwork));
  cusolver_check(cusolverDnZheevd(solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, H.get(), n, w.get(),
                                  work.get(), lwork, info.get()),
                 "zheevd");
  int status = 0;
  info.download(&status);
  if (status != 0) throw std::runtime_error("cuSOLVER zheevd: info " + std::to_string(status));
  std::vector<double> lambda(n);
  w.download(lambda.data());
  return lambda;
}

// The top eigenvector of the coils' covariance Y Y^H, its largest entry made real and positive.
std::vector<std::complex<float>> principal_component(cublasHandle_t blas, cusolverDnHandle_t solver,
                                                     const DeviceBuffer<cuComplex>& calib, int coils, std::size_t plane) {
  DeviceBuffer<cuDoubleComplex> Y(plane * coils), cov(static_cast<std::size_t>(coils) * coils);
  coil_samples<<<blocks_for(plane * coils), k_threads>>>(calib.get(), coils, plane, Y.get());
  cuda_check(cudaGetLastError(), "coil_samples");
  const double one = 1, zero = 0;
  cublas_check(cublasZherk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, coils, static_cast<int>(plane), &one, Y.get(),
                           coils, &zero, cov.get(), coils),
               "zherk (coils)");
  heevd(solver, cov, coils);
  std::vector<std::complex<double>> u(coils);
  cuda_check(cudaMemcpy(u.data(), cov.get() + static_cast<std::size_t>(coils - 1) * coils,
                        coils * sizeof(cuDoubleComplex), cudaMemcpyDeviceToHost),
             "download principal component");
  int big = 0;
  for (int c = 1; c < coils; ++c)
    if (std::abs(u[c]) > std::abs(u[big])) big = c;
  const std::complex<double> rot = std::conj(u[big]) / std::abs(u[big]);
  std::vector<std::complex<float>> out(coils);
  for (int c = 0; c < coils; ++c) out[c] = std::complex<float>(u[c] * rot);
  return out;
}

}  // namespace

DeviceSmallGrid calibrate(cublasHandle_t blas, cusolverDnHandle_t solver, const EspiritBlock& b, const EspiritParams& p) {
  const int k = p.kernel_size, C = b.coils, kk = k * k;
  const int rows = (b.cx - k + 1) * (b.cy - k + 1), cols = kk * C;
  DeviceBuffer<cuComplex> calib(b.data.size());
  calib.upload(reinterpret_cast<const cuComplex*>(b.data.data()));
  DeviceBuffer<cuDoubleComplex> A(static_cast<std::size_t>(rows) * cols);
  calibration_matrix<<<blocks_for(A.size()), k_threads>>>(calib.get(), b.cx, b.cy, k, C, A.get());
  cuda_check(cudaGetLastError(), "calibration_matrix");

  // The smaller Gram matrix: A A^H (rows < cols, as for 24², 6², 32 coils: 361² instead of 1152²) or A^H A.
  const bool by_rows = rows < cols;
  const int n = by_rows ? rows : cols;
  DeviceBuffer<cuDoubleComplex> gram(static_cast<std::size_t>(n) * n);
  const double one = 1, zero = 0;
  cublas_check(cublasZherk(blas, CUBLAS_FILL_MODE_LOWER, by_rows ? CUBLAS_OP_N : CUBLAS_OP_C, n, by_rows ? cols : rows,
                           &one, A.get(), rows, &zero, gram.get(), n),
               "zherk");
  const std::vector<double> lambda = heevd(solver, gram, n);  // ascending: sigma² of A
  const double top = lambda[n - 1];
  if (!(top > 0)) throw InputError("espirit: the calibration region holds no signal (allowed: acquired k-space data)");
  int kept = 0;
  while (kept < n && lambda[n - 1 - kept] / top > p.svd_threshold) ++kept;

  // V (cols x kept): the top `kept` right singular vectors (their order does not change G), conjugated.
  DeviceBuffer<cuDoubleComplex> V(static_cast<std::size_t>(cols) * kept);
  std::vector<double> scale(kept, 1.0);
  const cuDoubleComplex* top_vectors = gram.get() + static_cast<std::size_t>(n - kept) * n;
  if (by_rows) {  // v = A^H u / sigma
    const cuDoubleComplex a = make_cuDoubleComplex(1, 0), z = make_cuDoubleComplex(0, 0);
    cublas_check(cublasZgemm(blas, CUBLAS_OP_C, CUBLAS_OP_N, cols, kept, rows, &a, A.get(), rows, top_vectors, n, &z,
                             V.get(), cols),
                 "zgemm (A^H U)");
    for (int i = 0; i < kept; ++i) scale[i] = 1 / std::sqrt(lambda[n - kept + i]);
  } else {
    cuda_check(cudaMemcpy(V.get(), top_vectors, V.size() * sizeof(cuDoubleComplex), cudaMemcpyDeviceToDevice), "copy V");
  }
  DeviceBuffer<double> dscale(kept);
  dscale.upload(scale.data());
  scale_conjugate<<<blocks_for(V.size()), k_threads>>>(V.get(), cols, kept, dscale.get());
  cuda_check(cudaGetLastError(), "scale_conjugate");

  DeviceSmallGrid g;
  g.S = 2 * k;
  g.coils = C;
  g.kernel_size = k;
  g.kernels = kept;
  const int S = g.S, SS = S * S;
  DeviceBuffer<cuDoubleComplex> E(static_cast<std::size_t>(SS) * kk);
  exponentials<<<blocks_for(E.size()), k_threads>>>(S, k, E.get());
  cuda_check(cudaGetLastError(), "exponentials");
  // V as a k² x (C·kept) matrix Q: Z = Q^T E^T holds in column j the C x kept matrix M_j of v_n(u_j).
  DeviceBuffer<cuDoubleComplex> Z(static_cast<std::size_t>(C) * kept * SS), G(static_cast<std::size_t>(C) * C * SS);
  const cuDoubleComplex a1 = make_cuDoubleComplex(1, 0), z0 = make_cuDoubleComplex(0, 0);
  cublas_check(cublasZgemm(blas, CUBLAS_OP_T, CUBLAS_OP_T, C * kept, SS, kk, &a1, V.get(), kk, E.get(), SS, &z0, Z.get(),
                           C * kept),
               "zgemm (Q^T E^T)");
  // G(u_j) = M_j M_j^H / k² (every sample sits in k² patches), all S² at once.
  const cuDoubleComplex inv = make_cuDoubleComplex(1.0 / kk, 0);
  cublas_check(cublasZgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_C, C, C, kept, &inv, Z.get(), C,
                                         static_cast<long long>(C) * kept, Z.get(), C, static_cast<long long>(C) * kept,
                                         &z0, G.get(), C, static_cast<long long>(C) * C, SS),
               "zgemm batched (M M^H)");
  g.gram = std::make_unique<DeviceBuffer<cuComplex>>(G.size());
  to_float<<<blocks_for(G.size()), k_threads>>>(G.get(), g.gram->get(), G.size());
  cuda_check(cudaGetLastError(), "to_float");
  g.principal = principal_component(blas, solver, calib, C, static_cast<std::size_t>(b.cx) * b.cy);
  return g;
}

}  // namespace mrwb::gpu::espirit
