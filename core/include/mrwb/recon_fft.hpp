#pragma once
// Cartesian FFT reconstruction through FFTW: per-coil centred 2-D inverse DFT, then coil combination
// (the complex image for one coil, root sum of squares for several).
#include <string>

#include "mrwb/image.hpp"
#include "mrwb/progress.hpp"
#include "mrwb/raw_data.hpp"

namespace mrwb {

Image2D reconstruct_fft(const RawData& raw);

// Method dispatcher of `mrwb recon`: "fft" here; other methods throw std::runtime_error
// ("... not yet available").
Image2D reconstruct(const RawData& raw, const std::string& method, const ProgressFn& progress,
                    const CancelToken& cancel);

}  // namespace mrwb
