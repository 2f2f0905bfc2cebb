#pragma once
// Cartesian FFT reconstruction through FFTW: per-coil centred 2-D inverse DFT, then coil combination
// (the complex image for one coil, root sum of squares for several).
#include <string>

#include "mrwb/base/fft.hpp"
#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb {

Image2D reconstruct_fft(const RawData& raw);


// Method dispatcher of `mrwb recon` through the reconstructor registry (reconstructor.hpp).
Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                    const CancelToken& cancel);
inline Image2D reconstruct(const RawData& raw, ReconMethod method, const ProgressFn& progress,
                           const CancelToken& cancel) {
  ReconOptions o;
  o.method = method;
  return reconstruct(raw, o, progress, cancel);
}

}  // namespace mrwb
