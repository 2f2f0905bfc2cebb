#pragma once
// Per-spin operations of Lagrangian spin tracking, shared verbatim by the CPU engine
// (lagrangian_engine.cpp) and its CUDA twin (gpu/simulation/src/cuda_lagrangian_engine.cu): move a spin
// with its cell's velocity, precess and relax it at its position, RF, spoiling, and the birth of fresh
// spins at the inflow faces. The schedule they run on (step entries, tissue factors, faces) is built once
// on the host (lagrangian_plan.hpp).
//
// Positions are a cell (ix, iy, iz) plus a float offset in [-0.5, 0.5) cells from its centre: a spin is
// in the cell it is stored in (no rounding to find it), and a slow spin near a wall keeps ~1e-7 cells of
// resolution wherever it is on the grid. Position arithmetic is correctly rounded without fused
// multiply-add on both sides (rn_mul, rn_add), so CPU and GPU move every spin to the same bits and agree
// on which spins leave the fluid; magnetization agrees to float rounding.
//
// Births are deterministic (no generator state): the jitter of spin `serial` of inflow face f is a
// counter-based hash (splitmix64, Steele et al. 2014) of (seed, face, serial), and face f has delivered
// floor(rate_f · t) spins by the time t [flow steps] (rate_f = speed · spins per cell), so which spins
// exist, where and when they are born, is known ahead of the run and identical on CPU and GPU.
#include <cmath>
#include <cstdint>

#include "mrwb/base/host_device.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"

namespace mrwb::lagrangian {

// One spin. weight = 0: dropped (left the fluid) or not yet born.
struct Spin {
  int ix, iy, iz;    // the cell it is in
  float fx, fy, fz;  // offset from that cell's centre [cells], each in [-0.5, 0.5)
  bloch::Mag m;
  float weight;  // its share of its cell's signal: 1 / spins per cell
  int tissue;    // row of the tissue factor table (PD, 1 − E1, E2)
  int mobile;    // 1: carried by the flow (a fluid spin of a moving phantom)
};

// A cell as the spins see it: the velocity on its lower face along each axis and the rise to its upper
// face [cells per flow step], and whether it is fluid (1) or not (0). The faces carry the Eulerian
// transport's face velocities (transport::face_velocity), and inside the cell each component is linear in
// its own coordinate between its two faces (Pollock 1988, semi-analytical particle tracking on a
// finite-volume flux field): a wall face carries none, so spins never cross a wall, and both models
// move magnetization with one velocity field — where its faces' fluxes do not balance, the spins bunch up
// as the cell's magnetization does.
struct alignas(16) CellFlow {
  float lo_x, d_x, lo_y, d_y;
  float lo_z, d_z, fluid, pad;
};


// PD and the relaxation factors of one tissue over one sub-step size (1 − E1 as −expm1(−dt/T1): see
// bloch_cell_ops.hpp).
struct alignas(16) TissueFactors {
  float PD, one_minus_E1, E2, pad;
};

// A face through which fresh blood enters: of fluid cell (ix, iy, iz), on its lower (side −1) or upper
// (side +1) end along `axis`, at `speed` cells per flow step; rate = speed · spins per cell.
struct Face {
  int ix, iy, iz, axis, side, tissue;
  double speed, rate;
};

// What the spins play, in order. Step: move h, precess and relax over the sub-step, move h again
// (Free intervals and dwells split into sub-steps of at most k_max_sub_step_cells of motion, the gradient moment
// applied at the sub-step's mid-point position); t_* count flow steps from the start (births).
enum EntryKind : int { k_step = 0, k_rf = 1, k_spoil = 2, k_record = 3 };
// A Step's phase at a spin in cell (ix, iy, iz), offset (fx, fy, fz), is c0 + cx·(ix + fx) + cy·(iy + fy) +
// cz·(iz + fz) + off·ΔB cycles. Split in two so the device needs no double arithmetic: the cell centre's part
// modulo one turn in 32-bit fixed point (q0 + qx·ix + qy·iy + qz·iz with unsigned wrap-around, turns in
// units of 2^-32: exact for integer ix, rounding 2^-33 turn per unit of q), the offset's in float.
struct alignas(16) Entry {
  // What a Step's spins read, first: the CUDA kernel loads these 48 bytes as three 16-byte vectors.
  std::uint32_t q0, qx, qy, qz;  // Step: frac(c0), frac(cx), frac(cy), frac(cz) in 2^-32 turns
  float cx, cy, cz;              // Step: the moment [cycles per cell] along each axis
  float off;                     // Step: gamma/(2 pi) · dt [cycles/T]
  float h_move;                  // Step: h as the moves take it (float)
  int kind;                      // EntryKind
  int factors;                   // Step: row block of the factor table (its sub-step size)
  int record;                    // Record: its ordinal among the records
  double h;                      // Step: each half move [flow steps]
  double t_start, t_mid, t_end;  // flow steps played before, after the first move, after the second
  float cos_flip, sin_flip, cos_phase, sin_phase;  // Rf
  int sample;                                      // Record: k-space sample (coil 0's index)
  int truth;                                       // Record: 1 at the truth sample
  int event;                                       // the program's event it belongs to (progress)
};

// Correctly rounded float and double products and sums, never contracted into a fused multiply-add
// (nvcc contracts by default; the x86-64 host compiler without -mfma does not).
#if defined(__CUDA_ARCH__)
MRWB_HD float rn_mul(float a, float b) { return __fmul_rn(a, b); }
MRWB_HD float rn_add(float a, float b) { return __fadd_rn(a, b); }
MRWB_HD double rn_mul(double a, double b) { return __dmul_rn(a, b); }
MRWB_HD double rn_add(double a, double b) { return __dadd_rn(a, b); }
#else
MRWB_HD float rn_mul(float a, float b) { return a * b; }
MRWB_HD float rn_add(float a, float b) { return a + b; }
MRWB_HD double rn_mul(double a, double b) { return a * b; }
MRWB_HD double rn_add(double a, double b) { return a + b; }
#endif

// Velocity at offset o in [-0.5, 0.5) between a lower face's lo and an upper face's lo + d.
MRWB_HD float velocity_at(float lo, float d, float o) { return rn_add(lo, rn_mul(rn_add(o, 0.5f), d)); }

// splitmix64 (Steele, Lea & Flood 2014): a counter-based generator, one 64-bit mix per draw.
MRWB_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// A uniform draw in (0, 1) keyed by (seed, stream, counter).
MRWB_HD double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  const std::uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter);
  return (static_cast<double>(h >> 11) + 0.5) * 0x1p-53;
}
constexpr std::uint64_t k_birth_stream = 1ull << 63;  // streams of the inflow faces (initial spins: the cell index)

// An offset in cells as stored: float, within [-0.5, 0.5) (rounding to float may reach 0.5).
MRWB_HD float to_offset(double v) {
  const float f = static_cast<float>(v);
  return f >= 0.5f ? 0.49999997f : f < -0.5f ? -0.5f : f;
}

// Spin `k` of the per_cell = s^d stratified spins of fluid cell (ix, iy, iz) (cell index i), jittered.
MRWB_HD Spin initial_spin(int ix, int iy, int iz, std::uint64_t i, int k, int s, bool three_d, std::uint64_t seed,
                          float PD, int tissue, float weight) {
  const int a = k % s, b = (k / s) % s, c = k / (s * s);
  Spin p{ix, iy, iz, 0.f, 0.f, 0.f, {0.f, 0.f, PD}, weight, tissue, 1};
  p.fx = to_offset(-0.5 + (a + uniform(seed, i, 3ull * k)) / s);
  p.fy = to_offset(-0.5 + (b + uniform(seed, i, 3ull * k + 1)) / s);
  if (three_d) p.fz = to_offset(-0.5 + (c + uniform(seed, i, 3ull * k + 2)) / s);
  return p;
}

// The initial spins of cell i at (ix, iy, iz), from out onwards: a mobile cell (a fluid cell of a moving
// phantom) gets per_cell = s^d stratified jittered spins, any other cell one spin at its centre that the flow
// does not carry (a still phantom is then the cell model exactly). Run per cell by the host for the CPU
// engine and by a kernel for the CUDA twin, so both start from the same spins.
MRWB_HD void cell_initial_spins(std::uint64_t i, int ix, int iy, int iz, bool mobile, int s, int per_cell, bool three_d,
                                std::uint64_t seed, float PD, int tissue, float weight, Spin* out) {
  if (!mobile) {
    *out = Spin{ix, iy, iz, 0.f, 0.f, 0.f, {0.f, 0.f, PD}, 1.f, tissue, 0};
    return;
  }
  for (int k = 0; k < per_cell; ++k) out[k] = initial_spin(ix, iy, iz, i, k, s, three_d, seed, PD, tissue, weight);
}

// Spin `serial` of face f (index `face`), born in a move of h flow steps: fully relaxed, anywhere across
// the face, within the depth speed·h the inflow has come in during that move.
MRWB_HD Spin born_spin(const Face& f, int face, std::uint64_t serial, double h, bool three_d, std::uint64_t seed,
                       float PD, float weight) {
  Spin p{f.ix, f.iy, f.iz, 0.f, 0.f, 0.f, {0.f, 0.f, PD}, weight, f.tissue, 1};
  float* o[3] = {&p.fx, &p.fy, &p.fz};
  const std::uint64_t stream = k_birth_stream | static_cast<std::uint64_t>(face);
  const double depth = rn_mul(f.speed, h);
  for (int a = 0; a < (three_d ? 3 : 2); ++a) {
    const double u = uniform(seed, stream, 3 * serial + a);
    *o[a] = a == f.axis ? to_offset(f.side * rn_add(0.5, -rn_mul(depth, u))) : to_offset(u - 0.5);
  }
  return p;
}

// Spins face f has delivered by time t [flow steps].
MRWB_HD std::int64_t delivered(const Face& f, double t) { return static_cast<std::int64_t>(std::floor(rn_mul(f.rate, t))); }

// Index of cell (ix, iy, iz) in the grid (iz·ny + iy)·nx + ix; 32-bit (build_plan refuses 2^31 cells or more).
MRWB_HD std::uint32_t cell_index(int ix, int iy, int iz, int nx, int ny) {
  return (static_cast<std::uint32_t>(iz) * static_cast<std::uint32_t>(ny) + static_cast<std::uint32_t>(iy)) *
             static_cast<std::uint32_t>(nx) +
         static_cast<std::uint32_t>(ix);
}

// Offset o moved by d (|d| <= 0.5): back into [-0.5, 0.5), the cell coordinate c following. Returns the
// cells crossed (-1, 0 or +1); without branches, so a warp whose spins cross and stay does not diverge.
MRWB_HD int shift(int& c, float& o, float d) {
  o = rn_add(o, d);
  const int k = static_cast<int>(o >= 0.5f) - static_cast<int>(o < -0.5f);
  o = rn_add(o, -static_cast<float>(k));  // o - 0 is o: a spin that stays keeps its bits
  c += k;
  return k;
}

// Moves a mobile spin h flow steps with the velocity at its position in the cell it is in (u: that cell's
// faces), one explicit step: h·|u| <= 0.5 keeps it short of a face with no flux. False when it has left
// the grid or the fluid (it is then dropped: an outflow); else u becomes the cell it is now in.
template <bool ThreeD>
MRWB_HD bool move(Spin& p, CellFlow& u, float h, const CellFlow* flow, int nx, int ny, int nz) {
  const float vx = velocity_at(u.lo_x, u.d_x, p.fx), vy = velocity_at(u.lo_y, u.d_y, p.fy);
  int crossed = shift(p.ix, p.fx, rn_mul(vx, h)) | shift(p.iy, p.fy, rn_mul(vy, h));
  if (ThreeD) crossed |= shift(p.iz, p.fz, rn_mul(velocity_at(u.lo_z, u.d_z, p.fz), h));
  if (!crossed) return true;  // most moves stay in their cell (h·|u| <= 0.5): u is still its faces
  if (p.ix < 0 || p.ix >= nx || p.iy < 0 || p.iy >= ny || p.iz < 0 || p.iz >= nz) return false;
  u = flow[cell_index(p.ix, p.iy, p.iz, nx, ny)];
  return u.fluid != 0.f;
}

// A phase in cycles as a 32-bit fixed-point fraction of a turn (Entry's q0 .. qz).
inline std::uint32_t turn_fixed_point(double cycles) {
  const double frac = cycles - std::floor(cycles);  // [0, 1]
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(std::llround(std::ldexp(frac, 32))) & 0xffffffffull);
}

// Precession over a Step at the spin's position (gradient moment and off-resonance dB_T [T] of its
// cell) and relaxation of its own tissue (t: its factors over this sub-step). ThreeD = false or
// OffRes = false drop a term that is exactly zero there (Z = 0 in 2-D, dB_T = 0): the same bits.
template <bool ThreeD = true, bool OffRes = true>
MRWB_HD void precess(Spin& p, const Entry& e, float dB_T, const TissueFactors& t) {
  std::uint32_t q = e.q0 + e.qx * static_cast<std::uint32_t>(p.ix) + e.qy * static_cast<std::uint32_t>(p.iy);
  if (ThreeD) q += e.qz * static_cast<std::uint32_t>(p.iz);
  float cycles = static_cast<float>(static_cast<std::int32_t>(q)) * 0x1p-32f + e.cx * p.fx + e.cy * p.fy;  // the centre's in [-0.5, 0.5)
  if (ThreeD) cycles += e.cz * p.fz;
  if (OffRes) cycles += e.off * dB_T;
  float c, s;
  bloch::turn_fraction(cycles - rintf(cycles), c, s);
  bloch::precess_relax(p.m, t.PD, t.one_minus_E1, t.E2, c, s);
}

MRWB_HD void rf(Spin& p, const Entry& e) { bloch::rf_rotate(p.m, e.cos_flip, e.sin_flip, e.cos_phase, e.sin_phase); }

}  // namespace mrwb::lagrangian
