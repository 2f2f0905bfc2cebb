#pragma once
// The SENSE encoding operator of one Cartesian 2-D slice with an arbitrary sampling mask (Pruessmann et al.
// 2001, "Advances in sensitivity encoding with arbitrary k-space trajectories", MRM 46:638, eq. 1):
//   E x = M F (S_c x)   for every coil c,   E^H k = sum_c S_c^H F^H M k_c,   E^H E x = sum_c S_c^H F^H M F S_c x,
// F the centred *unitary* 2-D DFT (the convention of BART's pics: its lambda means the same here) and M a
// real [ky][kx] mask (0/1, or weights). The project's raw k-space is the unnormalised centred DFT
// (base/fft.hpp centred_fft2): unitary_kspace() divides it by sqrt(nx·ny), after which x is the object on
// the image's own scale. FFTW plans are made once; the coils run in parallel.
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "mrwb/base/raw_data.hpp"

namespace mrwb {

class CartesianSenseOperator {
 public:
  // maps: [coil][y][x]; mask: [ky][kx] (nx·ny values). Throws InputError (one line) for a non-positive
  // size, maps not coils x ny x nx, a mask not ny x nx.
  CartesianSenseOperator(int nx, int ny, int coils, std::vector<std::complex<float>> maps, std::vector<float> mask);
  ~CartesianSenseOperator();
  CartesianSenseOperator(const CartesianSenseOperator&) = delete;
  CartesianSenseOperator& operator=(const CartesianSenseOperator&) = delete;

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  int coils() const { return coils_; }
  std::size_t plane() const { return static_cast<std::size_t>(nx_) * ny_; }
  const std::vector<float>& mask() const { return mask_; }
  const std::vector<std::complex<float>>& maps() const { return maps_; }

  // image [y][x] -> masked unitary k-space [coil][ky][kx].
  std::vector<std::complex<float>> forward(const std::vector<std::complex<float>>& x) const;
  // k-space [coil][ky][kx] (unitary scale) -> image.
  std::vector<std::complex<float>> adjoint(const std::vector<std::complex<float>>& k) const;
  // out = E^H E x (out may not alias x).
  void normal(const std::vector<std::complex<float>>& x, std::vector<std::complex<float>>& out) const;
  // sum_c |S_c|^2 per pixel.
  std::vector<float> sum_of_squares() const;

 private:
  struct Plans;
  int nx_, ny_, coils_;
  std::vector<std::complex<float>> maps_;
  std::vector<float> mask_;
  std::vector<std::complex<float>> pre_;   // centring modulation before the DFT (any n, no index roll)
  std::vector<std::complex<float>> post_;  // after it, times 1/sqrt(N)
  std::unique_ptr<Plans> plans_;
};

// The [ky][kx] mask of a Cartesian RawData: 1 on lines with kLineAcquired, 0 elsewhere.
std::vector<float> line_mask(const RawData& raw);
// raw.kspace (one slice) divided by sqrt(nx·ny): the data on the operator's unitary scale.
std::vector<std::complex<float>> unitary_kspace(const RawData& raw);
// What a Cartesian single-slice method needs of raw and maps; InputError "<who>: ..." otherwise.
void check_cartesian_slice(const char* who, const RawData& raw, const std::vector<std::complex<float>>& maps);

}  // namespace mrwb
