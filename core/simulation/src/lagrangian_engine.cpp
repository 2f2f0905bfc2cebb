// Lagrangian spin tracking on the CPU (lagrangian_engine.hpp). Single-threaded: a reference, not a fast
// path. The schedule is lagrangian_plan.hpp's, the per-spin operations lagrangian_spin_ops.hpp's, both
// shared with the CUDA twin.
#include "mrwb/simulation/lagrangian_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "mrwb/simulation/internal/lagrangian_plan.hpp"
#include "mrwb/simulation/internal/lagrangian_spin_ops.hpp"
#include "mrwb/simulation/tr_progress.hpp"

namespace mrwb {

using namespace lagrangian;

LagrangianCpuEngine::LagrangianCpuEngine(int spins_per_axis, unsigned seed)
    : seed_(seed) {
  set_spins_per_axis(spins_per_axis);
}

void LagrangianCpuEngine::run(const CellPhantom& ph, const SequenceProgram& prog, const CoilMaps& coils,
                              std::span<std::complex<float>> samples, std::span<std::complex<float>> cell_truth,
                              const ProgressFn& progress, const CancelToken& cancel) {
  const std::size_t n = ph.size();
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  if (samples.size() != per_coil * coils.ncoils || cell_truth.size() != n)
    throw std::invalid_argument("LagrangianCpuEngine::run: sample or truth buffer of the wrong size");
  std::fill(samples.begin(), samples.end(), std::complex<float>{});
  std::fill(cell_truth.begin(), cell_truth.end(), std::complex<float>{});
  const Plan P = build_plan(ph, prog, spins_per_axis(), seed_);
  stats_ = SpinTrackingStats{0, P.sub_steps, P.spin_count(), 0};
  std::vector<Spin> spins = initial_spins(P, ph);
  const CellFlow* flow = P.flow.data();
  const float fluid_weight = 1.f / static_cast<float>(P.per_cell);

  // Moves the mobile spins h flow steps (dropped ones get weight 0), then lets in the spins the inflow
  // faces deliver over (t0, t1] flow steps: after the others moved, so they do not move in this call.
  auto move_and_bear = [&](const Entry& E, double t0, double t1) {
    const float h = E.h_move;
    for (Spin& p : spins) {
      if (!p.mobile || p.weight == 0.f) continue;
      CellFlow u = flow[cell_index(p.ix, p.iy, p.iz, ph.nx, ph.ny)];
      const bool alive = P.three_d ? move<true>(p, u, h, flow, ph.nx, ph.ny, ph.nz) : move<false>(p, u, h, flow, ph.nx, ph.ny, ph.nz);
      if (!alive) p.weight = 0.f;
    }
    for (std::size_t f = 0; f < P.faces.size(); ++f) {
      const Face& face = P.faces[f];
      const float PD = P.factors[static_cast<std::size_t>(E.factors) * P.tissues + face.tissue].PD;
      for (std::int64_t k = delivered(face, t0), end = delivered(face, t1); k < end; ++k) {
        spins.push_back(born_spin(face, static_cast<int>(f), static_cast<std::uint64_t>(k), E.h, P.three_d, P.seed, PD, fluid_weight));
        ++stats_.spins_born;
      }
    }
  };
  std::vector<std::complex<double>> acc(coils.ncoils);  // sums in double, as the cell engine's
  auto record = [&](const Entry& E) {
    std::fill(acc.begin(), acc.end(), std::complex<double>{});
    for (const Spin& p : spins) {
      if (p.weight == 0.f) continue;
      const std::size_t i = cell_index(p.ix, p.iy, p.iz, ph.nx, ph.ny);
      const std::complex<float> m(p.m.Mx * p.weight, p.m.My * p.weight);
      if (E.truth) cell_truth[i] += m;
      for (int c = 0; c < coils.ncoils; ++c)
        acc[c] += std::complex<double>(coils.uniform() ? m : coils.sens[static_cast<std::size_t>(c) * n + i] * m);
    }
    for (int c = 0; c < coils.ncoils; ++c) samples[c * per_coil + E.sample] = std::complex<float>(acc[c]);
  };

  const std::vector<int> marks = tr_progress_marks(prog);
  int reported = 0;
  for (std::size_t e = 0; e < P.entries.size(); ++e) {
    const Entry& E = P.entries[e];
    switch (E.kind) {
      case k_rf:
        for (Spin& p : spins) rf(p, E);
        break;
      case k_spoil:
        for (Spin& p : spins) bloch::spoil(p.m);
        break;
      case k_record:
        record(E);
        break;
      case k_step: {
        if (P.moving) move_and_bear(E, E.t_start, E.t_mid);
        const TissueFactors* row = P.factors.data() + static_cast<std::size_t>(E.factors) * P.tissues;
        for (Spin& p : spins) {
          if (p.weight == 0.f) continue;
          const float dB = P.dB_T.empty() ? 0.f : P.dB_T[cell_index(p.ix, p.iy, p.iz, ph.nx, ph.ny)];
          precess(p, E, dB, row[p.tissue]);
          stats_.spin_steps += 1;
        }
        if (P.moving) {
          move_and_bear(E, E.t_mid, E.t_end);
          std::erase_if(spins, [](const Spin& p) { return p.weight == 0.f; });
        }
        break;
      }
    }
    if (e + 1 == P.entries.size() || P.entries[e + 1].event != E.event) {
      cancel.throw_if_cancelled();
      if (progress)
        while (reported < marks[E.event]) progress(static_cast<double>(++reported) / marks.back(), "simulate");
    }
  }
  if (progress && !marks.empty())
    while (reported < marks.back()) progress(static_cast<double>(++reported) / marks.back(), "simulate");
}

}  // namespace mrwb
