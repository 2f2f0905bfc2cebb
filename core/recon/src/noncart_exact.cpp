// Exact F^H d and Q (Stone et al. 2008, Eqs. 3-4): a direct sum over samples for every voxel.
// CPU.DP: double trig and accumulation; CPU.SP: float, as the paper's CPU.SP. Both split voxels across
// threads. The phase is reduced in turns (t - rint(t)) before the trig, which keeps float accurate.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "mrwb/recon/noncart_exact.hpp"

namespace mrwb::noncart {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

int thread_count(int threads) {
  if (threads > 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Voxel coordinate (FOV units) of index i on a grid of n: (i - n/2)/n; `offset` shifts the origin
// (Q on the 2n grid: index j <-> (j - n)/n with n the image size, i.e. same spacing).
template <typename T>
void accumulate(int dims, int n_out, double spacing, int origin, const float* k, const T* mu_re,
                const T* mu_im, std::size_t M, std::size_t v_begin, std::size_t v_end, cdouble* out,
                const CancelToken& cancel) {
  for (std::size_t v = v_begin; v < v_end; ++v) {
    if ((v & 255) == 0 && cancel.cancelled()) return;
    const int ix = static_cast<int>(v % n_out);
    const int iy = static_cast<int>((v / n_out) % n_out);
    const int iz = dims == 3 ? static_cast<int>(v / (static_cast<std::size_t>(n_out) * n_out)) : 0;
    const T x = static_cast<T>((ix - origin) * spacing), y = static_cast<T>((iy - origin) * spacing),
            z = static_cast<T>((iz - origin) * spacing);
    T re = 0, im = 0;
    for (std::size_t m = 0; m < M; ++m) {
      const float* km = k + m * dims;
      T t = static_cast<T>(km[0]) * x + static_cast<T>(km[1]) * y;
      if (dims == 3) t += static_cast<T>(km[2]) * z;
      t -= std::nearbyint(t);  // phase in turns, reduced to [-1/2, 1/2]
      const T arg = static_cast<T>(kTwoPi) * t;
      const T c = std::cos(arg), s = std::sin(arg);
      re += mu_re[m] * c - mu_im[m] * s;
      im += mu_im[m] * c + mu_re[m] * s;
    }
    out[v] = {static_cast<double>(re), static_cast<double>(im)};
  }
}

// Voxels [v_begin, v_end) of a `voxels`-long result (the rest zero): each voxel's sum runs over the samples in
// the same order whatever the range, so a rank's share equals those voxels of the whole run bit for bit.
template <typename T>
std::vector<cdouble> direct_sum(int dims, int n_out, double spacing, int origin, const float* k,
                                const std::vector<T>& mu_re, const std::vector<T>& mu_im, std::size_t M,
                                std::size_t voxels, std::size_t v_begin, std::size_t v_end, int threads,
                                const CancelToken& cancel) {
  std::vector<cdouble> out(voxels);
  const int nt = thread_count(threads);
  // Interleaved blocks of 64 voxels balance the load (Q's half-grid is not uniform in cost otherwise).
  std::atomic<std::size_t> next{v_begin};
  const std::size_t block = 64;
  auto work = [&] {
    for (;;) {
      const std::size_t b = next.fetch_add(block);
      if (b >= v_end || cancel.cancelled()) return;
      accumulate<T>(dims, n_out, spacing, origin, k, mu_re.data(), mu_im.data(), M, b,
                    std::min(v_end, b + block), out.data(), cancel);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < nt; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  cancel.throw_if_cancelled();
  return out;
}

}  // namespace

std::vector<cdouble> exact_fhd(const Grid& g, const float* k, const cfloat* d, std::size_t M, Precision p,
                               int threads, const CancelToken& cancel) {
  return exact_fhd_voxels(g, k, d, M, p, 0, g.voxels(), threads, cancel);
}

std::vector<cdouble> exact_fhd_voxels(const Grid& g, const float* k, const cfloat* d, std::size_t M, Precision p,
                                      std::size_t begin, std::size_t end, int threads, const CancelToken& cancel) {
  const double phi = g.phi();  // real, so phi* d = phi d
  if (p == Precision::Double) {
    std::vector<double> re(M), im(M);
    for (std::size_t m = 0; m < M; ++m) re[m] = phi * d[m].real(), im[m] = phi * d[m].imag();
    return direct_sum<double>(g.dims, g.n, 1.0 / g.n, g.n / 2, k, re, im, M, g.voxels(), begin, end, threads, cancel);
  }
  std::vector<float> re(M), im(M);
  for (std::size_t m = 0; m < M; ++m)
    re[m] = static_cast<float>(phi * d[m].real()), im[m] = static_cast<float>(phi * d[m].imag());
  return direct_sum<float>(g.dims, g.n, 1.0 / g.n, g.n / 2, k, re, im, M, g.voxels(), begin, end, threads, cancel);
}

std::size_t q_half_voxels(const Grid& g) { return g.doubled().voxels() / (2 * g.n) * (g.n + 1); }

void complete_q_hermitian(const Grid& g, std::vector<cdouble>& q) {
  const Grid g2 = g.doubled();
  const std::size_t total = g2.voxels(), half = q_half_voxels(g);
  q.resize(total);
  const int n2 = g2.n;
  for (std::size_t v = half; v < total; ++v) {
    const int ix = static_cast<int>(v % n2), iy = static_cast<int>((v / n2) % n2);
    const int iz = g.dims == 3 ? static_cast<int>(v / (static_cast<std::size_t>(n2) * n2)) : 0;
    const int mx = (n2 - ix) % n2, my = (n2 - iy) % n2, mz = (n2 - iz) % n2;
    const std::size_t mv = g.dims == 3 ? (static_cast<std::size_t>(mz) * n2 + my) * n2 + mx
                                       : static_cast<std::size_t>(my) * n2 + mx;
    q[v] = std::conj(q[mv]);  // mirror offset (2n - j) - n = n - j = -(j - n): lies in the computed half
  }
}

std::vector<cdouble> exact_q(const Grid& g, const float* k, std::size_t M, Precision p, int threads,
                             const CancelToken& cancel) {
  std::vector<cdouble> q = exact_q_half_voxels(g, k, M, p, 0, q_half_voxels(g), threads, cancel);
  complete_q_hermitian(g, q);
  return q;
}

std::vector<cdouble> exact_q_half_voxels(const Grid& g, const float* k, std::size_t M, Precision p, std::size_t begin,
                                         std::size_t end, int threads, const CancelToken& cancel) {
  const Grid g2 = g.doubled();
  const std::size_t half = q_half_voxels(g);
  const double phi2 = g.phi() * g.phi();
  if (p == Precision::Double) {
    std::vector<double> re(M, phi2), im(M, 0.0);
    return direct_sum<double>(g.dims, g2.n, 1.0 / g.n, g.n, k, re, im, M, half, begin, end, threads, cancel);
  }
  std::vector<float> re(M, static_cast<float>(phi2)), im(M, 0.f);
  return direct_sum<float>(g.dims, g2.n, 1.0 / g.n, g.n, k, re, im, M, half, begin, end, threads, cancel);
}

}  // namespace mrwb::noncart
