// GRAPPA autocalibration on the device (twin of core/recon/src/grappa_calibration.cpp): A and B built from the
// ACS blocks, normalised and clipped on the device; [U; V] = [B; A]·A^H in one strided-batched ZGEMM;
// lambda on the diagonal; Cholesky (cuSOLVER) and W = U·L^-H·L^-1 (cuBLAS trsm). No host inversion.
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/sort.h>

#include <cmath>

#include "grappa_cuda_impl.hpp"

namespace mrwb::gpu {
namespace {

constexpr int k_threads = 128;

// One block per (equation, system): threads over the rows of the column; sums |a|^2 and |b|^2.
__global__ void build_system(GrappaGeometry g, const cuComplex* __restrict__ acs, cuDoubleComplex* __restrict__ M,
                             double* __restrict__ pcol) {
  const int e = blockIdx.x, sys = blockIdx.y, seg = sys % g.nseg, slice = sys / g.nseg;
  const int nr = g.rows(), nb = g.rows_b(), neq = g.equations();
  int i, x0;
  const bool valid = grappa_equation(g, seg, e, i, x0);
  const cuComplex* a = acs + static_cast<size_t>(slice) * g.ncoils * g.acs_lines * g.nx;
  cuDoubleComplex* col = M + (static_cast<size_t>(sys) * neq + e) * nr;
  double pa = 0, pb = 0;
  for (int r = threadIdx.x; r < nr; r += blockDim.x) {
    cuDoubleComplex v = make_cuDoubleComplex(0, 0);
    if (valid) {
      int c, dy, dx;
      grappa_row_source(g, r, c, dy, dx);
      const cuComplex s = a[(static_cast<size_t>(c) * g.acs_lines + i + dy) * g.nx + x0 + dx];
      v = make_cuDoubleComplex(s.x, s.y);
      const double p = v.x * v.x + v.y * v.y;
      (r < nb ? pb : pa) += p;
    }
    col[r] = v;
  }
  __shared__ double sa[k_threads], sb[k_threads];
  sa[threadIdx.x] = pa;
  sb[threadIdx.x] = pb;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) {
      sa[threadIdx.x] += sa[threadIdx.x + o];
      sb[threadIdx.x] += sb[threadIdx.x + o];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    pcol[static_cast<size_t>(sys) * neq + e] = g.basic ? sb[0] : sa[0] * nb + sb[0] * g.rows_a();
}

// One block per (PE position, system): Psi = p^(-eta/2), p the summed power of the position.
__global__ void position_scale(GrappaGeometry g, const double* __restrict__ pcol, double eta, double* __restrict__ psi) {
  const int i = blockIdx.x, sys = blockIdx.y;
  const double* p = pcol + static_cast<size_t>(sys) * g.equations() + static_cast<size_t>(i) * g.shifts_ro;
  double s = 0;
  for (int c = threadIdx.x; c < g.shifts_ro; c += blockDim.x) s += p[c];
  __shared__ double sh[k_threads];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) psi[static_cast<size_t>(sys) * g.shifts_pe + i] = sh[0] > 0 ? pow(sh[0], -0.5 * eta) : 1.0;
}

// Column e scaled by its position's Psi, or zeroed when clipped (power >= the discard-th largest).
__global__ void scale_columns(GrappaGeometry g, cuDoubleComplex* __restrict__ M, const double* __restrict__ pcol,
                              const double* __restrict__ psi, const double* __restrict__ sorted, int discard) {
  const int e = blockIdx.x, sys = blockIdx.y, nr = g.rows(), neq = g.equations();
  const double pc = pcol[static_cast<size_t>(sys) * neq + e];
  double s = psi[static_cast<size_t>(sys) * g.shifts_pe + e / g.shifts_ro];
  if (discard > 0 && pc >= sorted[static_cast<size_t>(sys) * neq + discard - 1]) s = 0.0;
  cuDoubleComplex* col = M + (static_cast<size_t>(sys) * neq + e) * nr;
  for (int r = threadIdx.x; r < nr; r += blockDim.x) col[r] = make_cuDoubleComplex(col[r].x * s, col[r].y * s);
}

// lambda = chi·trace(V)/rows_a added to V's diagonal; V sits below U in C (leading dimension nr).
__global__ void regularise(GrappaGeometry g, cuDoubleComplex* __restrict__ C, double chi, double* __restrict__ lambda) {
  const int sys = blockIdx.x, nr = g.rows(), nb = g.rows_b(), na = g.rows_a();
  cuDoubleComplex* c = C + static_cast<size_t>(sys) * nr * na;
  double t = 0;
  for (int d = threadIdx.x; d < na; d += blockDim.x) t += c[nb + d + static_cast<size_t>(d) * nr].x;
  __shared__ double sh[k_threads];
  sh[threadIdx.x] = t;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
    __syncthreads();
  }
  const double lam = chi * sh[0] / na;
  for (int d = threadIdx.x; d < na; d += blockDim.x) c[nb + d + static_cast<size_t>(d) * nr].x += lam;
  if (threadIdx.x == 0) lambda[sys] = lam;
}

}  // namespace

GrappaCuda::GrappaCuda(const GrappaGeometry& g, const GrappaParams& params, int nslices) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.g = g;
  s.params = params;
  s.nslices = nslices;
  s.nsys = nslices * g.nseg;
  const std::size_t nr = g.rows(), na = g.rows_a(), neq = g.equations();
  cublas_check(cublasCreate(&s.blas), "create");
  cusolver_check(cusolverDnCreate(&s.solver), "create");
  s.acs = std::make_unique<DeviceBuffer<cuComplex>>(static_cast<std::size_t>(nslices) * g.ncoils * g.acs_lines * g.nx);
  s.M = std::make_unique<DeviceBuffer<cuDoubleComplex>>(s.nsys * nr * neq);
  s.C = std::make_unique<DeviceBuffer<cuDoubleComplex>>(s.nsys * nr * na);
  s.pcol = std::make_unique<DeviceBuffer<double>>(s.nsys * neq);
  s.sorted = std::make_unique<DeviceBuffer<double>>(s.nsys * neq);
  s.psi = std::make_unique<DeviceBuffer<double>>(static_cast<std::size_t>(s.nsys) * g.shifts_pe);
  s.lambda = std::make_unique<DeviceBuffer<double>>(s.nsys);
  s.info = std::make_unique<DeviceBuffer<int>>(s.nsys);
  std::vector<cuDoubleComplex*> pl(s.nsys), pu(s.nsys);
  for (int i = 0; i < s.nsys; ++i) {
    pu[i] = s.C->get() + i * nr * na;  // U (then W): rows 0 .. nb−1
    pl[i] = pu[i] + g.rows_b();        // V (then L): rows nb .. nr−1
  }
  s.ptr_L = std::make_unique<DeviceBuffer<cuDoubleComplex*>>(s.nsys);
  s.ptr_U = std::make_unique<DeviceBuffer<cuDoubleComplex*>>(s.nsys);
  s.ptr_L->upload(pl.data());
  s.ptr_U->upload(pu.data());
  if (s.nsys == 1) {
    cusolver_check(cusolverDnZpotrf_bufferSize(s.solver, CUBLAS_FILL_MODE_LOWER, g.rows_a(), pl[0], g.rows(), &s.lwork),
                   "potrf_bufferSize");
    s.work = std::make_unique<DeviceBuffer<cuDoubleComplex>>(std::max(1, s.lwork));
  }
}

GrappaCuda::~GrappaCuda() {
  if (impl_->fft) cufftDestroy(impl_->fft);
  if (impl_->solver) cusolverDnDestroy(impl_->solver);
  if (impl_->blas) cublasDestroy(impl_->blas);
}

const GrappaCudaTiming& GrappaCuda::timing() const { return impl_->timing; }

void GrappaCuda::upload_acs(int slice, const std::vector<std::complex<float>>& acs) {
  Impl& s = *impl_;
  const std::size_t n = static_cast<std::size_t>(s.g.ncoils) * s.g.acs_lines * s.g.nx;
  if (slice < 0 || slice >= s.nslices || acs.size() != n) throw InputError("grappa: ACS block of the wrong size or slice");
  EventTimer t;
  t.start();
  cuda_check(cudaMemcpy(s.acs->get() + slice * n, acs.data(), n * sizeof(cuComplex), cudaMemcpyHostToDevice), "upload ACS");
  s.timing.upload_ms = t.stop_ms();
}

void GrappaCuda::calibrate() {
  Impl& s = *impl_;
  const GrappaGeometry& g = s.g;
  const int nr = g.rows(), nb = g.rows_b(), na = g.rows_a(), neq = g.equations();
  EventTimer total, gemm;
  total.start();
  const dim3 grid_eq(neq, s.nsys);
  build_system<<<grid_eq, k_threads>>>(g, s.acs->get(), s.M->get(), s.pcol->get());
  position_scale<<<dim3(g.shifts_pe, s.nsys), k_threads>>>(g, s.pcol->get(), s.params.eta, s.psi->get());
  const int discard = g.basic ? 0 : static_cast<int>(s.params.clip * neq);
  if (discard > 0) {
    cuda_check(cudaMemcpy(s.sorted->get(), s.pcol->get(), sizeof(double) * neq * s.nsys, cudaMemcpyDeviceToDevice), "copy");
    for (int sys = 0; sys < s.nsys; ++sys) {
      thrust::device_ptr<double> p(s.sorted->get() + static_cast<std::size_t>(sys) * neq);
      thrust::sort(thrust::device, p, p + neq, thrust::greater<double>());
    }
  }
  scale_columns<<<grid_eq, k_threads>>>(g, s.M->get(), s.pcol->get(), s.psi->get(), s.sorted->get(), discard);
  cuda_check(cudaGetLastError(), "GRAPPA system kernels");
  // [U; V] = [B; A] · A^H for every system in one call.
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
  gemm.start();
  cublas_check(cublasZgemmStridedBatched(s.blas, CUBLAS_OP_N, CUBLAS_OP_C, nr, na, neq, &one, s.M->get(), nr,
                                         static_cast<long long>(nr) * neq, s.M->get() + nb, nr,
                                         static_cast<long long>(nr) * neq, &zero, s.C->get(), nr,
                                         static_cast<long long>(nr) * na, s.nsys),
               "ZGEMM [B;A]A^H");
  s.timing.calib_gemm_ms = gemm.stop_ms();
  s.timing.calib_gemm_gflop = 8.0 * nr * na * static_cast<double>(neq) * s.nsys * 1e-9;
  regularise<<<s.nsys, k_threads>>>(g, s.C->get(), s.params.lambda, s.lambda->get());
  cuda_check(cudaGetLastError(), "GRAPPA regularise");
  // V = L L^H (lower), then W V = U  <=>  (W L) L^H = U: two right-side triangular solves in place of U.
  if (s.nsys == 1) {
    cuDoubleComplex* V = s.C->get() + nb;
    cusolver_check(cusolverDnZpotrf(s.solver, CUBLAS_FILL_MODE_LOWER, na, V, nr, s.work->get(), s.lwork, s.info->get()),
                   "Zpotrf");
    cublas_check(cublasZtrsm(s.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_C, CUBLAS_DIAG_NON_UNIT, nb, na,
                             &one, V, nr, s.C->get(), nr),
                 "Ztrsm L^H");
    cublas_check(cublasZtrsm(s.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nb, na,
                             &one, V, nr, s.C->get(), nr),
                 "Ztrsm L");
  } else {
    cusolver_check(cusolverDnZpotrfBatched(s.solver, CUBLAS_FILL_MODE_LOWER, na, s.ptr_L->get(), nr, s.info->get(), s.nsys),
                   "ZpotrfBatched");
    cublas_check(cublasZtrsmBatched(s.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_C, CUBLAS_DIAG_NON_UNIT, nb,
                                    na, &one, s.ptr_L->get(), nr, s.ptr_U->get(), nr, s.nsys),
                 "ZtrsmBatched L^H");
    cublas_check(cublasZtrsmBatched(s.blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nb,
                                    na, &one, s.ptr_L->get(), nr, s.ptr_U->get(), nr, s.nsys),
                 "ZtrsmBatched L");
  }
  std::vector<int> info(s.nsys);
  cuda_check(cudaMemcpy(info.data(), s.info->get(), sizeof(int) * s.nsys, cudaMemcpyDeviceToHost), "potrf info");
  s.timing.calibrate_ms = total.stop_ms();
  for (int v : info)
    if (v != 0) throw std::runtime_error("grappa: calibration matrix not positive definite (raise --lambda)");
}

GrappaWeights GrappaCuda::weights(int slice) {
  Impl& s = *impl_;
  const GrappaGeometry& g = s.g;
  const int nr = g.rows(), nb = g.rows_b(), na = g.rows_a();
  GrappaWeights w;
  w.geo = g;
  w.w.resize(w.size_per_segment() * g.nseg);
  w.lambda.resize(g.nseg);
  std::vector<std::complex<double>> c(static_cast<std::size_t>(nr) * na * g.nseg);
  EventTimer t;
  t.start();
  cuda_check(cudaMemcpy(c.data(), s.C->get() + static_cast<std::size_t>(slice) * g.nseg * nr * na,
                        c.size() * sizeof(cuDoubleComplex), cudaMemcpyDeviceToHost),
             "download W");
  cuda_check(cudaMemcpy(w.lambda.data(), s.lambda->get() + slice * g.nseg, sizeof(double) * g.nseg, cudaMemcpyDeviceToHost),
             "download lambda");
  s.timing.download_ms = t.stop_ms();
  for (int seg = 0; seg < g.nseg; ++seg)
    for (int q = 0; q < nb; ++q)
      for (int r = 0; r < na; ++r)
        w.w[seg * w.size_per_segment() + static_cast<std::size_t>(q) * na + r] =
            c[static_cast<std::size_t>(seg) * nr * na + q + static_cast<std::size_t>(r) * nr];
  return w;
}

std::vector<GrappaWeights> grappa_calibrate_cuda(const std::vector<const RawData*>& slices, const GrappaParams& params) {
  if (slices.empty()) throw InputError("grappa: no slices to calibrate");
  const GrappaGeometry g = grappa_geometry(*slices[0], params);
  for (const RawData* r : slices) {
    const GrappaGeometry o = grappa_geometry(*r, params);
    if (o.ncoils != g.ncoils || o.nx != g.nx || o.ny != g.ny || o.R != g.R || o.acs_lines != g.acs_lines)
      throw InputError("grappa: slices of one batch must share coils, matrix, R and ACS lines (coil count mismatch?)");
  }
  GrappaCuda cuda(g, params, static_cast<int>(slices.size()));
  for (std::size_t i = 0; i < slices.size(); ++i) cuda.upload_acs(static_cast<int>(i), grappa_acs_block(*slices[i], g));
  cuda.calibrate();
  std::vector<GrappaWeights> out;
  for (std::size_t i = 0; i < slices.size(); ++i) out.push_back(cuda.weights(static_cast<int>(i)));
  return out;
}

double cublas_complex_gemm_gflops(bool double_precision, int n) {
  cublasHandle_t h;
  cublas_check(cublasCreate(&h), "create");
  const std::size_t elems = static_cast<std::size_t>(n) * n;
  const std::size_t bytes = elems * (double_precision ? sizeof(cuDoubleComplex) : sizeof(cuComplex));
  DeviceBuffer<char> a(bytes), b(bytes), c(bytes);
  cuda_check(cudaMemset(a.get(), 0, bytes), "memset");
  cuda_check(cudaMemset(b.get(), 0, bytes), "memset");
  auto run = [&] {
    if (double_precision) {
      const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
      cublas_check(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, n, n, n, &one, reinterpret_cast<cuDoubleComplex*>(a.get()), n,
                               reinterpret_cast<cuDoubleComplex*>(b.get()), n, &zero,
                               reinterpret_cast<cuDoubleComplex*>(c.get()), n),
                   "Zgemm");
    } else {
      const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
      cublas_check(cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, n, n, n, &one, reinterpret_cast<cuComplex*>(a.get()), n,
                               reinterpret_cast<cuComplex*>(b.get()), n, &zero, reinterpret_cast<cuComplex*>(c.get()), n),
                   "Cgemm");
    }
  };
  run();
  EventTimer t;
  t.start();
  const int reps = 5;
  for (int i = 0; i < reps; ++i) run();
  const double ms = t.stop_ms() / reps;
  cublasDestroy(h);
  return 8.0 * n * static_cast<double>(n) * n / (ms * 1e-3) * 1e-9;
}

}  // namespace mrwb::gpu
