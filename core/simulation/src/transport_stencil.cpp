// Per-cell transport stencils of the fluid cells (transport_stencil.hpp) and the CPU twin of the CUDA
// engine's per-step stencil kernel.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "moving_twin_steps.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/flow/face_flux.hpp"
#include "mrwb/simulation/internal/moving_step_ops.hpp"
#include "mrwb/simulation/internal/transport_stencil.hpp"

namespace mrwb {

namespace {

// The limited correction's faces of every fluid cell (LimitedFace): faces to a fluid neighbour with a flux,
// whose UU is a fluid cell or fresh inflow through an open face (transport_limited_ops.hpp's rules).
void add_limited_faces(const CellPhantom& ph, std::span<const std::uint32_t> fluid, std::span<const std::int32_t> face,
                       int faces, FluidStencil& s) {
  const std::size_t n = ph.size(), nf = fluid.size();
  const float* u_axis[3] = {ph.ux.data(), ph.uy.data(), ph.uz.size() == n ? ph.uz.data() : nullptr};
  std::vector<LimitedFace> list(nf * faces);
  std::vector<int> count(nf, 0);
  for (std::size_t r = 0; r < nf; ++r) {
    const std::size_t i = fluid[r];
    for (int f = 0; f < faces; ++f) {
      const std::int32_t j = face[r * faces + f];
      if (j < 0) continue;
      const float* u = u_axis[f / 2];
      const float dir = (f & 1) ? -1.f : 1.f;
      const float ui = u ? u[i] : 0.f, uj = u ? u[fluid[static_cast<std::size_t>(j)]] : 0.f;
      const float c = face_velocity(dir > 0 ? ui : uj, dir > 0 ? uj : ui);  // as transport_cell_ops.hpp's gather
      const float out = c * dir;
      if (out == 0.f) continue;
      LimitedFace F;
      F.near = j | (f << k_face_shift);
      F.coef = out;
      // UU: across the cell's opposite face (outflow), or beyond the neighbour across this face (inflow).
      const std::size_t up = out > 0.f ? r : static_cast<std::size_t>(j);
      const std::int32_t beyond = face[up * faces + (out > 0.f ? (f ^ 1) : f)];
      const float u_up = u ? u[fluid[up]] : 0.f;
      if (beyond >= 0) {
        F.far = beyond;
      } else if (beyond == k_face_open && u_up * (out > 0.f ? dir : -dir) > 0.f) {
        F.far = k_far_fresh;  // fresh spins enter U through that face
        F.ghost_pd = ph.PD[fluid[up]];
      } else {
        continue;  // a wall or an outflow: no correction
      }
      list[r * faces + count[r]++] = F;
    }
  }
  s.limited_slots = nf ? *std::max_element(count.begin(), count.end()) : 0;
  if (s.limited_slots > fluid::k_max_limited_slots) throw std::logic_error("add_limited_faces: more faces than a cell has");
  s.limited.assign(static_cast<std::size_t>(s.limited_slots) * nf, LimitedFace{});
  for (std::size_t r = 0; r < nf; ++r)
    for (int k = 0; k < count[r]; ++k) s.limited[k * nf + r] = list[r * faces + k];
}

}  // namespace

FluidStencil build_fluid_stencil(const CellPhantom& ph, std::span<const std::uint32_t> fluid, bool second_order, int parts) {
  const std::size_t n = ph.size(), nf = fluid.size();
  if (ph.ux.size() != n || ph.uy.size() != n) throw std::invalid_argument("build_fluid_stencil: no velocity field");
  const int faces = ph.nz > 1 ? 6 : 4;
  if (nf > static_cast<std::size_t>(k_rank_mask))
    throw InputError("simulate: " + std::to_string(nf) + " moving cells; the transport stencil holds at most " +
                     std::to_string(k_rank_mask) + " (use coarser cells)");
  if (parts <= 0) parts = range_parts(nf);
  const UninitialisedVector<std::int32_t> face = fluid_face_ranks(ph, fluid, parts);
  const float* u_axis[3] = {ph.ux.data(), ph.uy.data(), ph.uz.size() == n ? ph.uz.data() : nullptr};
  FluidStencil s;
  s.nf = nf;
  // Two sweeps over each cell's faces, the cells in ranges on threads: the first counts a cell's inflow faces
  // (more than 4 only in a converging 3-D flow) and sums its outflow and fresh inflow, the second writes the
  // inflow faces straight into their slots. No per-face scratch arrays, and every array is first written by the
  // thread that fills it: on a GPU rank's 2.7 M fluid cells the page faults cost more than the sweeps.
  auto sweep = [&](std::size_t r, auto&& on_face) {
    const std::size_t i = fluid[r];
    for (int f = 0; f < faces; ++f) {
      const std::int32_t code = face[r * faces + f];
      if (code == k_face_wall) continue;
      const float* u = u_axis[f / 2];
      const float dir = (f & 1) ? -1.f : 1.f;
      const float ui = u ? u[i] : 0.f;
      float c;
      if (code >= 0) {
        const float uj = u ? u[fluid[static_cast<std::size_t>(code)]] : 0.f;
        c = face_velocity(dir > 0 ? ui : uj, dir > 0 ? uj : ui);  // as transport_cell_ops.hpp's gather
      } else {
        c = ui;  // open face
      }
      on_face(i, f, code, c * dir);  // out > 0: leaves cell i through this face; < 0: enters it
    }
  };
  s.out.resize(nf);
  s.fresh.resize(nf);
  UninitialisedVector<std::uint8_t> n_in(nf);
  for_each_range(nf, parts, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      float out_sum = 0.f, fresh = 0.f;
      std::uint8_t ins = 0;
      sweep(r, [&](std::size_t i, int, std::int32_t code, float out) {
        if (out > 0.f) {
          out_sum += out;
        } else if (out < 0.f) {
          if (code >= 0)
            ++ins;
          else
            fresh += -out * ph.PD[i];
        }
      });
      s.out[r] = out_sum;
      s.fresh[r] = fresh;
      n_in[r] = ins;
    }
  });
  s.in_slots = nf ? *std::max_element(n_in.begin(), n_in.end()) : 0;
  s.inflow.resize(static_cast<std::size_t>(s.in_slots) * nf);
  for_each_range(nf, parts, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      int k = 0;
      sweep(r, [&](std::size_t, int f, std::int32_t code, float out) {
        if (out < 0.f && code >= 0) s.inflow[k++ * nf + r] = {code | (f << k_face_shift), -out};
      });
      for (; k < s.in_slots; ++k) s.inflow[k * nf + r] = FluidInflow{};
    }
  });
  if (second_order) add_limited_faces(ph, fluid, face, faces, s);
  return s;
}

namespace {

void run_stencil(const CellPhantom& ph, std::span<const std::uint32_t> fluid, const FluidStencil& st,
                 std::span<const FluidStep> table, std::span<const FrameStep> frames,
                 std::span<const std::complex<float>> coil_sens, int ncoils,
                 std::size_t per_coil, std::span<float> Mx, std::span<float> My, std::span<float> Mz,
                 std::span<std::complex<double>> samples, std::span<std::complex<float>> cell_truth) {
  const std::size_t nf = fluid.size(), n = ph.size();
  std::vector<float> m[2][3];
  for (int b = 0; b < 2; ++b)
    for (auto& v : m[b]) v.resize(nf);
  std::vector<float> r1(nf), r2(nf);
  std::vector<double> x(nf), y(nf), z(nf);
  for (std::size_t r = 0; r < nf; ++r) {
    const std::uint32_t i = fluid[r];
    m[0][0][r] = Mx[i];
    m[0][1][r] = My[i];
    m[0][2][r] = Mz[i];
    r1[r] = fluid::relaxation_rate(ph.T1_s[i]);
    r2[r] = fluid::relaxation_rate(ph.T2_s[i]);
    const std::uint32_t row = i / static_cast<std::uint32_t>(ph.nx);
    x[r] = ph.x0_m + static_cast<int>(i - row * static_cast<std::uint32_t>(ph.nx)) * ph.cell_size_m;
    y[r] = ph.y0_m + static_cast<int>(row % static_cast<std::uint32_t>(ph.ny)) * ph.cell_size_m;
    z[r] = ph.z0_m + static_cast<int>(row / static_cast<std::uint32_t>(ph.ny)) * ph.cell_size_m;
  }
  const bool frame = !frames.empty();
  std::vector<float> u[3];  // velocity per rank: the frame's turn by motion
  if (frame)
    for (int a = 0; a < 3; ++a) {
      const std::vector<float>& grid = a == 0 ? ph.ux : a == 1 ? ph.uy : ph.uz;
      u[a].assign(nf, 0.f);
      if (grid.size() == n)
        for (std::size_t r = 0; r < nf; ++r) u[a][r] = grid[fluid[r]];
    }
  int cur = 0;
  for (std::size_t k = 0; k < table.size(); ++k) {
    const FluidStep& S = table[k];
    float *ax = m[cur][0].data(), *ay = m[cur][1].data(), *az = m[cur][2].data();
    fluid::apply_op_to(S, nf, ax, ay, az);
    if (S.sample >= 0) fluid::add_signal(coil_sens, ncoils, n, per_coil, S.sample, ax, ay, fluid.data(), nf, samples);
    if (S.truth)
      for (std::size_t r = 0; r < nf; ++r) cell_truth[fluid[r]] = {ax[r], ay[r]};
    float *bx = m[cur ^ 1][0].data(), *by = m[cur ^ 1][1].data(), *bz = m[cur ^ 1][2].data();
    for (std::size_t r = 0; r < nf; ++r) {
      float fresh_z = 0.f;
      const auto t = fluid::stencil_transport(st, r, ax, ay, az, S.scale, &fresh_z, frame ? frames[k].face_turn : nullptr);
      bloch::Mag v{t.x, t.y, t.z};
      if (frame) {
        float c, s;
        fluid::frame_motion_turn(frames[k], u[0][r], u[1][r], u[2][r], S.scale, &c, &s);
        v = {t.x * c - t.y * s, t.x * s + t.y * c, t.z};
      }
      const std::uint32_t i = fluid[r];
      fluid::fluid_bloch(v, ph.PD[i], r1[r], r2[r], ph.dB_T[i], x[r], y[r], z[r], S);
      bx[r] = v.Mx;
      by[r] = v.My;
      bz[r] = v.Mz;
    }
    cur ^= 1;
  }
  for (std::size_t r = 0; r < nf; ++r) {
    Mx[fluid[r]] = m[cur][0][r];
    My[fluid[r]] = m[cur][1][r];
    Mz[fluid[r]] = m[cur][2][r];
  }
}

}  // namespace

void run_fluid_stencil_cpu(const CellPhantom& ph, std::span<const std::uint32_t> fluid, const FluidStencil& stencil,
                           std::span<const FluidStep> table, std::span<const FrameStep> frames,
                           std::span<const std::complex<float>> coil_sens, int ncoils, std::size_t per_coil,
                           std::span<float> Mx, std::span<float> My, std::span<float> Mz,
                           std::span<std::complex<double>> samples, std::span<std::complex<float>> cell_truth) {
  if (stencil.nf != fluid.size()) throw std::invalid_argument("run_fluid_stencil_cpu: stencil of another fluid list");
  if (!frames.empty() && frames.size() != table.size())
    throw std::invalid_argument("run_fluid_stencil_cpu: frame table of another step table");
  run_stencil(ph, fluid, stencil, table, frames, coil_sens, ncoils, per_coil, Mx, My, Mz, samples, cell_truth);
}

}  // namespace mrwb
