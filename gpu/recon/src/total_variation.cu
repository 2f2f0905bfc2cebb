// Isotropic TV on the device (twin of core's total_variation.cpp; Rudin, Osher & Fatemi 1992): periodic
// forward differences D, D^H = −div, and the ADMM pieces (Boyd et al. 2011, sec. 6.3) each fused into one
// pass that forms the differences it needs on the fly, in the CPU's float operations and order.
#include "sparse_device.hpp"

namespace mrwb::gpu::sparse {
namespace {

struct Grid {
  int nx, ny;
  __device__ std::size_t right(std::size_t i) const {
    const int x = static_cast<int>(i % nx);
    return i - x + (x + 1) % nx;
  }
  __device__ std::size_t left(std::size_t i) const {
    const int x = static_cast<int>(i % nx);
    return i - x + (x + nx - 1) % nx;
  }
  __device__ std::size_t down(std::size_t i) const {
    const int y = static_cast<int>(i / nx), x = static_cast<int>(i % nx);
    return static_cast<std::size_t>((y + 1) % ny) * nx + x;
  }
  __device__ std::size_t up(std::size_t i) const {
    const int y = static_cast<int>(i / nx), x = static_cast<int>(i % nx);
    return static_cast<std::size_t>((y + ny - 1) % ny) * nx + x;
  }
  // (D v)_x and (D v)_y at i.
  __device__ float2 dx(const float2* v, std::size_t i) const { return csub(v[right(i)], v[i]); }
  __device__ float2 dy(const float2* v, std::size_t i) const { return csub(v[down(i)], v[i]); }
};

struct NormalAdd {  // q += rho D^H D d; Re<d, q>
  Grid g;
  const float2* d;
  float rho;
  float2* q;
  __device__ double operator()(std::size_t i) const {
    const std::size_t l = g.left(i), u = g.up(i);
    const float2 dd = cadd(csub(g.dx(d, l), g.dx(d, i)), csub(g.dy(d, u), g.dy(d, i)));
    q[i] = cadd(q[i], cscale(rho, dd));
    return re_dot(d[i], q[i]);
  }
};

// rhs = b + rho D^H (z − u), z and u [2][n]; |rhs|².
struct Rhs {
  Grid g;
  std::size_t n;
  const float2 *b, *z, *u;
  float rho;
  float2* rhs;
  __device__ double operator()(std::size_t i) const {
    const std::size_t l = g.left(i), p = g.up(i);
    const float2 wx_l = csub(z[l], u[l]), wx = csub(z[i], u[i]);
    const float2 wy_p = csub(z[n + p], u[n + p]), wy = csub(z[n + i], u[n + i]);
    rhs[i] = cadd(b[i], cscale(rho, cadd(csub(wx_l, wx), csub(wy_p, wy))));
    return double(rhs[i].x) * rhs[i].x + double(rhs[i].y) * rhs[i].y;
  }
};

// Over-relaxed (Boyd et al. 2011, sec. 3.4.3): xh = alpha D x + (1 − alpha) z, z = shrink(xh + u, tau),
// u += xh − z, dz = z − z_old; the CPU's float operations in its order.
__global__ void zu_kernel(Grid g, std::size_t n, const float2* x, float tau, float alpha, float2* z, float2* u,
                          float2* dz) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float beta = __fsub_rn(1.0f, alpha);
  const float2 zx_old = z[i], zy_old = z[n + i];
  const float2 hx = cadd(cscale(alpha, g.dx(x, i)), cscale(beta, zx_old));
  const float2 hy = cadd(cscale(alpha, g.dy(x, i)), cscale(beta, zy_old));
  float2 zx = cadd(hx, u[i]), zy = cadd(hy, u[n + i]);
  const float mag = __fsqrt_rn(__fadd_rn(normf2(zx), normf2(zy)));
  const float s = mag > tau ? __fsub_rn(1.0f, __fdiv_rn(tau, mag)) : 0.0f;
  zx = cscale(s, zx);
  zy = cscale(s, zy);
  z[i] = zx;
  z[n + i] = zy;
  u[i] = cadd(u[i], csub(hx, zx));
  u[n + i] = cadd(u[n + i], csub(hy, zy));
  dz[i] = csub(zx, zx_old);
  dz[n + i] = csub(zy, zy_old);
}

// The sums of the residual test (Boyd et al. 2011, sec. 3.3.1), one per reduction.
__device__ double norm_d(float2 a) { return double(a.x) * a.x + double(a.y) * a.y; }
struct GradNorm {  // |D x|²
  Grid g;
  const float2* x;
  __device__ double operator()(std::size_t i) const { return norm_d(g.dx(x, i)) + norm_d(g.dy(x, i)); }
};
struct ZNorm {  // |z|² over [2][n]
  const float2* z;
  __device__ double operator()(std::size_t i) const { return norm_d(z[i]); }
};
struct PrimalResidual {  // |D x − z|², in double as the CPU's
  Grid g;
  std::size_t n;
  const float2 *x, *z;
  __device__ double operator()(std::size_t i) const {
    const float2 gx = g.dx(x, i), gy = g.dy(x, i);
    const double ax = double(gx.x) - z[i].x, ay = double(gx.y) - z[i].y;
    const double bx = double(gy.x) - z[n + i].x, by = double(gy.y) - z[n + i].y;
    return ax * ax + ay * ay + bx * bx + by * by;
  }
};
struct AdjointNorm {  // |D^H v|², v [2][n]
  Grid g;
  std::size_t n;
  const float2* v;
  __device__ double operator()(std::size_t i) const {
    const std::size_t l = g.left(i), p = g.up(i);
    return norm_d(cadd(csub(v[l], v[i]), csub(v[n + p], v[n + i])));
  }
};

struct Norm {
  Grid g;
  const float2* x;
  __device__ double operator()(std::size_t i) const {
    return sqrt(double(normf2(g.dx(x, i))) + double(normf2(g.dy(x, i))));
  }
};

}  // namespace

void tv_normal_add(const float2* d, float rho, int nx, int ny, float2* q, double* partials) {
  reduce(static_cast<std::size_t>(nx) * ny, NormalAdd{{nx, ny}, d, rho, q}, partials);
}

void tv_rhs(const float2* b, const float2* z, const float2* u, float rho, int nx, int ny, float2* rhs,
            double* partials) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  reduce(n, Rhs{{nx, ny}, n, b, z, u, rho, rhs}, partials);
}

void tv_zu_update(const float2* x, float tau, float alpha, int nx, int ny, float2* z, float2* u, float2* dz) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  zu_kernel<<<blocks(n), kThreads>>>({nx, ny}, n, x, tau, alpha, z, u, dz);
}

AdmmResiduals tv_admm_residuals(const float2* x, const float2* z, const float2* u, const float2* dz, int nx, int ny,
                                double* partials) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  const Grid g{nx, ny};
  reduce(n, GradNorm{g, x}, partials);
  reduce(2 * n, ZNorm{z}, partials + kReduceBlocks);
  reduce(n, PrimalResidual{g, n, x, z}, partials + 2 * kReduceBlocks);
  reduce(n, AdjointNorm{g, n, dz}, partials + 3 * kReduceBlocks);
  reduce(n, AdjointNorm{g, n, u}, partials + 4 * kReduceBlocks);
  double h[5 * kReduceBlocks];
  cuda_check(cudaMemcpy(h, partials, sizeof h, cudaMemcpyDeviceToHost), "admm residuals");
  double sum[5] = {0, 0, 0, 0, 0};
  for (int j = 0; j < 5; ++j)
    for (int b = 0; b < kReduceBlocks; ++b) sum[j] += h[j * kReduceBlocks + b];
  return {sum[0], sum[1], sum[2], sum[3], sum[4]};
}

void tv_norm(const float2* x, int nx, int ny, double* partials) {
  reduce(static_cast<std::size_t>(nx) * ny, Norm{{nx, ny}, x}, partials);
}

}  // namespace mrwb::gpu::sparse
