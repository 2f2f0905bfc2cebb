// Orthonormal periodic 2-D DWT on the device (twin of core's wavelet.cpp; Mallat 1989, Daubechies 1988):
// the same filters (taken from Wavelet2D), the same pyramid (rows then columns per level, the inverse in
// reverse), each 1-D pass in double and stored as float as on the CPU. A pass reads one buffer and writes
// the other over the active (ny/2^l) x (nx/2^l) corner only, so two passes per level need no copy.
#include "mrwb/recon/wavelet.hpp"
#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {
namespace {

struct Pass {
  int m;                  // values per line
  int lines;
  std::ptrdiff_t along;   // stride between a line's values
  std::ptrdiff_t across;  // stride between lines
};

// a_k = sum_j h_j v[(2k + j) mod m], d_k = sum_j g_j v[...]: [a_0 .. a_{m/2−1}, d_0 .. d_{m/2−1}].
__global__ void analyse(const float2* __restrict__ src, float2* __restrict__ dst, Pass p, Filters f) {
  const int half = p.m / 2;
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<std::size_t>(half) * p.lines) return;
  // Neighbouring threads on neighbouring memory: along a row for the row pass, across columns for the column pass.
  const bool rows = p.along == 1;
  const int line = static_cast<int>(rows ? t / half : t % p.lines), k = static_cast<int>(rows ? t % half : t / p.lines);
  const float2* in = src + line * p.across;
  double ar = 0, ai = 0, dr = 0, di = 0;
  for (int j = 0; j < f.taps; ++j) {
    const float2 v = in[((2 * k + j) % p.m) * p.along];
    ar = __dadd_rn(ar, __dmul_rn(f.h[j], v.x));  // no FMA: rounded as the CPU's
    ai = __dadd_rn(ai, __dmul_rn(f.h[j], v.y));
    dr = __dadd_rn(dr, __dmul_rn(f.g[j], v.x));
    di = __dadd_rn(di, __dmul_rn(f.g[j], v.y));
  }
  float2* out = dst + line * p.across;
  out[k * p.along] = make_float2(static_cast<float>(ar), static_cast<float>(ai));
  out[(half + k) * p.along] = make_float2(static_cast<float>(dr), static_cast<float>(di));
}

// The transpose: x_i = sum over (k, j) with (2k + j) mod m = i of h_j a_k + g_j d_k, added in ascending k as
// the CPU's scatter does.
__global__ void synthesise(const float2* __restrict__ src, float2* __restrict__ dst, Pass p, Filters f) {
  const int half = p.m / 2;
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<std::size_t>(p.m) * p.lines) return;
  const bool rows = p.along == 1;
  const int line = static_cast<int>(rows ? t / p.m : t % p.lines), i = static_cast<int>(rows ? t % p.m : t / p.lines);
  int ks[4], js[4], count = 0;
  for (int j = i & 1; j < f.taps; j += 2) {
    ks[count] = (((i - j) % p.m + p.m) % p.m) / 2;
    js[count++] = j;
  }
  for (int a = 1; a < count; ++a)  // insertion sort by k (at most 4)
    for (int b = a; b > 0 && ks[b - 1] > ks[b]; --b) {
      const int tk = ks[b], tj = js[b];
      ks[b] = ks[b - 1], js[b] = js[b - 1];
      ks[b - 1] = tk, js[b - 1] = tj;
    }
  const float2* in = src + line * p.across;
  double xr = 0, xi = 0;
  for (int c = 0; c < count; ++c) {
    const float2 a = in[ks[c] * p.along], d = in[(half + ks[c]) * p.along];
    const double h = f.h[js[c]], g = f.g[js[c]];
    xr = __dadd_rn(xr, __dadd_rn(__dmul_rn(h, a.x), __dmul_rn(g, d.x)));
    xi = __dadd_rn(xi, __dadd_rn(__dmul_rn(h, a.y), __dmul_rn(g, d.y)));
  }
  dst[line * p.across + i * p.along] = make_float2(static_cast<float>(xr), static_cast<float>(xi));
}

Pass rows(int nx, int mx, int my) { return {mx, my, 1, nx}; }
Pass cols(int nx, int mx, int my) { return {my, mx, nx, 1}; }

}  // namespace

Filters daubechies_filters(int taps) {
  const Wavelet2D w(taps, taps, taps, 0);  // only for its filter (same numbers as the CPU's)
  const std::vector<double>& h = w.scaling_filter();
  Filters f{};
  f.taps = static_cast<int>(h.size());
  for (int j = 0; j < f.taps; ++j) {
    f.h[j] = h[j];
    f.g[j] = (j % 2 ? -1.0 : 1.0) * h[f.taps - 1 - j];
  }
  return f;
}

void dwt_forward(float2* data, float2* tmp, int nx, int ny, int levels, const Filters& f) {
  int mx = nx, my = ny;
  for (int l = 0; l < levels; ++l) {
    analyse<<<blocks(static_cast<std::size_t>(mx / 2) * my), kThreads>>>(data, tmp, rows(nx, mx, my), f);
    analyse<<<blocks(static_cast<std::size_t>(my / 2) * mx), kThreads>>>(tmp, data, cols(nx, mx, my), f);
    mx /= 2;
    my /= 2;
  }
}

void dwt_inverse(float2* data, float2* tmp, int nx, int ny, int levels, const Filters& f) {
  for (int l = levels - 1; l >= 0; --l) {
    const int mx = nx >> l, my = ny >> l;
    synthesise<<<blocks(static_cast<std::size_t>(mx) * my), kThreads>>>(data, tmp, cols(nx, mx, my), f);
    synthesise<<<blocks(static_cast<std::size_t>(mx) * my), kThreads>>>(tmp, data, rows(nx, mx, my), f);
  }
}

}  // namespace mrwb::gpu::sparse
