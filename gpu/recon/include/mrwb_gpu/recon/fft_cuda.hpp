#pragma once
// CUDA twin of core's reconstruct_fft (recon_fft.hpp): the same layout (fft_layout.hpp), every coil's
// centred inverse DFT in one batched cuFFT plan, crop and coil combination (the complex image for one
// coil, root sum of squares for several) on the device. No CUDA type in this header.
#include <memory>

#include "mrwb/base/image.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb::gpu {

Image2D reconstruct_fft_cuda(const RawData& raw);
std::unique_ptr<Reconstructor> make_fft_reconstructor_cuda();

}  // namespace mrwb::gpu
