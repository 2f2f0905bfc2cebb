#include "mrwb/sequence/undersampling_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/base/raw_data.hpp"

namespace mrwb {
namespace {

constexpr std::uint8_t kAcs = kLineAcquired | kLineCalibration | kLineImaging;
constexpr std::uint8_t kImaging = kLineAcquired | kLineImaging;

// The checks shared by the 1-D patterns; returns the line count.
int check_lines(const char* what, int ny, double R, int acs_lines) {
  const std::string src = std::string(what) + ": ";
  if (ny < 2) throw InputError(src + "ny = " + std::to_string(ny) + " (allowed: >= 2)");
  if (!(R >= 1.0) || !(R <= ny / 2.0))
    throw InputError(src + "R = " + fixed_number_text(R) +
                     " (allowed: 1 .. ny/2 = " + fixed_number_text(ny / 2.0) + ")");
  const int lines = undersampled_line_count(ny, R);
  if (acs_lines < 0 || acs_lines > lines)
    throw InputError(src + "acs_lines = " + std::to_string(acs_lines) + " (allowed: 0 .. round(ny/R) = " +
                     std::to_string(lines) + ")");
  return lines;
}

// ACS block [first, first + acs) centred on k0 = n/2, as undersample_cartesian places it.
int acs_first(int n, int acs) { return n / 2 - acs / 2; }

}  // namespace

int undersampled_line_count(int ny, double R) { return static_cast<int>(std::lround(ny / R)); }

double line_radius(int ky, int ny) { return std::min(1.0, std::abs(ky - ny / 2) / (ny / 2.0)); }

double poisson_disc_gap(double scale, double growth, double r) { return scale * (1.0 + (growth - 1.0) * r); }

std::vector<std::uint8_t> random_lines(int ny, double R, int acs_lines, unsigned seed, double power) {
  const int lines = check_lines("random_lines", ny, R, acs_lines);
  if (!(power >= 0)) throw InputError("random_lines: power = " + fixed_number_text(power) + " (allowed: >= 0)");
  std::vector<std::uint8_t> flags(ny, 0);
  const int a0 = acs_first(ny, acs_lines);
  for (int y = a0; y < a0 + acs_lines; ++y) flags[y] = kAcs;
  // Weighted sampling without replacement (Efraimidis & Spirakis 2006): the lines with the largest
  // u^(1/w), i.e. log(u)/w, u uniform in (0, 1).
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<std::pair<double, int>> keys;
  for (int y = 0; y < ny; ++y) {
    const double u = std::max(uniform(rng), 1e-300);  // drawn for every line: the pattern depends on seed only
    if (flags[y]) continue;
    const double r = std::abs(y - ny / 2) / (ny / 2.0 + 1.0);
    const double w = std::pow(1.0 - r, power);
    keys.push_back({std::log(u) / w, y});
  }
  const int extra = lines - acs_lines;
  std::partial_sort(keys.begin(), keys.begin() + extra, keys.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int i = 0; i < extra; ++i) flags[keys[i].second] = kImaging;
  return flags;
}

std::vector<std::uint8_t> poisson_disc_lines(int ny, double R, int acs_lines, unsigned seed, double growth,
                                             double* scale_out) {
  const int lines = check_lines("poisson_disc_lines", ny, R, acs_lines);
  if (!(growth >= 1.0))
    throw InputError("poisson_disc_lines: growth = " + fixed_number_text(growth) + " (allowed: >= 1)");
  const int a0 = acs_first(ny, acs_lines);
  auto is_acs = [&](int y) { return y >= a0 && y < a0 + acs_lines; };
  std::mt19937 rng(seed);
  std::vector<int> order;
  for (int y = 0; y < ny; ++y)
    if (!is_acs(y)) order.push_back(y);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<double> radius(ny);
  for (int y = 0; y < ny; ++y) radius[y] = line_radius(y, ny);

  // Dart throwing in the fixed order: a line is taken when every taken line within the largest gap keeps
  // the gap of the more central of the two.
  auto throw_lines = [&](double scale) {
    std::vector<char> taken(ny, 0);
    for (int y = a0; y < a0 + acs_lines; ++y) taken[y] = 1;
    std::vector<int> accepted;
    const int reach = static_cast<int>(std::ceil(poisson_disc_gap(scale, growth, 1.0)));
    for (int y : order) {
      bool ok = true;
      for (int j = std::max(0, y - reach); ok && j <= std::min(ny - 1, y + reach); ++j)
        if (taken[j] && std::abs(j - y) < poisson_disc_gap(scale, growth, std::min(radius[y], radius[j]))) ok = false;
      if (ok) {
        taken[y] = 1;
        accepted.push_back(y);
      }
    }
    return accepted;
  };
  const int wanted = lines - acs_lines;
  double lo = 0.0, hi = static_cast<double>(ny);  // at scale 0 every line is taken
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (static_cast<int>(throw_lines(mid).size()) >= wanted) lo = mid;
    else hi = mid;
  }
  std::vector<int> accepted = throw_lines(lo);
  std::shuffle(accepted.begin(), accepted.end(), rng);
  accepted.resize(wanted);
  std::vector<std::uint8_t> flags(ny, 0);
  for (int y = a0; y < a0 + acs_lines; ++y) flags[y] = kAcs;
  for (int y : accepted) flags[y] = kImaging;
  if (scale_out) *scale_out = lo;
  return flags;
}

std::vector<std::uint8_t> poisson_disc_mask_2d(int ny, int nz, double R, int acs_y, int acs_z, unsigned seed,
                                               double growth, double* scale_out) {
  const std::string src = "poisson_disc_mask_2d: ";
  if (ny < 1 || nz < 1 || static_cast<long>(ny) * nz < 2)
    throw InputError(src + "ny x nz = " + std::to_string(ny) + " x " + std::to_string(nz) +
                     " (allowed: >= 1 each, >= 2 points)");
  const long n = static_cast<long>(ny) * nz;
  if (!(R >= 1.0) || !(R <= n / 2.0))
    throw InputError(src + "R = " + fixed_number_text(R) +
                     " (allowed: 1 .. ny*nz/2 = " + fixed_number_text(n / 2.0) + ")");
  const long points = std::lround(n / R);
  if (acs_y < 0 || acs_y > ny || acs_z < 0 || acs_z > nz || static_cast<long>(acs_y) * acs_z > points)
    throw InputError(src + "ACS " + std::to_string(acs_y) + " x " + std::to_string(acs_z) +
                     " (allowed: 0 .. ny by 0 .. nz, at most round(ny*nz/R) = " + std::to_string(points) + " points)");
  if (!(growth >= 1.0)) throw InputError(src + "growth = " + fixed_number_text(growth) + " (allowed: >= 1)");
  const int y0 = acs_first(ny, acs_y), z0 = acs_first(nz, acs_z);
  const long acs = static_cast<long>(acs_y) * acs_z;
  auto is_acs = [&](int y, int z) { return y >= y0 && y < y0 + acs_y && z >= z0 && z < z0 + acs_z; };
  std::vector<double> radius(n);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y) {
      const double u = ny > 1 ? (y - ny / 2) / (ny / 2.0) : 0.0, v = nz > 1 ? (z - nz / 2) / (nz / 2.0) : 0.0;
      radius[static_cast<std::size_t>(z) * ny + y] = std::min(1.0, std::hypot(u, v));
    }
  std::mt19937 rng(seed);
  std::vector<long> order;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      if (!is_acs(y, z)) order.push_back(static_cast<long>(z) * ny + y);
  std::shuffle(order.begin(), order.end(), rng);
  auto throw_points = [&](double scale) {
    std::vector<char> taken(n, 0);
    for (int z = z0; z < z0 + acs_z; ++z)
      for (int y = y0; y < y0 + acs_y; ++y) taken[static_cast<std::size_t>(z) * ny + y] = 1;
    std::vector<long> accepted;
    const int reach = static_cast<int>(std::ceil(poisson_disc_gap(scale, growth, 1.0)));
    for (long p : order) {
      const int y = static_cast<int>(p % ny), z = static_cast<int>(p / ny);
      bool ok = true;
      for (int zz = std::max(0, z - reach); ok && zz <= std::min(nz - 1, z + reach); ++zz)
        for (int yy = std::max(0, y - reach); ok && yy <= std::min(ny - 1, y + reach); ++yy) {
          const long q = static_cast<long>(zz) * ny + yy;
          if (taken[q] && std::hypot(yy - y, zz - z) < poisson_disc_gap(scale, growth, std::min(radius[p], radius[q])))
            ok = false;
        }
      if (ok) {
        taken[p] = 1;
        accepted.push_back(p);
      }
    }
    return accepted;
  };
  const long wanted = points - acs;
  double lo = 0.0, hi = static_cast<double>(std::max(ny, nz));
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (static_cast<long>(throw_points(mid).size()) >= wanted) lo = mid;
    else hi = mid;
  }
  std::vector<long> accepted = throw_points(lo);
  std::shuffle(accepted.begin(), accepted.end(), rng);
  accepted.resize(wanted);
  std::vector<std::uint8_t> flags(n, 0);
  for (int z = z0; z < z0 + acs_z; ++z)
    for (int y = y0; y < y0 + acs_y; ++y) flags[static_cast<std::size_t>(z) * ny + y] = kAcs;
  for (long p : accepted) flags[p] = kImaging;
  if (scale_out) *scale_out = lo;
  return flags;
}

}  // namespace mrwb
