#include "mrwb/recon/cartesian_sense_operator.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>
#include <stdexcept>
#include <string>
#include <thread>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"

namespace mrwb {
namespace {

using cfloat = std::complex<float>;

// Centring without an index roll, valid for odd n too (c = n/2 rounded down, as base/fft.hpp):
// sum_x f(x) e^{-2πi(k−c)(x−c)/n} = e^{2πi c k/n} e^{−2πi c²/n} · DFT[f(x) e^{2πi c x/n}](k).
std::vector<std::complex<double>> pre_1d(int n) {
  std::vector<std::complex<double>> m(n);
  const int c = n / 2;
  for (int x = 0; x < n; ++x) m[x] = std::polar(1.0, 2 * std::numbers::pi * ((static_cast<long>(c) * x) % n) / n);
  return m;
}
std::vector<std::complex<double>> post_1d(int n) {
  std::vector<std::complex<double>> m = pre_1d(n);
  const int c = n / 2;
  const std::complex<double> k0 = std::polar(1.0, -2 * std::numbers::pi * ((static_cast<long>(c) * c) % n) / n);
  for (auto& v : m) v *= k0;
  return m;
}

struct FftwBuffer {
  explicit FftwBuffer(std::size_t n) : p(static_cast<cfloat*>(fftwf_malloc(sizeof(fftwf_complex) * n))) {
    if (!p) throw std::runtime_error("cartesian sense: out of memory");
  }
  ~FftwBuffer() { fftwf_free(p); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  cfloat* p;
};

fftwf_complex* fc(cfloat* p) { return reinterpret_cast<fftwf_complex*>(p); }

}  // namespace

struct CartesianSenseOperator::Plans {
  fftwf_plan fwd = nullptr, bwd = nullptr;
  int threads = 1;
  std::vector<float> normal_mask;  // M² / N: |post|² M² of E^H E
  ~Plans() {
    std::lock_guard lock(fftw_planner_mutex());
    if (fwd) fftwf_destroy_plan(fwd);
    if (bwd) fftwf_destroy_plan(bwd);
  }
};

void check_cartesian_slice(const char* who, const RawData& raw, const std::vector<cfloat>& maps) {
  const std::string src = std::string(who) + ": ";
  if (!raw.cartesian() || raw.volume())
    throw InputError(src + "needs one slice of Cartesian data (allowed: 2-D Cartesian raw data)");
  if (raw.recon_nx != 0 && raw.recon_nx != raw.nx)
    throw InputError(src + "readout oversampling (recon_nx " + std::to_string(raw.recon_nx) + " of " +
                     std::to_string(raw.nx) + ") is not supported (allowed: recon_nx = nx)");
  const std::size_t want = static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils;
  if (maps.size() != want)
    throw InputError(src + "maps hold " + std::to_string(maps.size()) + " values (allowed: coils x ny x nx = " +
                     std::to_string(raw.ncoils) + " x " + std::to_string(raw.ny) + " x " + std::to_string(raw.nx) +
                     " = " + std::to_string(want) + ")");
  check_raw_layout(raw);
}

CartesianSenseOperator::CartesianSenseOperator(int nx, int ny, int coils, std::vector<cfloat> maps,
                                               std::vector<float> mask)
    : nx_(nx), ny_(ny), coils_(coils), maps_(std::move(maps)), mask_(std::move(mask)) {
  if (nx < 1 || ny < 1 || coils < 1)
    throw InputError("cartesian sense: size " + std::to_string(nx) + " x " + std::to_string(ny) + ", " +
                     std::to_string(coils) + " coils (allowed: >= 1 each)");
  const std::size_t n = plane();
  if (maps_.size() != n * coils)
    throw InputError("cartesian sense: maps hold " + std::to_string(maps_.size()) +
                     " values (allowed: coils x ny x nx = " + std::to_string(n * coils) + ")");
  if (mask_.size() != n)
    throw InputError("cartesian sense: mask holds " + std::to_string(mask_.size()) +
                     " values (allowed: ny x nx = " + std::to_string(n) + ")");
  const auto px = pre_1d(nx), py = pre_1d(ny), qx = post_1d(nx), qy = post_1d(ny);
  const double unitary = 1.0 / std::sqrt(static_cast<double>(n));
  pre_.resize(n);
  post_.resize(n);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      pre_[static_cast<std::size_t>(y) * nx + x] = cfloat(py[y] * px[x]);
      post_[static_cast<std::size_t>(y) * nx + x] = cfloat(qy[y] * qx[x] * unitary);
    }
  plans_ = std::make_unique<Plans>();
  plans_->normal_mask.resize(n);
  for (std::size_t i = 0; i < n; ++i) plans_->normal_mask[i] = static_cast<float>(mask_[i] * mask_[i] / double(n));
  plans_->threads = static_cast<int>(std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), coils));
  FftwBuffer scratch(n);
  std::lock_guard lock(fftw_planner_mutex());
  plans_->fwd = fftwf_plan_dft_2d(ny, nx, fc(scratch.p), fc(scratch.p), FFTW_FORWARD, FFTW_ESTIMATE);
  plans_->bwd = fftwf_plan_dft_2d(ny, nx, fc(scratch.p), fc(scratch.p), FFTW_BACKWARD, FFTW_ESTIMATE);
  if (!plans_->fwd || !plans_->bwd) throw std::runtime_error("cartesian sense: FFTW planning failed");
}

CartesianSenseOperator::~CartesianSenseOperator() = default;

namespace {

// fn(coil, buffer, accumulator) for every coil, the coils split over `threads` threads; returns the
// accumulators (one per thread, each plane values, zeroed first).
template <typename Fn>
std::vector<std::vector<cfloat>> over_coils(int coils, int threads, std::size_t n, bool accumulate, Fn&& fn) {
  std::vector<std::vector<cfloat>> acc(threads);
  auto work = [&](int t) {
    FftwBuffer buf(n);
    if (accumulate) acc[t].assign(n, {});
    for (int c = t; c < coils; c += threads) fn(c, buf.p, acc[t]);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  return acc;
}

std::vector<cfloat> sum_parts(std::vector<std::vector<cfloat>>& parts) {
  std::vector<cfloat> out = std::move(parts[0]);
  for (std::size_t t = 1; t < parts.size(); ++t)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += parts[t][i];
  return out;
}

}  // namespace

std::vector<cfloat> CartesianSenseOperator::forward(const std::vector<cfloat>& x) const {
  const std::size_t n = plane();
  std::vector<cfloat> k(n * coils_);
  over_coils(coils_, plans_->threads, n, false, [&](int c, cfloat* b, std::vector<cfloat>&) {
    const cfloat* s = maps_.data() + c * n;
    for (std::size_t i = 0; i < n; ++i) b[i] = s[i] * x[i] * pre_[i];
    fftwf_execute_dft(plans_->fwd, fc(b), fc(b));
    cfloat* out = k.data() + c * n;
    for (std::size_t i = 0; i < n; ++i) out[i] = b[i] * post_[i] * mask_[i];
  });
  return k;
}

std::vector<cfloat> CartesianSenseOperator::adjoint(const std::vector<cfloat>& k) const {
  const std::size_t n = plane();
  auto parts = over_coils(coils_, plans_->threads, n, true, [&](int c, cfloat* b, std::vector<cfloat>& acc) {
    const cfloat* in = k.data() + c * n;
    for (std::size_t i = 0; i < n; ++i) b[i] = in[i] * std::conj(post_[i]) * mask_[i];
    fftwf_execute_dft(plans_->bwd, fc(b), fc(b));
    const cfloat* s = maps_.data() + c * n;
    for (std::size_t i = 0; i < n; ++i) acc[i] += std::conj(s[i] * pre_[i]) * b[i];
  });
  return sum_parts(parts);
}

void CartesianSenseOperator::normal(const std::vector<cfloat>& x, std::vector<cfloat>& out) const {
  const std::size_t n = plane();
  const float* w = plans_->normal_mask.data();
  auto parts = over_coils(coils_, plans_->threads, n, true, [&](int c, cfloat* b, std::vector<cfloat>& acc) {
    const cfloat* s = maps_.data() + c * n;
    for (std::size_t i = 0; i < n; ++i) b[i] = s[i] * pre_[i] * x[i];
    fftwf_execute_dft(plans_->fwd, fc(b), fc(b));
    for (std::size_t i = 0; i < n; ++i) b[i] *= w[i];
    fftwf_execute_dft(plans_->bwd, fc(b), fc(b));
    for (std::size_t i = 0; i < n; ++i) acc[i] += std::conj(s[i] * pre_[i]) * b[i];
  });
  out = sum_parts(parts);
}

std::vector<float> CartesianSenseOperator::sum_of_squares() const {
  const std::size_t n = plane();
  std::vector<float> ss(n, 0.0f);
  for (int c = 0; c < coils_; ++c)
    for (std::size_t i = 0; i < n; ++i) ss[i] += std::norm(maps_[c * n + i]);
  return ss;
}

std::vector<float> line_mask(const RawData& raw) {
  std::vector<float> m(static_cast<std::size_t>(raw.nx) * raw.ny, 0.0f);
  for (int y = 0; y < raw.ny; ++y)
    if (raw.flags(y) & kLineAcquired) std::fill_n(m.begin() + static_cast<std::size_t>(y) * raw.nx, raw.nx, 1.0f);
  return m;
}

std::vector<cfloat> unitary_kspace(const RawData& raw) {
  const float s = static_cast<float>(1.0 / std::sqrt(static_cast<double>(raw.nx) * raw.ny));
  std::vector<cfloat> k(raw.kspace.begin(), raw.kspace.begin() + static_cast<std::ptrdiff_t>(raw.nx) * raw.ny * raw.ncoils);
  for (auto& v : k) v *= s;
  return k;
}

}  // namespace mrwb
