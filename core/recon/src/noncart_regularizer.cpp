// W^H W of the CG: plain and anatomically cut first-order finite differences as links (see the header).
#include "mrwb/recon/noncart_regularizer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "mrwb/base/errors.hpp"

namespace mrwb::noncart {
namespace {

// Strides and coordinates of the n^D grid, x fastest (z = 0 in 2-D).
struct Axes {
  int n;
  std::size_t stride[3];
  explicit Axes(const Grid& g) : n(g.n), stride{1, static_cast<std::size_t>(g.n), static_cast<std::size_t>(g.n) * g.n} {}
  void coords(std::size_t i, int c[3]) const {
    c[0] = static_cast<int>(i % n);
    c[1] = static_cast<int>((i / n) % n);
    c[2] = static_cast<int>(i / stride[2]);
  }
};

}  // namespace

void check_regularizer(const std::string& regularizer) {
  if (regularizer != "identity" && regularizer != "finite-difference" && regularizer != "anatomical")
    throw InputError("--regularizer " + regularizer + ": unknown (allowed: identity, finite-difference, anatomical)");
}

Links grid_links(const Grid& g) {
  const Axes a(g);
  Links links(g.voxels(), 0);
  int c[3];
  for (std::size_t i = 0; i < links.size(); ++i) {
    a.coords(i, c);
    for (int d = 0; d < g.dims; ++d)
      if (c[d] + 1 < a.n) links[i] |= static_cast<std::uint8_t>(1u << d);
  }
  return links;
}

Links anatomical_links(const Grid& g, const std::vector<float>& reference, double edge_threshold,
                       const std::string& where) {
  if (reference.size() != g.voxels())
    throw InputError(where + ": " + std::to_string(reference.size()) + " values, the " + std::to_string(g.n) + "^" +
                     std::to_string(g.dims) + " matrix needs " + std::to_string(g.voxels()) +
                     " (allowed: a reference image of the reconstruction's matrix)");
  if (!(edge_threshold >= 0 && edge_threshold < 1)) {
    char v[32];
    std::snprintf(v, sizeof v, "%g", edge_threshold);
    throw InputError(std::string("--edge-threshold ") + v + ": must be in [0, 1)");
  }
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  for (float v : reference) {
    if (!std::isfinite(v)) throw InputError(where + ": NaN or Inf value in the reference image");
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double jump = edge_threshold * (static_cast<double>(hi) - lo);
  Links links = grid_links(g);
  const Axes a(g);
  for (std::size_t i = 0; i < links.size(); ++i)
    for (int d = 0; d < g.dims; ++d)
      if ((links[i] >> d & 1u) && std::abs(static_cast<double>(reference[i + a.stride[d]]) - reference[i]) > jump)
        links[i] &= static_cast<std::uint8_t>(~(1u << d));
  return links;
}

Links regularizer_links(const Grid& g, const std::string& regularizer, const std::vector<float>& prior,
                        double edge_threshold) {
  check_regularizer(regularizer);
  if (regularizer == "finite-difference") return grid_links(g);
  if (regularizer == "anatomical") {
    if (prior.empty()) throw InputError("--regularizer anatomical: needs a reference image (--prior)");
    return anatomical_links(g, prior, edge_threshold, "--prior");
  }
  return {};
}

void apply_linked_fd_normal(const Grid& g, const std::uint8_t* links, const cdouble* in, cdouble* out) {
  const Axes a(g);
  const std::size_t nv = g.voxels();
  int c[3];
  for (std::size_t i = 0; i < nv; ++i) {
    a.coords(i, c);
    cdouble acc{};
    for (int d = 0; d < g.dims; ++d) {
      const std::size_t s = a.stride[d];
      if (links[i] >> d & 1u) acc += in[i] - in[i + s];
      if (c[d] > 0 && (links[i - s] >> d & 1u)) acc += in[i] - in[i - s];
    }
    out[i] = acc;
  }
}

int link_degree(const Grid& g, const std::uint8_t* links, std::size_t i) {
  const Axes a(g);
  int c[3];
  a.coords(i, c);
  int deg = 0;
  for (int d = 0; d < g.dims; ++d) {
    deg += links[i] >> d & 1u;
    if (c[d] > 0) deg += links[i - a.stride[d]] >> d & 1u;
  }
  return deg;
}

std::vector<double> diagonal_preconditioner_inverse(const Grid& g, const Links& links, const std::vector<double>& coil_power,
                                                    double q0, double lambda) {
  std::vector<double> inv(g.voxels());
  for (std::size_t i = 0; i < inv.size(); ++i) {
    const double deg = links.empty() ? 1.0 : link_degree(g, links.data(), i);
    const double d = coil_power[i] * q0 + lambda * deg;
    inv[i] = d > 0 ? 1.0 / d : 1.0;
  }
  return inv;
}

std::vector<double> fd_circulant_eigenvalues(const Grid& g) {
  const Axes a(g);
  std::vector<double> eig(g.voxels());
  int c[3];
  for (std::size_t i = 0; i < eig.size(); ++i) {
    a.coords(i, c);
    double e = 0;
    for (int d = 0; d < g.dims; ++d) e += 2.0 - 2.0 * std::cos(2.0 * M_PI * c[d] / a.n);
    eig[i] = e;
  }
  return eig;
}

}  // namespace mrwb::noncart
