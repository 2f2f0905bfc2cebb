#pragma once
// Where Cartesian k-space lands on the grid of the centred inverse DFT and which image pixels are kept:
// one layout for the FFTW reconstruction (recon_fft.cpp) and its cuFFT twin (gpu/recon/src/recon_fft.cu).
#include "mrwb/base/host_device.hpp"
#include "mrwb/base/image.hpp"
#include "mrwb/base/raw_data.hpp"

namespace mrwb {

struct FftLayout {
  int Nx = 0, Ny = 0;  // the symmetric grid: k = 0 at index N/2 (zero-filled around an asymmetric echo)
  int ox = 0, oy = 0;  // where sample 0 / line 0 of the raw data land on it
  int kx = 0, ky = 0;  // image pixels kept (readout oversampling cropped after the DFT)
  int x0 = 0, y0 = 0;  // the first kept pixel on the grid, so x = 0 stays at pixel kx / 2
};

// Checks the raw data (sizes, Cartesian, k-space centre inside; InputError) and lays them out.
FftLayout fft_layout(const RawData& raw);
// The image the layout gives: kx x ky pixels, FOV scaled by the crop, data zeroed.
Image2D fft_image(const RawData& raw, const FftLayout& l);

// The centred DFT's index shift (centred_ifft2, base/fft.hpp): grid index i <-> DFT index (i + n - n/2) mod n,
// both ways for the k-space going in and the image coming out (also odd n: kz partitions).
MRWB_HD int centred_dft_index(int i, int n) { return (i + n - n / 2) % n; }

}  // namespace mrwb
