// Lagrangian spin tracking on the CPU (lagrangian_engine.hpp). Single-threaded: a reference, not a fast path.
#include "mrwb/simulation/lagrangian_engine.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "mrwb/simulation/bloch_cell_ops.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/tr_progress.hpp"

namespace mrwb {
namespace {

constexpr std::uint8_t k_fluid = static_cast<std::uint8_t>(CellType::Fluid);

struct Spin {
  double x, y, z;  // position in cell units: cell (ix, iy, iz) is centred on (ix, iy, iz)
  bloch::Mag m;
  float PD, T1_s, T2_s;  // of the tissue or blood it carries
  float weight;          // its share of a cell: 1 / spins per cell
};

// A face through which fresh blood enters: of fluid cell (ix, iy, iz), on its lower (side −1) or upper
// (side +1) end along `axis`, at `speed` cells per flow step.
struct Inflow {
  int ix, iy, iz, axis, side;
  double speed;
  double owed = 0;  // spins due, fractional part carried over
};

}  // namespace

LagrangianCpuEngine::LagrangianCpuEngine(int spins_per_axis, unsigned seed)
    : spins_per_axis_(std::max(1, spins_per_axis)), seed_(seed) {}

void LagrangianCpuEngine::run(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                              std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                              const ProgressFn& progress, const CancelToken& cancel) {
  const std::size_t n = ph.size();
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  if (samples.size() != per_coil * coils.ncoils || cell_truth.size() != n)
    throw std::invalid_argument("LagrangianCpuEngine::run: sample or truth buffer of the wrong size");
  std::fill(samples.begin(), samples.end(), std::complex<float>{});
  std::fill(cell_truth.begin(), cell_truth.end(), std::complex<float>{});
  const bool moving = phantom_moves(ph);
  const bool three_d = ph.nz > 1;
  const int s = spins_per_axis_;
  const int per_fluid = three_d ? s * s * s : s * s;
  std::mt19937 rng(seed_);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  auto index = [&](int ix, int iy, int iz) { return (static_cast<std::size_t>(iz) * ph.ny + iy) * ph.nx + ix; };
  auto fluid = [&](std::size_t i) { return ph.type[i] == k_fluid; };
  auto velocity = [&](std::size_t i, int axis) -> double {
    const std::vector<float>& u = axis == 0 ? ph.ux : axis == 1 ? ph.uy : ph.uz;
    return u.size() == n ? u[i] : 0.0;
  };

  // Spins: a stratified jittered set per fluid cell of a moving phantom, one at the centre of every
  // other cell (still phantoms: the cell model exactly).
  std::vector<Spin> spins;
  for (int iz = 0; iz < ph.nz; ++iz)
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::size_t i = index(ix, iy, iz);
        if (ph.PD[i] == 0.f) continue;
        const Spin centre{double(ix), double(iy), double(iz), {0.f, 0.f, ph.PD[i]}, ph.PD[i], ph.T1_s[i], ph.T2_s[i], 1.f};
        if (!(moving && fluid(i))) {
          spins.push_back(centre);
          continue;
        }
        for (int c = 0; c < (three_d ? s : 1); ++c)
          for (int b = 0; b < s; ++b)
            for (int a = 0; a < s; ++a) {
              Spin p = centre;
              p.x = ix - 0.5 + (a + uniform(rng)) / s;
              p.y = iy - 0.5 + (b + uniform(rng)) / s;
              if (three_d) p.z = iz - 0.5 + (c + uniform(rng)) / s;
              p.weight = 1.f / static_cast<float>(per_fluid);
              spins.push_back(p);
            }
      }

  // Inflow faces: where the Eulerian transport lets fresh, fully relaxed blood in (grid edges, open vessel
  // ends), with the velocity pointing into the cell.
  std::vector<Inflow> inflows;
  if (moving)
    for (int iz = 0; iz < ph.nz; ++iz)
      for (int iy = 0; iy < ph.ny; ++iy)
        for (int ix = 0; ix < ph.nx; ++ix) {
          const std::size_t i = index(ix, iy, iz);
          if (!fluid(i)) continue;
          for (int axis = 0; axis < (three_d ? 3 : 2); ++axis)
            for (int side : {-1, 1}) {
              int j[3] = {ix, iy, iz};
              j[axis] += side;
              const bool inside = j[0] >= 0 && j[0] < ph.nx && j[1] >= 0 && j[1] < ph.ny && j[2] >= 0 && j[2] < ph.nz;
              const bool open = !inside || (!fluid(index(j[0], j[1], j[2])) && ph.open_end.size() == n && ph.open_end[i]);
              const double u = velocity(i, axis);
              if (open && u * side < 0) inflows.push_back({ix, iy, iz, axis, side, std::abs(u)});
            }
        }

  auto cell_of = [&](const Spin& p, std::size_t& i) {
    const long ix = std::lround(p.x), iy = std::lround(p.y), iz = std::lround(p.z);
    if (ix < 0 || ix >= ph.nx || iy < 0 || iy >= ph.ny || iz < 0 || iz >= ph.nz) return false;
    i = index(static_cast<int>(ix), static_cast<int>(iy), static_cast<int>(iz));
    return true;
  };
  // Moves the fluid spins for `steps` flow steps with their cell's velocity; drops those that leave the
  // fluid; lets fresh spins in through the inflow faces.
  auto move = [&](double steps) {
    std::size_t kept = 0;
    for (Spin& p : spins) {
      std::size_t i;
      bool alive = true;
      if (cell_of(p, i) && fluid(i)) {
        p.x += velocity(i, 0) * steps;
        p.y += velocity(i, 1) * steps;
        if (three_d) p.z += velocity(i, 2) * steps;
        alive = cell_of(p, i) && fluid(i);
      }
      if (alive) spins[kept++] = p;
    }
    spins.resize(kept);
    for (Inflow& f : inflows) {
      const double depth = f.speed * steps;  // how far this step's inflow has come in
      f.owed += depth * per_fluid;
      const std::size_t i = index(f.ix, f.iy, f.iz);
      for (; f.owed >= 1; f.owed -= 1) {
        Spin p{double(f.ix), double(f.iy), double(f.iz), {0.f, 0.f, ph.PD[i]}, ph.PD[i], ph.T1_s[i], ph.T2_s[i],
               1.f / static_cast<float>(per_fluid)};
        double* c[3] = {&p.x, &p.y, &p.z};
        for (int a = 0; a < (three_d ? 3 : 2); ++a)
          if (a != f.axis) *c[a] += uniform(rng) - 0.5;
        *c[f.axis] += f.side * 0.5 - f.side * depth * uniform(rng);
        spins.push_back(p);
      }
    }
  };
  // Precession at each spin's position (the gradient moments dk over dt, off-resonance of its cell) and
  // relaxation of its own tissue.
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  auto precess = [&](double dt, double dkx, double dky, double dkz) {
    for (Spin& p : spins) {
      std::size_t i = 0;
      const bool in = cell_of(p, i);
      double cycles = dkx * (ph.x0_m + p.x * ph.cell_size_m) + dky * (ph.y0_m + p.y * ph.cell_size_m) +
                      dkz * (ph.z0_m + p.z * ph.cell_size_m);
      if (in && !ph.dB_T.empty()) cycles += gamma_cycles * ph.dB_T[i] * dt;
      const double a = 2.0 * M_PI * (cycles - std::nearbyint(cycles));
      const float omE1 = p.T1_s > 0 ? static_cast<float>(-std::expm1(-dt / p.T1_s)) : 0.f;
      const float E2 = p.T2_s > 0 ? static_cast<float>(std::exp(-dt / p.T2_s)) : 1.f;
      bloch::precess_relax(p.m, p.PD, omE1, E2, static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a)));
    }
  };
  // One interval: each sub-step moves a spin by at most half a cell, and its gradient moment acts at the
  // sub-step's mid-point position.
  double max_speed = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<float>& u = axis == 0 ? ph.ux : axis == 1 ? ph.uy : ph.uz;
    for (float v : u) max_speed = std::max(max_speed, double(std::abs(v)));
  }
  auto interval = [&](double dt, double dkx, double dky, double dkz) {
    const double steps = moving ? dt / ph.flow_dt_s : 0;
    const int k = moving ? std::max(1, static_cast<int>(std::ceil(max_speed * steps / 0.5))) : 1;
    for (int j = 0; j < k; ++j) {
      if (moving) move(0.5 * steps / k);
      precess(dt / k, dkx / k, dky / k, dkz / k);
      if (moving) move(0.5 * steps / k);
    }
  };
  std::vector<std::complex<double>> acc(coils.ncoils);  // sums in double, as the cell engine's
  auto record = [&](long sample, bool truth) {
    std::fill(acc.begin(), acc.end(), std::complex<double>{});
    for (const Spin& p : spins) {
      std::size_t i;
      if (!cell_of(p, i)) continue;
      const std::complex<float> m(p.m.Mx * p.weight, p.m.My * p.weight);
      if (truth) cell_truth[i] += m;
      if (sample < 0) continue;
      for (int c = 0; c < coils.ncoils; ++c)
        acc[c] += std::complex<double>(coils.uniform() ? m : coils.sens[static_cast<std::size_t>(c) * n + i] * m);
    }
    if (sample >= 0)
      for (int c = 0; c < coils.ncoils; ++c) samples[c * per_coil + sample] = std::complex<float>(acc[c]);
  };

  const std::vector<int> marks = tr_progress_marks(prog);
  int readout = 0, reported = 0;
  for (std::size_t ei = 0; ei < prog.events.size(); ++ei) {
    cancel.throw_if_cancelled();
    const SeqEvent& e = prog.events[ei];
    switch (e.kind) {
      case EventKind::Rf: {
        const float ca = static_cast<float>(std::cos(e.flip_rad)), sa = static_cast<float>(std::sin(e.flip_rad));
        const float cp = static_cast<float>(std::cos(e.phase_rad)), sp = static_cast<float>(std::sin(e.phase_rad));
        for (Spin& p : spins) bloch::rf_rotate(p.m, ca, sa, cp, sp);
        break;
      }
      case EventKind::Spoil:
        for (Spin& p : spins) bloch::spoil(p.m);
        break;
      case EventKind::Free:
        interval(e.dt_s, e.dk_x, e.dk_y, e.dk_z);
        break;
      case EventKind::Readout:
        for (int j = 0; j < e.n_samples; ++j) {
          record(static_cast<long>(readout) * prog.nx + j, j == e.truth_sample);
          interval(e.dt_s, e.dk_x, e.dk_y, e.dk_z);
        }
        ++readout;
        break;
    }
    if (progress)
      while (reported < marks[ei]) progress(static_cast<double>(++reported) / marks.back(), "simulate");
  }
}

}  // namespace mrwb
