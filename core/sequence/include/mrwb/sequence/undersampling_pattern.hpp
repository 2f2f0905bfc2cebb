#pragma once
// Variable-density Cartesian undersampling patterns for compressed sensing (Lustig et al. 2007, "Sparse MRI",
// MRM 58:1182, sec. "Variable density random undersampling"): which phase-encode lines are acquired.
// Each line gets LineFlag bits (base/raw_data.hpp): every acquired line kLineAcquired, the fully sampled
// centre (ACS) kLineCalibration | kLineImaging, the others kLineImaging; unacquired lines 0.
// Pure functions: the same arguments give the same pattern (std::mt19937 seeded with `seed`).
#include <cstdint>
#include <vector>

namespace mrwb {

// The acquired line count for ny lines at acceleration R: round(ny / R), ACS included.
int undersampled_line_count(int ny, double R);

// Random lines drawn without replacement with probability ∝ (1 − r)^power, r = |ky − k0| / (ny/2 + 1) in
// [0, 1) (the polynomial variable density of BART's and SigPy's random masks), k0 = ny/2; exactly
// undersampled_line_count(ny, R) lines, the acs_lines centred on k0 (first k0 − acs_lines/2) among them.
// Throws InputError (one line, the field and its allowed range) for ny < 2, R outside [1, ny/2],
// acs_lines outside [0, round(ny/R)], power < 0.
std::vector<std::uint8_t> random_lines(int ny, double R, int acs_lines, unsigned seed, double power = 2.0);

// Variable-density Poisson-disc along ky (as Lustig's and BART's `poisson -v`, in 1-D): two acquired lines
// a, b keep |a − b| >= poisson_disc_gap(scale, growth, min(r_a, r_b)), the gap growing linearly from
// `scale` at the centre to growth·scale at the edge; lines are thrown in a seeded random order, `scale` is
// the largest (bisection) that still gives round(ny/R) lines, and surplus non-ACS lines are dropped at
// random (which only widens gaps). ACS lines are placed first and obey no gap. scale_out: the scale used.
// Same refusals as random_lines, and growth < 1.
std::vector<std::uint8_t> poisson_disc_lines(int ny, double R, int acs_lines, unsigned seed, double growth = 3.0,
                                             double* scale_out = nullptr);
// The minimum gap at relative distance r in [0, 1] from the centre: scale·(1 + (growth − 1)·r).
double poisson_disc_gap(double scale, double growth, double r);
// r of a line: |ky − ny/2| / (ny/2) (0 at k0, 1 at the edge).
double line_radius(int ky, int ny);

// 2-D variable-density Poisson-disc over (ky, kz) for 3-D Cartesian: [kz][ky] flags (ky fastest), exactly
// round(ny·nz / R) points including a fully sampled acs_y × acs_z centre block; distances in grid steps,
// r = the elliptical radius sqrt(((ky − ny/2)/(ny/2))² + ((kz − nz/2)/(nz/2))²) clipped to 1. Throws
// InputError for ny, nz < 1, ny·nz < 2, R outside [1, ny·nz/2], an ACS block outside the grid or larger
// than the point count, growth < 1.
std::vector<std::uint8_t> poisson_disc_mask_2d(int ny, int nz, double R, int acs_y, int acs_z, unsigned seed,
                                               double growth = 3.0, double* scale_out = nullptr);

}  // namespace mrwb
