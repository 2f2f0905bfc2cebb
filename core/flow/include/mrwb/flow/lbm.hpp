#pragma once
// Lattice-Boltzmann flow solver (Jurczuk et al. 2016 take their velocity field from an LBM, Jurczuk et al. 2013):
// D2Q9 and D3Q19, BGK or MRT collision, pull streaming, halfway bounce-back at solid nodes (no-slip walls
// half a cell outside the last fluid node), equilibrium velocity inlets and pressure (density) outlets,
// run until the relative change of the velocity over `check_every` steps falls below `tolerance`.
// Everything is in lattice units: cell = 1, step = 1, c_s^2 = 1/3, nu = (tau - 1/2) / 3.
// The CPU reference is here; gpu/ holds the CUDA twin, built from the same per-node code
// (lbm_node_ops.hpp) and stepped by the same time loop (lbm_time_loop).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mrwb/base/progress.hpp"

namespace mrwb {

enum class LbmNode : std::uint8_t { Solid = 0, Fluid = 1, Inlet = 2, Outlet = 3 };

struct LbmDomain {
  int nx = 1, ny = 1, nz = 1;           // nz = 1: D2Q9; nz > 1: D3Q19
  bool periodic[3] = {false, false, false};  // otherwise the domain's edge is a wall
  std::vector<std::uint8_t> node;       // LbmNode per node, index x + nx (y + ny z)
  std::vector<float> inlet_u;           // 3 per node (ux, uy, uz) [cells/step], read on Inlet nodes
  std::size_t size() const { return static_cast<std::size_t>(nx) * ny * nz; }
  int q() const { return nz > 1 ? 19 : 9; }
};

enum class LbmCollision { Bgk, Mrt };

struct LbmParams {
  double tau = 0.8;           // relaxation time of the stress (viscosity nu = (tau - 1/2) / 3); in [0.51, 2]
  LbmCollision collision = LbmCollision::Bgk;
  // MRT rates of the non-hydrodynamic moments {s_e, s_eps, s_q, s_pi, s_m}, each in (0, 2); 0 takes the
  // default of lbm_mrt_rates. Setting all five to 1 / tau makes MRT equal to BGK.
  double mrt_rates[5] = {0, 0, 0, 0, 0};
  int max_steps = 20000;
  double tolerance = 1e-5;    // on the relative velocity change per check interval (float32 floor ~1e-6)
  int check_every = 200;      // steps between residual checks (also the progress/cancel interval)
  double rho_outlet = 1.0;    // outlet density (pressure p = rho / 3)
};

struct LbmResult {
  std::vector<float> rho, ux, uy, uz;  // per node; zero on solid nodes
  int steps = 0;
  double residual = 0;       // last relative velocity change (sqrt(sum |du|^2) / sqrt(sum |u|^2))
  bool converged = false;
  std::string backend;       // "cpu" or "cuda"
};

using LbmRunner = std::function<LbmResult(const LbmDomain&, const LbmParams&, const ProgressFn&, const CancelToken&)>;

namespace lbm {
struct View;
}

// The MRT rates used for `params` on a lattice of `q` velocities (9 or 19), each given rate or its default:
// s_e, s_eps (and s_pi, s_m for D3Q19) as published (Lallemand & Luo 2000 for D2Q9; d'Humieres et al.
// 2002 for D3Q19); s_q from Lambda = (1/s_nu - 1/2)(1/s_q - 1/2) = 3/16, which puts the halfway
// bounce-back wall exactly half a cell outside the last fluid node in Poiseuille flow for every tau
// (Ginzburg & d'Humieres 2003), so the channel profile does not drift with the viscosity.
void lbm_mrt_rates(int q, const LbmParams& params, double (&rates)[5]);
// The per-node view of `domain` for both backends: grid, boundaries and collision (omega, rho_outlet, MRT
// rates) from `params`, node flags and inlet velocities at `node` / `inlet_u` (host or device memory).
// The distribution and macro pointers are left null for the caller's loop to set.
lbm::View lbm_make_view(const LbmDomain& domain, const LbmParams& params, const std::uint8_t* node,
                        const float* inlet_u);
std::string lbm_collision_name(LbmCollision collision);

// Bytes the solver holds for `domain` (two distribution buffers plus fields).
std::size_t lbm_memory_bytes(const LbmDomain& domain);
// Throws InputError (naming `where`) for a malformed domain or parameters out of range.
void validate_lbm(const LbmDomain& domain, const LbmParams& params, const std::string& where);

LbmResult lbm_d2q9_cpu(const LbmDomain& domain, const LbmParams& params, const ProgressFn& progress = {},
                       const CancelToken& cancel = {});
LbmResult lbm_d3q19_cpu(const LbmDomain& domain, const LbmParams& params, const ProgressFn& progress = {},
                        const CancelToken& cancel = {});
// D2Q9 when nz == 1, else D3Q19.
LbmResult lbm_run_cpu(const LbmDomain& domain, const LbmParams& params, const ProgressFn& progress = {},
                      const CancelToken& cancel = {});

// Relative change between two velocity snapshots over the non-solid nodes (shared by both backends);
// +infinity when a velocity is not finite (the run diverged).
double lbm_relative_change(const LbmDomain& domain, const std::vector<float>* prev, const std::vector<float>* cur);
// Throws InputError naming the step when `residual` says the run diverged (called by lbm_time_loop).
void lbm_check_diverged(double residual, int steps, double tau);

// One time step of a backend: advances the distributions by one step and, when `write_macro` is true,
// leaves rho and u of the new state in `result` (rho, ux, uy, uz, already sized to the domain).
using LbmStep = std::function<void(bool write_macro, LbmResult& result)>;
// The time loop both backends share (so they stop at the same step): `step` until `max_steps`, with a
// residual check, progress and cancel every `check_every` steps; stops early once converged. `q` (9 or 19)
// names the progress stage; `backend` goes to the result.
LbmResult lbm_time_loop(const LbmDomain& domain, const LbmParams& params, int q, const std::string& backend,
                        const LbmStep& step, const ProgressFn& progress, const CancelToken& cancel);

}  // namespace mrwb
