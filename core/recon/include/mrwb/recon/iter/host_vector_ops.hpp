#pragma once
// conjugate_gradient's vector operations on complex<float> images in host memory: sums in double, the
// step sizes rounded to float before they scale a vector (what CG-SENSE and ADMM's x-update did by hand).
#include <complex>
#include <cstddef>
#include <vector>

namespace mrwb::iter {

// Re<a, b> = sum_i Re(a_i) Re(b_i) + Im(a_i) Im(b_i), in double.
inline double dot_re(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += double(a[i].real()) * b[i].real() + double(a[i].imag()) * b[i].imag();
  return s;
}

// ||a||^2, in double.
inline double squared_norm(const std::vector<std::complex<float>>& a) { return dot_re(a, a); }

struct HostVectorOps {
  using vector = std::vector<std::complex<float>>;
  std::size_t n = 0;  // values per vector

  vector make() const { return vector(n); }
  static double dot(const vector& a, const vector& b) { return dot_re(a, b); }
  static double squared_norm(const vector& a) { return iter::squared_norm(a); }
  static void copy(const vector& src, vector& dst) { dst = src; }
  static void axpy(double alpha, const vector& x, vector& y) {  // y += alpha x
    const float a = static_cast<float>(alpha);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += a * x[i];
  }
  static void xpay(const vector& x, double beta, vector& y) {  // y = x + beta y
    const float b = static_cast<float>(beta);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = x[i] + b * y[i];
  }
};

}  // namespace mrwb::iter
