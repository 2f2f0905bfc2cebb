// The Cartesian SENSE operator on the device (twin of core's cartesian_sense_operator.cpp; Pruessmann et
// al. 2001): maps multiply, one cuFFT plan batched over the coils, the centring by modulation and the
// unitary scale folded into pre / post, the mask, and the coil sum of the adjoint in one kernel; E^H E of a
// line mask by the DFT along y alone (half the transform work of the 2-D one).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb_gpu/recon/sparse_cuda.hpp"
#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {
namespace {

using cdouble = std::complex<double>;

// The CPU's centring factors (cartesian_sense_operator.cpp): valid for odd n, no index roll.
std::vector<cdouble> pre_1d(int n) {
  std::vector<cdouble> m(n);
  const int c = n / 2;
  for (int x = 0; x < n; ++x) m[x] = std::polar(1.0, 2 * std::numbers::pi * ((static_cast<long>(c) * x) % n) / n);
  return m;
}
std::vector<cdouble> post_1d(int n) {
  std::vector<cdouble> m = pre_1d(n);
  const int c = n / 2;
  const cdouble k0 = std::polar(1.0, -2 * std::numbers::pi * ((static_cast<long>(c) * c) % n) / n);
  for (auto& v : m) v *= k0;
  return m;
}

__global__ void times_pre(std::size_t n, std::size_t total, const float2* maps, const float2* pre, float2* sp) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) sp[i] = cmul(maps[i], pre[i % n]);
}
// buf_c = (S_c pre) x.
__global__ void spread(std::size_t n, std::size_t total, const float2* sp, const float2* x, float2* buf) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) buf[i] = cmul(sp[i], x[i % n]);
}
// buf_c = (S_c x) pre, the CPU's forward order.
__global__ void spread_forward(std::size_t n, std::size_t total, const float2* maps, const float2* pre, const float2* x,
                               float2* buf) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) buf[i] = cmul(cmul(maps[i], x[i % n]), pre[i % n]);
}
__global__ void weight(std::size_t n, std::size_t total, const float* w, float2* buf) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) buf[i] = cscale(w[i % n], buf[i]);
}
// k_c = (buf_c post) M.
__global__ void post_mask(std::size_t n, std::size_t total, const float2* buf, const float2* post, const float* mask,
                          float2* k) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) k[i] = cscale(mask[i % n], cmul(buf[i], post[i % n]));
}
// buf_c = (k_c conj(post)) M (mask null: no mask).
__global__ void unpost_mask(std::size_t n, std::size_t total, const float2* k, const float2* post, const float* mask,
                            float2* buf) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= total) return;
  const float2 v = cmul(k[i], conjf2(post[i % n]));
  buf[i] = mask ? cscale(mask[i % n], v) : v;
}
// Line masks: buf[y][c][x] = (S_c pre x)[y][x]; weight by row; gather from [y][c][x].
__global__ void spread_rows(std::size_t n, int nx, int ny, int coils, const float2* sp, const float2* x, float2* buf) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n * coils) return;
  const std::size_t p = i % n;
  const int c = static_cast<int>(i / n), y = static_cast<int>(p / nx), px = static_cast<int>(p % nx);
  buf[(static_cast<std::size_t>(y) * coils + c) * nx + px] = cmul(sp[i], x[p]);
}
__global__ void weight_rows(std::size_t total, int row, const float* w, float2* buf) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < total) buf[i] = cscale(w[i / row], buf[i]);
}
__global__ void gather_rows(std::size_t n, int nx, int coils, const float2* sp, const float2* buf, float2* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::size_t y = i / nx, px = i % nx;
  float2 acc = make_float2(0.f, 0.f);
  for (int c = 0; c < coils; ++c) acc = cadd(acc, cmul(conjf2(sp[c * n + i]), buf[(y * coils + c) * nx + px]));
  out[i] = acc;
}

// out = sum_c conj(S_c pre) buf_c.
__global__ void gather(std::size_t n, int coils, const float2* sp, const float2* buf, float2* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float2 acc = make_float2(0.f, 0.f);
  for (int c = 0; c < coils; ++c) acc = cadd(acc, cmul(conjf2(sp[c * n + i]), buf[c * n + i]));
  out[i] = acc;
}
__global__ void times_rss(std::size_t n, int coils, const float2* maps, float2* image) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  double ss = 0;
  for (int c = 0; c < coils; ++c) ss += normf2(maps[c * n + i]);
  image[i] = cscale(static_cast<float>(sqrt(ss)), image[i]);
}

// maps, S·pre, the transform scratch and the k-space (coils x n each), and about a dozen images.
void check_memory(std::size_t n, int coils) {
  std::size_t free_b = 0, total_b = 0;
  cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::size_t need = (4 * n * coils + 16 * n) * sizeof(float2);
  if (need > free_b)
    throw InputError("sense / cs --backend cuda: " + std::to_string(coils) + " coils of " + std::to_string(n) +
                     " pixels need " + std::to_string(need) + " bytes of GPU memory, " + std::to_string(free_b) +
                     " free (allowed: --backend cpu)");
}

void check_size(int nx, int ny, int coils, std::size_t maps, std::size_t mask) {
  if (nx < 1 || ny < 1 || coils < 1)
    throw InputError("cartesian sense: size " + std::to_string(nx) + " x " + std::to_string(ny) + ", " +
                     std::to_string(coils) + " coils (allowed: >= 1 each)");
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  if (maps != n * coils)
    throw InputError("cartesian sense: maps hold " + std::to_string(maps) +
                     " values (allowed: coils x ny x nx = " + std::to_string(n * coils) + ")");
  if (mask != n)
    throw InputError("cartesian sense: mask holds " + std::to_string(mask) + " values (allowed: ny x nx = " +
                     std::to_string(n) + ")");
}

// nx·ny, once the device is known to hold the operator.
std::size_t checked_plane(int nx, int ny, int coils) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  check_memory(n, coils);
  return n;
}

}  // namespace

DeviceSense::DeviceSense(int nx_, int ny_, int coils_, const std::complex<float>* host_maps, const std::vector<float>& m)
    : nx(nx_),
      ny(ny_),
      coils(coils_),
      n(checked_plane(nx_, ny_, coils_)),
      maps(n * coils_),
      sp(n * coils_),
      pre(n),
      post(n),
      mask(n),
      wmask(n),
      buf(n * coils_),
      wline(ny_) {
  const auto px = pre_1d(nx), py = pre_1d(ny), qx = post_1d(nx), qy = post_1d(ny);
  const double unitary = 1.0 / std::sqrt(static_cast<double>(n));
  std::vector<std::complex<float>> hp(n), hq(n);
  std::vector<float> hw(n);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      hp[static_cast<std::size_t>(y) * nx + x] = std::complex<float>(py[y] * px[x]);
      hq[static_cast<std::size_t>(y) * nx + x] = std::complex<float>(qy[y] * qx[x] * unitary);
    }
  for (std::size_t i = 0; i < n; ++i) hw[i] = static_cast<float>(m[i] * m[i] / double(n));
  pre.upload(reinterpret_cast<const float2*>(hp.data()));
  post.upload(reinterpret_cast<const float2*>(hq.data()));
  mask.upload(m.data());
  wmask.upload(hw.data());
  maps.upload(reinterpret_cast<const float2*>(host_maps));
  times_pre<<<blocks(n * coils), kThreads>>>(n, n * coils, maps.get(), pre.get(), sp.get());
  cuda_check(cudaGetLastError(), "sense maps");
  int dims[2] = {ny, nx};
  cufft_check(cufftPlanMany(&plan, 2, dims, nullptr, 1, static_cast<int>(n), nullptr, 1, static_cast<int>(n), CUFFT_C2C,
                            coils),
              "plan");
  line_mask = true;
  for (int y = 0; y < ny && line_mask; ++y)
    for (int x = 1; x < nx; ++x)
      if (m[static_cast<std::size_t>(y) * nx + x] != m[static_cast<std::size_t>(y) * nx]) {
        line_mask = false;
        break;
      }
  if (line_mask) {
    std::vector<float> hl(ny);
    for (int y = 0; y < ny; ++y) hl[y] = static_cast<float>(double(m[static_cast<std::size_t>(y) * nx]) * m[static_cast<std::size_t>(y) * nx] / ny);
    wline.upload(hl.data());
    int len = ny, embed = ny;
    const int stride = coils * nx;
    cufft_check(cufftPlanMany(&plan_y, 1, &len, &embed, stride, 1, &embed, stride, 1, CUFFT_C2C, stride), "plan y");
  }
}

DeviceSense::~DeviceSense() {
  if (plan) cufftDestroy(plan);
  if (plan_y) cufftDestroy(plan_y);
}

void DeviceSense::forward(const float2* x, float2* k) const {
  const std::size_t total = n * coils;
  spread_forward<<<blocks(total), kThreads>>>(n, total, maps.get(), pre.get(), x, buf.get());
  auto* b = reinterpret_cast<cufftComplex*>(buf.get());
  cufft_check(cufftExecC2C(plan, b, b, CUFFT_FORWARD), "forward");
  post_mask<<<blocks(total), kThreads>>>(n, total, buf.get(), post.get(), mask.get(), k);
}

void DeviceSense::adjoint(const float2* k, float2* x) const {
  const std::size_t total = n * coils;
  unpost_mask<<<blocks(total), kThreads>>>(n, total, k, post.get(), mask.get(), buf.get());
  auto* b = reinterpret_cast<cufftComplex*>(buf.get());
  cufft_check(cufftExecC2C(plan, b, b, CUFFT_INVERSE), "adjoint");
  gather<<<blocks(n), kThreads>>>(n, coils, sp.get(), buf.get(), x);
}

void DeviceSense::normal(const float2* x, float2* out) const {
  const std::size_t total = n * coils;
  if (line_mask) {
    spread_rows<<<blocks(total), kThreads>>>(n, nx, ny, coils, sp.get(), x, buf.get());
    auto* b = reinterpret_cast<cufftComplex*>(buf.get());
    cufft_check(cufftExecC2C(plan_y, b, b, CUFFT_FORWARD), "normal");
    weight_rows<<<blocks(total), kThreads>>>(total, coils * nx, wline.get(), buf.get());
    cufft_check(cufftExecC2C(plan_y, b, b, CUFFT_INVERSE), "normal");
    gather_rows<<<blocks(n), kThreads>>>(n, nx, coils, sp.get(), buf.get(), out);
    return;
  }
  spread<<<blocks(total), kThreads>>>(n, total, sp.get(), x, buf.get());
  auto* b = reinterpret_cast<cufftComplex*>(buf.get());
  cufft_check(cufftExecC2C(plan, b, b, CUFFT_FORWARD), "normal");
  weight<<<blocks(total), kThreads>>>(n, total, wmask.get(), buf.get());
  cufft_check(cufftExecC2C(plan, b, b, CUFFT_INVERSE), "normal");
  gather<<<blocks(n), kThreads>>>(n, coils, sp.get(), buf.get(), out);
}

void DeviceSense::weight_by_rss(float2* image) const {
  times_rss<<<blocks(n), kThreads>>>(n, coils, maps.get(), image);
  cuda_check(cudaGetLastError(), "rss weight");
}

}  // namespace mrwb::gpu::sparse

namespace mrwb::gpu {

namespace {
using cfloat = std::complex<float>;
std::vector<cfloat> download(const DeviceBuffer<float2>& b) {
  std::vector<cfloat> h(b.size());
  b.download(reinterpret_cast<float2*>(h.data()));
  return h;
}
}  // namespace

CartesianSenseOperatorCuda::CartesianSenseOperatorCuda(int nx, int ny, int coils, const std::vector<cfloat>& maps,
                                                       const std::vector<float>& mask) {
  sparse::check_size(nx, ny, coils, maps.size(), mask.size());
  dev_ = std::make_unique<sparse::DeviceSense>(nx, ny, coils, maps.data(), mask);
}
CartesianSenseOperatorCuda::~CartesianSenseOperatorCuda() = default;
int CartesianSenseOperatorCuda::nx() const { return dev_->nx; }
int CartesianSenseOperatorCuda::ny() const { return dev_->ny; }
int CartesianSenseOperatorCuda::coils() const { return dev_->coils; }

std::vector<cfloat> CartesianSenseOperatorCuda::forward(const std::vector<cfloat>& x) const {
  if (x.size() != dev_->n) throw InputError("cartesian sense cuda: forward needs nx x ny values");
  DeviceBuffer<float2> dx(dev_->n), dk(dev_->n * dev_->coils);
  dx.upload(reinterpret_cast<const float2*>(x.data()));
  dev_->forward(dx.get(), dk.get());
  return download(dk);
}

std::vector<cfloat> CartesianSenseOperatorCuda::adjoint(const std::vector<cfloat>& k) const {
  if (k.size() != dev_->n * dev_->coils) throw InputError("cartesian sense cuda: adjoint needs coils x nx x ny values");
  DeviceBuffer<float2> dx(dev_->n), dk(dev_->n * dev_->coils);
  dk.upload(reinterpret_cast<const float2*>(k.data()));
  dev_->adjoint(dk.get(), dx.get());
  return download(dx);
}

std::vector<cfloat> CartesianSenseOperatorCuda::normal(const std::vector<cfloat>& x) const {
  if (x.size() != dev_->n) throw InputError("cartesian sense cuda: normal needs nx x ny values");
  DeviceBuffer<float2> dx(dev_->n), dq(dev_->n);
  dx.upload(reinterpret_cast<const float2*>(x.data()));
  dev_->normal(dx.get(), dq.get());
  return download(dq);
}

}  // namespace mrwb::gpu
