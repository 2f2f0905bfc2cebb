// GRAPPA geometry: checks the raw data and the parameters, finds the ACS block and the sampling lattice.
#include <cmath>
#include <complex>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"

namespace mrwb {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError("grappa: " + message);
}

}  // namespace

GrappaGeometry grappa_geometry(const RawData& raw, const GrappaParams& p) {
  require(raw.cartesian(), "raw data is non-Cartesian (GRAPPA needs Cartesian phase-encode lines)");
  require(raw.nx > 0 && raw.ny > 0 && raw.ncoils > 0, "empty raw data (nx, ny, ncoils must be > 0)");
  const std::size_t expected = static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils;
  require(raw.kspace.size() == expected,
          "coil count mismatch: k-space holds " + std::to_string(raw.kspace.size()) + " samples, header says " +
              std::to_string(raw.ncoils) + " coils x " + std::to_string(raw.ny) + " lines x " +
              std::to_string(raw.nx) + " samples");
  require(raw.line_flags.size() == static_cast<std::size_t>(raw.ny),
          "no calibration lines: line flags missing (ACQ_IS_PARALLEL_CALIBRATION required)");
  require(raw.accel_R >= 2 && raw.accel_R <= raw.ny / 2,
          "acceleration accel_R = " + std::to_string(raw.accel_R) + " (allowed: 2 .. ny/2 = " + std::to_string(raw.ny / 2) +
              ", or 1 with every line acquired)");
  require(p.approach == "basic" || p.approach == "improved",
          "--approach " + p.approach + " (allowed: basic, improved)");
  require(p.combine == "sos" || p.combine == "sensitivity", "--combine " + p.combine + " (allowed: sos, sensitivity)");
  require(p.kernel_pe >= 2 && p.kernel_pe <= 16, "--kernel K_PE = " + std::to_string(p.kernel_pe) + " (allowed: 2 .. 16)");
  require(p.lambda >= 0 && p.lambda <= 1, "--lambda " + std::to_string(p.lambda) + " (allowed: 0 .. 1)");
  require(std::isfinite(p.eta) && p.eta >= 0 && p.eta <= 4, "--eta " + std::to_string(p.eta) + " (allowed: 0 .. 4)");
  require(p.clip >= 0 && p.clip < 1, "--clip " + std::to_string(p.clip) + " (allowed: 0 <= kappa < 1)");

  GrappaGeometry g;
  g.R = raw.accel_R;
  g.ncoils = raw.ncoils;
  g.nx = raw.nx;
  g.ny = raw.ny;
  g.basic = p.approach == "basic" ? 1 : 0;
  g.k_pe = p.kernel_pe;
  if (g.basic) {
    require(p.segment_cols >= 1 && p.segment_cols <= raw.nx,
            "delta_s = " + std::to_string(p.segment_cols) + " (allowed: 1 .. nx = " + std::to_string(raw.nx) + ")");
    g.k_ro = 1;
    g.seg_cols = p.segment_cols;
    g.nseg = (raw.nx + p.segment_cols - 1) / p.segment_cols;
  } else {
    require(p.kernel_ro >= 1 && p.kernel_ro <= 15 && p.kernel_ro <= raw.nx,
            "--kernel K_RO = " + std::to_string(p.kernel_ro) + " (allowed: 1 .. 15)");
    g.k_ro = p.kernel_ro;
    g.seg_cols = raw.nx;
    g.nseg = 1;
  }
  g.delta_pe = g.R * (g.k_pe / 2 - 1);
  g.delta_ro = (g.k_ro - 1) / 2;

  // Longest contiguous run of acquired calibration lines.
  int best_first = 0, best_len = 0;
  for (int y = 0; y < raw.ny;) {
    const auto is_acs = [&](int l) { return (raw.flags(l) & kLineCalibration) && (raw.flags(l) & kLineAcquired); };
    if (!is_acs(y)) {
      ++y;
      continue;
    }
    int e = y;
    while (e < raw.ny && is_acs(e)) ++e;
    if (e - y > best_len) best_first = y, best_len = e - y;
    y = e;
  }
  const int needed = (g.k_pe - 1) * g.R + 1;
  require(best_len > 0, "no calibration lines (ACQ_IS_PARALLEL_CALIBRATION): GRAPPA needs at least " +
                            std::to_string(needed) + " contiguous ACS lines for K_PE = " + std::to_string(g.k_pe) +
                            " at R = " + std::to_string(g.R));
  require(best_len >= needed, "too few ACS lines: " + std::to_string(best_len) + " contiguous, the kernel (K_PE = " +
                                  std::to_string(g.k_pe) + ", R = " + std::to_string(g.R) +
                                  ") needs at least (K_PE-1)*R+1 = " + std::to_string(needed));
  // Weights fitted to calibration lines without signal solve 0 = W 0: no matrix to invert, whatever --lambda.
  bool signal = false;
  for (int c = 0; c < raw.ncoils && !signal; ++c)
    for (int l = best_first; l < best_first + best_len && !signal; ++l)
      for (int x = 0; x < raw.nx && !signal; ++x) signal = raw.at(c, l, x) != std::complex<float>{};
  require(signal, "the " + std::to_string(best_len) + " calibration lines are all zero (allowed: calibration lines with signal)");
  g.acs_first = best_first;
  g.acs_lines = best_len;
  g.shifts_pe = best_len - (g.k_pe - 1) * g.R;
  g.shifts_ro = g.basic ? g.seg_cols : raw.nx - g.k_ro + 1;

  // Sampling lattice: the residue (mod R) holding most acquired imaging lines outside the ACS block.
  std::vector<int> count(g.R, 0), count_all(g.R, 0);
  for (int y = 0; y < raw.ny; ++y) {
    const auto f = raw.flags(y);
    if (!(f & kLineAcquired) || !(f & kLineImaging)) continue;
    ++count_all[y % g.R];
    if (!(f & kLineCalibration)) ++count[y % g.R];
  }
  int total = 0;
  for (int c : count) total += c;
  const auto& use = total > 0 ? count : count_all;
  g.lattice_offset = 0;
  for (int r = 1; r < g.R; ++r)
    if (use[r] > use[g.lattice_offset]) g.lattice_offset = r;

  // Synthesis groups: base lines lattice_offset + R·(t0 + t) whose targets base+1 .. base+R−1 meet [0, ny).
  g.syn_t0 = -((g.R - 1 + g.lattice_offset) / g.R);
  const int first_base = g.lattice_offset + g.R * g.syn_t0;
  g.syn_groups = raw.ny - 2 >= first_base ? (raw.ny - 2 - first_base) / g.R + 1 : 0;
  return g;
}

std::vector<std::complex<float>> grappa_acs_block(const RawData& raw, const GrappaGeometry& g) {
  std::vector<std::complex<float>> acs(static_cast<std::size_t>(g.ncoils) * g.acs_lines * g.nx);
  for (int c = 0; c < g.ncoils; ++c)
    for (int l = 0; l < g.acs_lines; ++l)
      for (int x = 0; x < g.nx; ++x)
        acs[(static_cast<std::size_t>(c) * g.acs_lines + l) * g.nx + x] = raw.at(c, g.acs_first + l, x);
  return acs;
}

std::vector<float> grappa_acs_window(int n) {
  std::vector<float> w(n);
  for (int l = 0; l < n; ++l) w[l] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * M_PI * (l + 1) / (n + 1)));
  return w;
}

}  // namespace mrwb
