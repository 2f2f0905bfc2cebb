// CPU twin of the CUDA separable readout: P_{c,g}(x) from the cells' state, each cell advanced over
// the readout in closed form, then S_c(n) = Σ_g Σ_x P_{c,g}(x)·z_{g,x}^n (mrwb/simulation/internal/separable_readout.hpp).
#include "mrwb/simulation/internal/separable_readout_signal.hpp"

#include <stdexcept>
#include <vector>

namespace mrwb::separable {

bool readout_is_separable(const SeqEvent& e) {
  return e.kind == EventKind::Readout && e.n_samples > 0 && e.dk_y == 0 && e.dk_z == 0;
}

std::vector<bool> transverse_reads(std::span<const SeqEvent> events) {
  std::vector<bool> read(events.size() + 1, true);
  for (std::size_t k = events.size(); k-- > 0;)
    read[k] = events[k].kind == EventKind::Free ? read[k + 1] : events[k].kind != EventKind::Spoil;
  return read;
}

namespace {
// Adds (T2, ΔB) to the groups unless present; false when the table is full.
bool add_group(ReadoutGroups& groups, float T2_s, float dB_T) {
  if (group_of(groups, T2_s, dB_T) >= 0) return true;
  if (groups.count == k_max_readout_groups) return false;
  groups.T2_s[groups.count] = T2_s;
  groups.dB_T[groups.count] = dB_T;
  ++groups.count;
  return true;
}
}  // namespace

bool readout_groups(const CellPhantom& ph, bool skip_fluid, ReadoutGroups& groups) {
  groups = ReadoutGroups{};
  for (std::size_t i = 0; i < ph.size(); ++i) {
    if (ph.PD[i] == 0.f || (skip_fluid && ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid))) continue;
    if (!add_group(groups, ph.T2_s[i], ph.dB_T.empty() ? 0.f : ph.dB_T[i])) return false;
  }
  return true;
}

bool readout_groups(std::span<const TissueValue> tissue, ReadoutGroups& groups) {
  groups = ReadoutGroups{};
  for (const TissueValue& t : tissue)
    if (t[0] != 0.f && !add_group(groups, t[2], t[3])) return false;
  return true;
}

void play_separable_readout(const CellPhantom& ph, const CoilMaps& coils, const ReadoutGroups& groups,
                            const SeqEvent& e, std::span<bloch::Mag> m, std::span<std::complex<double>> signal,
                            std::span<std::complex<float>> cell_truth) {
  if (!readout_is_separable(e)) throw std::invalid_argument("separable readout: gradient not along x only");
  const std::size_t n = ph.size();
  const int G = groups.count, C = coils.ncoils, N = e.n_samples;
  if (m.size() != n || signal.size() < static_cast<std::size_t>(C) * N)
    throw std::invalid_argument("separable readout: state or signal size does not match");
  std::vector<std::complex<double>> P(static_cast<std::size_t>(C) * G * ph.nx);  // [coil][group][x]
  for (std::size_t i = 0; i < n; ++i) {
    if (ph.PD[i] == 0.f) continue;
    const int ix = static_cast<int>(i % static_cast<std::size_t>(ph.nx));
    const float dB = ph.dB_T.empty() ? 0.f : ph.dB_T[i];
    const int g = group_of(groups, ph.T2_s[i], dB);
    if (g < 0) throw std::invalid_argument("separable readout: a cell's (T2, dB) is not in the group table");
    const std::complex<float> mxy(m[i].Mx, m[i].My);
    for (int c = 0; c < C; ++c) {
      const std::complex<float> s = coils.uniform() ? mxy : coils.sens[static_cast<std::size_t>(c) * n + i] * mxy;
      P[(static_cast<std::size_t>(c) * G + g) * ph.nx + ix] += std::complex<double>(s);
    }
    const double phi = dwell_cycles(e.dk_x, ph.x_m(ix), dB, e.dt_s);
    if (e.truth_sample >= 0 && e.truth_sample < N && i < cell_truth.size()) {
      float re, im, tx, ty;
      power(phi, e.dt_s, ph.T2_s[i], e.truth_sample, re, im);
      times(m[i].Mx, m[i].My, re, im, tx, ty);
      cell_truth[i] = {tx, ty};
    }
    advance(m[i], ph.PD[i], ph.T1_s[i], ph.T2_s[i], phi, e.dt_s, N);
  }
  for (int c = 0; c < C; ++c)
    for (int g = 0; g < G; ++g)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::complex<double> p = P[(static_cast<std::size_t>(c) * G + g) * ph.nx + ix];
        if (p == std::complex<double>{}) continue;
        const double phi = dwell_cycles(e.dk_x, ph.x_m(ix), groups.dB_T[g], e.dt_s);
        for (int j = 0; j < N; ++j) {
          float re, im;
          power(phi, e.dt_s, groups.T2_s[g], j, re, im);
          signal[static_cast<std::size_t>(c) * N + j] += p * std::complex<double>(re, im);
        }
      }
}

}  // namespace mrwb::separable
