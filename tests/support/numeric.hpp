#pragma once
// Numbers several suites compare with: relative differences of two arrays, the magnitude of a complex
// array, the Ernst steady-state signal. rel_l2's Term is double (each |a_i − b_i|² and |b_i|² formed in double)
// or float (formed as complex<float> arithmetic forms them, for the suites that compare in float); an all-zero
// reference gives +inf.
#include <cmath>
#include <complex>
#include <cstddef>
#include <random>
#include <vector>

#include "mrwb/metrics/relative_l2.hpp"

namespace mrwb::test {

// Relative L2 difference of a from reference b (mrwb/metrics/relative_l2.hpp).
template <typename Term = double, typename T>
double rel_l2(const std::vector<T>& a, const std::vector<T>& b) {
  return mrwb::relative_l2<Term>(a, b);
}

// Relative RMS difference of a from reference b: the same number as rel_l2 (the 1/N under both roots cancels).
template <typename T>
double rel_rms(const std::vector<T>& a, const std::vector<T>& b) {
  return rel_l2(a, b);
}

// n complex values, real and imaginary parts independent standard normal (float), from `seed`: the operators'
// adjoint and linearity checks.
inline std::vector<std::complex<float>> complex_noise(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  std::vector<std::complex<float>> v(n);
  for (auto& a : v) a = {g(rng), g(rng)};
  return v;
}

// Magnitude image of a complex array: scale · |v_i| as float.
template <typename T>
std::vector<float> mag(const std::vector<std::complex<T>>& v, double scale = 1.0) {
  std::vector<float> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = static_cast<float>(scale * std::abs(v[i]));
  return m;
}

// Ernst signal of an ideally spoiled GE at TE: M0·sin α·(1 − E1)/(1 − cos α·E1)·E2, E1 = e^(−TR/T1), E2 = e^(−TE/T2).
inline double ernst_signal(double M0, double alpha_rad, double TR_s, double TE_s, double T1_s, double T2_s) {
  const double E1 = std::exp(-TR_s / T1_s), E2 = std::exp(-TE_s / T2_s);
  return M0 * std::sin(alpha_rad) * (1 - E1) / (1 - std::cos(alpha_rad) * E1) * E2;
}

}  // namespace mrwb::test
