#pragma once
// Cartesian FFT reconstruction through FFTW: per-coil centred 2-D inverse DFT, then coil combination
// (the complex image for one coil, root sum of squares for several).
#include <string>

#include "mrwb/image.hpp"
#include "mrwb/progress.hpp"
#include "mrwb/raw_data.hpp"
#include "mrwb/reconstructor.hpp"

namespace mrwb {

Image2D reconstruct_fft(const RawData& raw);

// Centred inverse 2-D DFT of one [ny][nx] array (FFTW); image index i <-> x = (i − n/2)·dx.
std::vector<std::complex<float>> centred_ifft2(const std::complex<float>* k, int nx, int ny);

// Method dispatcher of `mrwb recon` through the reconstructor registry (reconstructor.hpp).
Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                    const CancelToken& cancel);
inline Image2D reconstruct(const RawData& raw, const std::string& method, const ProgressFn& progress,
                           const CancelToken& cancel) {
  ReconOptions o;
  o.method = method;
  return reconstruct(raw, o, progress, cancel);
}

}  // namespace mrwb
