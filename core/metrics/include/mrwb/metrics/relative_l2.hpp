#pragma once
// How far a result is from a reference: sqrt(Σ|a_i − b_i|² / Σ|b_i|²), summed in double. What the benches
// and tests report for CUDA against CPU, a split over GPUs against one, a twin against its reference.
#include <cmath>
#include <complex>
#include <cstddef>
#include <span>
#include <vector>

namespace mrwb {

// Term: the type each |a_i − b_i|² and |b_i|² is formed in (double; float where a comparison should see the
// rounding of complex<float> arithmetic). +inf when the reference is all zeros: a comparison with nothing
// proves nothing, and +inf fails every bound.
template <typename Term = double, typename T>
double relative_l2(std::span<const T> a, std::span<const T> b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += std::norm(std::complex<Term>(a[i]) - std::complex<Term>(b[i]));
    den += std::norm(std::complex<Term>(b[i]));
  }
  return den > 0 ? std::sqrt(num / den) : HUGE_VAL;
}
template <typename Term = double, typename T>
double relative_l2(const std::vector<T>& a, const std::vector<T>& b) {
  return relative_l2<Term>(std::span<const T>(a), std::span<const T>(b));
}

// The same on magnitudes, sqrt(Σ(|a_i| − |b_i|)² / Σ|b_i|²): phase ignored (coil maps, images).
template <typename T>
double magnitude_relative_l2(std::span<const T> a, std::span<const T> b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(std::complex<double>(a[i])) - std::abs(std::complex<double>(b[i]));
    num += d * d;
    den += std::norm(std::complex<double>(b[i]));
  }
  return den > 0 ? std::sqrt(num / den) : HUGE_VAL;
}
template <typename T>
double magnitude_relative_l2(const std::vector<T>& a, const std::vector<T>& b) {
  return magnitude_relative_l2(std::span<const T>(a), std::span<const T>(b));
}

}  // namespace mrwb
