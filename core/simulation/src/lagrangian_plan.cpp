// The host-built schedule of a Lagrangian run (lagrangian_plan.hpp).
#include "mrwb/simulation/internal/lagrangian_plan.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/flow/face_flux.hpp"

namespace mrwb::lagrangian {
namespace {

constexpr std::uint8_t k_fluid = static_cast<std::uint8_t>(CellType::Fluid);

std::uint32_t bits(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

Plan build_plan(const CellPhantom& ph, const SequenceProgram& prog, int spins_per_axis, std::uint64_t seed) {
  Plan P;
  const std::size_t n = ph.size();
  if (n >= (std::size_t{1} << 31))
    throw InputError("simulate: " + std::to_string(n) + " cells exceed the Lagrangian engine's 2^31; use coarser cells");
  P.moving = phantom_moves(ph);
  P.three_d = ph.nz > 1;
  P.seed = seed;
  const int s = std::max(1, spins_per_axis);
  P.per_axis = s;
  P.per_cell = P.three_d ? s * s * s : s * s;
  auto fluid = [&](std::size_t i) { return ph.type[i] == k_fluid; };
  auto velocity = [&](std::size_t i, int axis) -> double {
    const std::vector<float>& u = axis == 0 ? ph.ux : axis == 1 ? ph.uy : ph.uz;
    return u.size() == n ? u[i] : 0.0;
  };

  // Distinct tissues (PD, T1, T2) and the spins: a stratified jittered set per fluid cell of a moving
  // phantom, one at the centre of every other cell with PD != 0 (still phantoms: the cell model exactly).
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, int> tissue_of;
  std::vector<float> PD, T1, T2;
  std::vector<int>& cell_tissue = P.cell_tissue;
  std::vector<std::uint32_t>& first = P.spin_first;
  cell_tissue.assign(n, -1);
  first.assign(n + 1, 0);
  auto last_key = std::make_tuple(~0u, ~0u, ~0u);
  int last = -1;
  for (std::size_t i = 0; i < n; ++i) {
    first[i + 1] = first[i];
    if (ph.PD[i] == 0.f) continue;
    const auto key = std::make_tuple(bits(ph.PD[i]), bits(ph.T1_s[i]), bits(ph.T2_s[i]));
    if (key != last_key) {  // neighbours mostly share a tissue: one map look-up per run of them
      auto [it, fresh] = tissue_of.try_emplace(key, static_cast<int>(PD.size()));
      if (fresh) {
        PD.push_back(ph.PD[i]);
        T1.push_back(ph.T1_s[i]);
        T2.push_back(ph.T2_s[i]);
      }
      last_key = key;
      last = it->second;
    }
    cell_tissue[i] = last;
    first[i + 1] += P.moving && fluid(i) ? P.per_cell : 1;
    if (first[i + 1] > std::uint32_t{1} << 30)
      throw InputError("simulate: more than 2^30 spins for the Lagrangian engine; use fewer spins per cell or coarser cells");
  }
  P.tissues = static_cast<int>(PD.size());
  if (!ph.dB_T.empty() && std::any_of(ph.dB_T.begin(), ph.dB_T.end(), [](float v) { return v != 0.f; })) P.dB_T = ph.dB_T;

  // Flow table and inflow faces: where the Eulerian transport lets fresh, fully relaxed blood in (grid
  // edges, open vessel ends), with the velocity pointing into the cell.
  double max_speed = 0;
  if (P.moving) {
    // Each fluid cell's face velocities as the Eulerian transport's donor_cell_gather takes them: shared
    // with a fluid neighbour, the cell's own at an open face (grid edge, vessel end), none at a wall.
    const bool ends = ph.open_end.size() == n;
    P.flow.assign(n, CellFlow{});
    for_each_range(n, range_parts(n), [&](int, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (!fluid(i)) continue;
        const int c[3] = {static_cast<int>(i % ph.nx), static_cast<int>(i / ph.nx % ph.ny), static_cast<int>(i / ph.slice_size())};
        float lo[3] = {0.f, 0.f, 0.f}, hi[3] = {0.f, 0.f, 0.f};
        for (int axis = 0; axis < (P.three_d ? 3 : 2); ++axis) {
          const float ui = static_cast<float>(velocity(i, axis));
          for (int side : {-1, 1}) {
            int j[3] = {c[0], c[1], c[2]};
            j[axis] += side;
            const bool inside = j[0] >= 0 && j[0] < ph.nx && j[1] >= 0 && j[1] < ph.ny && j[2] >= 0 && j[2] < ph.nz;
            const std::size_t k = inside ? cell_index(j[0], j[1], j[2], ph.nx, ph.ny) : 0;
            float v = 0.f;
            if (inside && fluid(k)) {
              const float uj = static_cast<float>(velocity(k, axis));
              v = side > 0 ? face_velocity(ui, uj) : face_velocity(uj, ui);
            } else if (!inside || (ends && ph.open_end[i])) {
              v = ui;
            }
            (side > 0 ? hi : lo)[axis] = v;
          }
        }
        P.flow[i] = CellFlow{lo[0], hi[0] - lo[0], lo[1], hi[1] - lo[1], lo[2], hi[2] - lo[2], 1.f, 0.f};
      }
    });
    for (int axis = 0; axis < 3; ++axis) {
      const std::vector<float>& u = axis == 0 ? ph.ux : axis == 1 ? ph.uy : ph.uz;
      for (float v : u) max_speed = std::max(max_speed, double(std::abs(v)));
    }
    for (int iz = 0; iz < ph.nz; ++iz)
      for (int iy = 0; iy < ph.ny; ++iy)
        for (int ix = 0; ix < ph.nx; ++ix) {
          const std::size_t i = cell_index(ix, iy, iz, ph.nx, ph.ny);
          if (!fluid(i) || ph.PD[i] == 0.f) continue;
          for (int axis = 0; axis < (P.three_d ? 3 : 2); ++axis)
            for (int side : {-1, 1}) {
              int j[3] = {ix, iy, iz};
              j[axis] += side;
              const bool inside = j[0] >= 0 && j[0] < ph.nx && j[1] >= 0 && j[1] < ph.ny && j[2] >= 0 && j[2] < ph.nz;
              const bool open =
                  !inside || (!fluid(cell_index(j[0], j[1], j[2], ph.nx, ph.ny)) && ph.open_end.size() == n && ph.open_end[i]);
              const double u = velocity(i, axis);
              if (open && u * side < 0)
                P.faces.push_back(Face{ix, iy, iz, axis, side, cell_tissue[i], std::abs(u), std::abs(u) * P.per_cell});
            }
        }
  }

  // The program as entries. A Free interval or a dwell is split into sub-steps that move a spin at most
  // k_max_sub_step_cells; each applies its share of the gradient moment at its mid-point position.
  std::map<double, int> rows;  // sub-step size -> factor row
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  double t = 0;
  int readout = 0, records = 0;
  auto plain = [&](int kind, int event) {
    Entry E{};
    E.kind = kind;
    E.event = event;
    E.t_start = E.t_mid = E.t_end = t;
    return E;
  };
  auto interval = [&](double dt, double dkx, double dky, double dkz, int event) {
    const double steps = P.moving ? dt / ph.flow_dt_s : 0;
    const int k = P.moving ? std::max(1, static_cast<int>(std::ceil(max_speed * steps / k_max_sub_step_cells))) : 1;
    const double sub = dt / k;
    const auto [row, fresh] = rows.try_emplace(sub, static_cast<int>(rows.size()));
    Entry E = plain(k_step, event);
    E.factors = row->second;
    E.h = 0.5 * steps / k;
    E.h_move = static_cast<float>(E.h);
    const double ax = dkx / k, ay = dky / k, az = dkz / k;
    const double cx = ax * ph.cell_size_m, cy = ay * ph.cell_size_m, cz = az * ph.cell_size_m;
    E.q0 = turn_fixed_point(ax * ph.x0_m + ay * ph.y0_m + az * ph.z0_m);
    E.qx = turn_fixed_point(cx);
    E.qy = turn_fixed_point(cy);
    E.qz = turn_fixed_point(cz);
    E.cx = static_cast<float>(cx);
    E.cy = static_cast<float>(cy);
    E.cz = static_cast<float>(cz);
    E.off = static_cast<float>(gamma_cycles * sub);
    for (int j = 0; j < k; ++j) {
      E.t_start = t;
      E.t_mid = t + E.h;
      E.t_end = E.t_mid + E.h;
      t = E.t_end;
      P.entries.push_back(E);
    }
    P.sub_steps += k;
  };
  for (std::size_t ei = 0; ei < prog.events.size(); ++ei) {
    const SeqEvent& ev = prog.events[ei];
    const int event = static_cast<int>(ei);
    switch (ev.kind) {
      case EventKind::Rf: {
        Entry E = plain(k_rf, event);
        E.cos_flip = static_cast<float>(std::cos(ev.flip_rad));
        E.sin_flip = static_cast<float>(std::sin(ev.flip_rad));
        E.cos_phase = static_cast<float>(std::cos(ev.phase_rad));
        E.sin_phase = static_cast<float>(std::sin(ev.phase_rad));
        P.entries.push_back(E);
        break;
      }
      case EventKind::Spoil:
        P.entries.push_back(plain(k_spoil, event));
        break;
      case EventKind::Free:
        interval(ev.dt_s, ev.dk_x, ev.dk_y, ev.dk_z, event);
        break;
      case EventKind::Readout:
        for (int j = 0; j < ev.n_samples; ++j) {
          Entry E = plain(k_record, event);
          E.sample = readout * prog.nx + j;
          E.truth = j == ev.truth_sample;
          E.record = records++;
          P.record_sample.push_back(E.sample);
          if (E.truth) P.truth_record = E.record;
          P.entries.push_back(E);
          interval(ev.dt_s, ev.dk_x, ev.dk_y, ev.dk_z, event);
        }
        ++readout;
        break;
    }
    if (P.entries.size() > static_cast<std::size_t>(INT_MAX / 2))
      throw InputError("simulate: more than 2^30 sub-steps for the Lagrangian engine; use a shorter program or coarser cells");
  }

  // Relaxation factors per sub-step size and tissue (as the cell engine: 1 − E1 = −expm1(−dt/T1)).
  if (static_cast<double>(rows.size()) * P.tissues > double(1 << 26))
    throw InputError("simulate: " + std::to_string(P.tissues) + " distinct tissues × " + std::to_string(rows.size()) +
                     " sub-step sizes exceed the Lagrangian engine's 2^26 factors; use fewer tissue values");
  P.factors.resize(rows.size() * P.tissues);
  for (const auto& [sub, row] : rows)
    for (int k = 0; k < P.tissues; ++k)
      P.factors[static_cast<std::size_t>(row) * P.tissues + k] =
          TissueFactors{PD[k], T1[k] > 0 ? static_cast<float>(-std::expm1(-sub / T1[k])) : 0.f,
                        T2[k] > 0 ? static_cast<float>(std::exp(-sub / T2[k])) : 1.f, 0.f};
  return P;
}

std::vector<Spin> initial_spins(const Plan& P, const CellPhantom& ph) {
  const std::size_t n = ph.size();
  std::vector<Spin> spins(P.spin_count());
  const float weight = 1.f / static_cast<float>(P.per_cell);
  // In parallel over ranges of cells: millions of spins, each three hashes.
  for_each_range(n, std::max(range_parts(n), range_parts(spins.size())), [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (P.cell_tissue[i] < 0) continue;
      const int ix = static_cast<int>(i % ph.nx), iy = static_cast<int>(i / ph.nx % ph.ny), iz = static_cast<int>(i / ph.slice_size());
      cell_initial_spins(i, ix, iy, iz, P.moving && ph.type[i] == k_fluid, P.per_axis, P.per_cell, P.three_d, P.seed,
                         ph.PD[i], P.cell_tissue[i], weight, spins.data() + P.spin_first[i]);
    }
  });
  return spins;
}

}  // namespace mrwb::lagrangian
