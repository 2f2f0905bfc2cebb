#include "event_factors.hpp"

#include <cmath>

#include "mrwb/simulation/bloch_cell_ops.hpp"

namespace mrwb {
namespace {

std::complex<double> turn(double cycles) {
  const double a = 2.0 * M_PI * (cycles - std::nearbyint(cycles));
  return {std::cos(a), std::sin(a)};
}

}  // namespace

void compute_event_factors(const CellPhantom& ph, double dt_s, double dk_x, double dk_y, double dk_z,
                           std::size_t begin, std::size_t end, EventFactors& f) {
  const std::size_t n = end - begin;
  f.c.resize(n);
  f.s.resize(n);
  f.omE1.resize(n);
  f.E2.resize(n);
  const bool gradient = dk_x != 0 || dk_y != 0;
  // Cell coordinates advanced with the index (no division per cell).
  int ix = static_cast<int>(begin % ph.nx), iy = static_cast<int>((begin / ph.nx) % ph.ny);
  int iz = static_cast<int>(begin / ph.slice_size());
  // Only the rows and planes [begin, end) touches get a table entry (callers pass single rows or blocks).
  const std::size_t last = end > begin ? end - 1 : begin;
  const int iz_last = static_cast<int>(last / ph.slice_size());
  const int iy_first = iz_last == iz ? iy : 0;
  const int iy_last = iz_last == iz ? static_cast<int>((last / ph.nx) % ph.ny) : ph.ny - 1;
  if (gradient) {
    f.col.resize(ph.nx);
    f.row.resize(ph.ny);
    for (int x = 0; x < ph.nx; ++x) f.col[x] = turn(dk_x * ph.x_m(x));
    for (int y = iy_first; y <= iy_last; ++y) f.row[y] = turn(dk_y * ph.y_m(y));
  }
  if (dk_z != 0) {
    f.plane.resize(ph.nz);
    for (int z = iz; z <= iz_last; ++z) f.plane[z] = turn(dk_z * ph.z_m(z));
  }
  const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);
  float last_T1 = -1, last_T2 = -1, last_omE1 = 0, last_E2 = 1;
  float last_dB = 0;  // tissues repeat along a row: one sine and cosine per run of equal off-resonance
  std::complex<double> last_turn(1.0, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = begin + k;
    std::complex<double> r(1.0, 0.0);
    if (gradient) r = f.col[ix] * f.row[iy];
    if (dk_z != 0) r *= f.plane[iz];  // a 2-D slice at z0 = 0: exactly 1
    if (++ix == ph.nx) {
      ix = 0;
      if (++iy == ph.ny) {
        iy = 0;
        ++iz;
      }
    }
    if (ph.dB_T[i] != last_dB) {
      last_dB = ph.dB_T[i];
      last_turn = turn(gamma_cycles * last_dB * dt_s);
    }
    if (last_dB != 0.f) r *= last_turn;
    f.c[k] = static_cast<float>(r.real());
    f.s[k] = static_cast<float>(r.imag());
    if (ph.T1_s[i] != last_T1) {
      last_T1 = ph.T1_s[i];
      last_omE1 = last_T1 > 0 ? static_cast<float>(-std::expm1(-dt_s / last_T1)) : 0.f;
    }
    if (ph.T2_s[i] != last_T2) {
      last_T2 = ph.T2_s[i];
      last_E2 = last_T2 > 0 ? static_cast<float>(std::exp(-dt_s / last_T2)) : 1.f;
    }
    f.omE1[k] = last_omE1;
    f.E2[k] = last_E2;
  }
}

}  // namespace mrwb
