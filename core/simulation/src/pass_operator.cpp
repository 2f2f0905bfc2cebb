// Pre-readout events of one tissue composed into affine maps (mrwb/simulation/internal/pass_operator.hpp).
#include "mrwb/simulation/internal/pass_operator.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include "mrwb/simulation/internal/separable_readout.hpp"

namespace mrwb::separable {

bool has_gradient(const SeqEvent& e) {
  return e.kind == EventKind::Free && (e.dk_x != 0 || e.dk_y != 0 || e.dk_z != 0);
}

std::vector<AffineMap> compose_pass(std::span<const SeqEvent> events, const TissueValue& t) {
  const float PD = t[0], T1 = t[1], T2 = t[2], dB = t[3];
  // The images of the origin and of the unit vectors under the events since the last split.
  std::array<bloch::Mag, 4> v;
  auto reset = [&] { v = {bloch::Mag{0, 0, 0}, bloch::Mag{1, 0, 0}, bloch::Mag{0, 1, 0}, bloch::Mag{0, 0, 1}}; };
  std::vector<AffineMap> maps;
  auto close = [&] {
    AffineMap f{};
    const float b[3] = {v[0].Mx, v[0].My, v[0].Mz};
    for (int c = 0; c < 3; ++c) {
      const float col[3] = {v[c + 1].Mx - b[0], v[c + 1].My - b[1], v[c + 1].Mz - b[2]};
      for (int r = 0; r < 3; ++r) f.row[r][c] = col[r];
    }
    for (int r = 0; r < 3; ++r) f.row[r][3] = b[r];
    maps.push_back(f);
    reset();
  };
  reset();
  for (const SeqEvent& e : events) {
    switch (e.kind) {
      case EventKind::Rf: {
        // As the CUDA engine's event records: the angles' trig in double, rounded to float.
        const float cf = static_cast<float>(std::cos(e.flip_rad)), sf = static_cast<float>(std::sin(e.flip_rad));
        const float cp = static_cast<float>(std::cos(e.phase_rad)), sp = static_cast<float>(std::sin(e.phase_rad));
        for (auto& m : v) bloch::rf_rotate(m, cf, sf, cp, sp);
        break;
      }
      case EventKind::Spoil:
        for (auto& m : v) bloch::spoil(m);
        break;
      case EventKind::Free: {
        const FreeTissueFactors f = free_tissue_factors(e.dt_s, T1, T2, dB);
        for (auto& m : v) bloch::precess_relax(m, PD, f.omE1, f.E2, f.c, f.s);
        if (has_gradient(e)) close();
        break;
      }
      case EventKind::Readout:
        throw std::invalid_argument("compose_pass: a readout among the events before the readout");
    }
  }
  close();
  return maps;
}

}  // namespace mrwb::separable
