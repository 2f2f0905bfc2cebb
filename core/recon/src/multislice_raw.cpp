// Multi-slice / 3-D raw data: the kz inverse DFT to hybrid space.
#include <algorithm>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/fft.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/recon_fft.hpp"

namespace mrwb {

void check_hybrid_space(const RawData& raw) {
  check_raw_layout(raw);
  const int P = raw.partitions;
  if (P > 1 && raw.k0_partition() != P / 2)
    throw InputError("recon: kz centre at partition " + std::to_string(raw.k0_partition()) + " of " + std::to_string(P) +
                     " (allowed: partitions/2 = " + std::to_string(P / 2) + "; kz partial Fourier is not supported)");
}

RawData hybrid_space(const RawData& raw) {
  check_hybrid_space(raw);
  if (raw.partitions == 1) return raw;
  const int P = raw.partitions;
  RawData out = raw;
  std::vector<std::complex<float>> kz(static_cast<std::size_t>(P));
  const std::size_t stride = static_cast<std::size_t>(raw.ny) * raw.nx;  // between partitions
  for (int c = 0; c < raw.ncoils; ++c)
    for (int s = 0; s < raw.slices; ++s) {
      const std::size_t base = raw.index(c, s, 0, 0, 0);
      for (std::size_t i = 0; i < stride; ++i) {
        for (int p = 0; p < P; ++p) kz[static_cast<std::size_t>(p)] = raw.kspace[base + p * stride + i];
        // The 1-D centred inverse DFT (1/P) with the convention of the in-plane axes: z = (i − P/2)·dz.
        const auto z = centred_ifft2(kz.data(), P, 1);
        for (int p = 0; p < P; ++p) out.kspace[base + p * stride + i] = z[static_cast<std::size_t>(p)];
      }
    }
  return out;
}

}  // namespace mrwb
