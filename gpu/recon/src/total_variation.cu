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

// rhs = b + rho D^H (z − u), z and u [2][n].
__global__ void rhs_kernel(Grid g, std::size_t n, const float2* b, const float2* z, const float2* u, float rho,
                           float2* rhs) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::size_t l = g.left(i), p = g.up(i);
  const float2 wx_l = csub(z[l], u[l]), wx = csub(z[i], u[i]);
  const float2 wy_p = csub(z[n + p], u[n + p]), wy = csub(z[n + i], u[n + i]);
  rhs[i] = cadd(b[i], cscale(rho, cadd(csub(wx_l, wx), csub(wy_p, wy))));
}

// z = shrink(D x + u, tau), u += D x − z.
__global__ void zu_kernel(Grid g, std::size_t n, const float2* x, float tau, float2* z, float2* u) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float2 gx = g.dx(x, i), gy = g.dy(x, i);
  float2 zx = cadd(gx, u[i]), zy = cadd(gy, u[n + i]);
  const float mag = __fsqrt_rn(__fadd_rn(normf2(zx), normf2(zy)));
  const float s = mag > tau ? __fsub_rn(1.0f, __fdiv_rn(tau, mag)) : 0.0f;
  zx = cscale(s, zx);
  zy = cscale(s, zy);
  z[i] = zx;
  z[n + i] = zy;
  u[i] = cadd(u[i], csub(gx, zx));
  u[n + i] = cadd(u[n + i], csub(gy, zy));
}

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

void tv_rhs(const float2* b, const float2* z, const float2* u, float rho, int nx, int ny, float2* rhs) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  rhs_kernel<<<blocks(n), kThreads>>>({nx, ny}, n, b, z, u, rho, rhs);
}

void tv_zu_update(const float2* x, float tau, int nx, int ny, float2* z, float2* u) {
  const std::size_t n = static_cast<std::size_t>(nx) * ny;
  zu_kernel<<<blocks(n), kThreads>>>({nx, ny}, n, x, tau, z, u);
}

void tv_norm(const float2* x, int nx, int ny, double* partials) {
  reduce(static_cast<std::size_t>(nx) * ny, Norm{{nx, ny}, x}, partials);
}

}  // namespace mrwb::gpu::sparse
