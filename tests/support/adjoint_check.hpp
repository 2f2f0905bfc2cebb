#pragma once
// The adjoint test of a linear operator A and its claimed adjoint A^H: for random x and y,
// <A x, y> = <x, A^H y>. check_adjoint returns |<A x, y> - <x, A^H y>| / (|A x| |y|), formed in double;
// by Cauchy-Schwarz that is at most the relative error of either inner product, and it does not blow up
// when <A x, y> happens to be small.
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <vector>

#include "numeric.hpp"

namespace mrwb::test {

// X and Y are the element types forward and adjoint take (complex<float> or complex<double>); x is
// complex_noise(n_in, stream) and y complex_noise(n_out, stream + 1). The results may be vectors of either
// precision. A result of the wrong length gives +inf, so that the caller's threshold fails.
template <typename X = std::complex<float>, typename Y = std::complex<float>, typename Forward, typename Adjoint>
double check_adjoint(Forward&& forward, Adjoint&& adjoint, std::size_t n_in, std::size_t n_out, unsigned stream) {
  const auto xf = complex_noise(n_in, stream), yf = complex_noise(n_out, stream + 1);
  const std::vector<X> x(xf.begin(), xf.end());
  const std::vector<Y> y(yf.begin(), yf.end());
  const auto ax = forward(x);
  const auto ahy = adjoint(y);
  if (ax.size() != n_out || ahy.size() != n_in) return std::numeric_limits<double>::infinity();
  using cdouble = std::complex<double>;
  cdouble lhs{}, rhs{};
  double ax2 = 0, y2 = 0;
  for (std::size_t i = 0; i < n_out; ++i) {
    const cdouble a(ax[i]), b(y[i]);
    lhs += std::conj(a) * b;
    ax2 += std::norm(a);
    y2 += std::norm(b);
  }
  for (std::size_t i = 0; i < n_in; ++i) rhs += std::conj(cdouble(x[i])) * cdouble(ahy[i]);
  return std::abs(lhs - rhs) / std::sqrt(ax2 * y2);
}

}  // namespace mrwb::test
