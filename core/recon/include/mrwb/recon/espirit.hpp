#pragma once
// ESPIRiT coil sensitivities (Uecker et al. 2014, "ESPIRiT — an eigenvalue approach to autocalibrating parallel
// MRI: where SENSE meets GRAPPA", Magn Reson Med 71:990), one set of maps, CPU reference. From a fully sampled
// calibration block:
//   1. the calibration matrix A: every kernel_size² x C patch of the block, one row each (their eq. 3);
//   2. its right singular vectors V_par with sigma_n / sigma_0 > sqrt(svd_threshold) (BART ecalib -t) span the
//      signal space (eq. 9);
//   3. in image space the projection onto it is, voxel by voxel, the C x C matrix
//        G(x) = (1 / kernel_size²) · sum_n v_n(x) v_n(x)^H,  v_n(x) = sum_p V_n[c, p] · e^{+2 pi i p·x / N}
//      (eq. 16: the kernels' inverse DFT); its entries hold frequencies |dp| < kernel_size only, so G is
//      computed exactly on a 2·kernel_size grid and interpolated to the image grid;
//   4. the maps are the eigenvector of G(x) of eigenvalue ~1 (eq. 17): unit norm over the coils (the root sum of
//      squares of the maps is 1), the phase of their projection onto the calibration data's first principal
//      coil component set to 0, and zero where the eigenvalue is at most `crop` (BART ecalib -c).
// Image grid: the one of centred_ifft2 (base/fft.hpp), pixel i <-> x = (i − n/2)·dx.
#include <complex>
#include <vector>

#include "mrwb/base/raw_data.hpp"

namespace mrwb {

struct EspiritParams {
  int calib_size = 24;           // BART ecalib -r: calibration block calib_size x calib_size (clipped to the acquired block)
  int kernel_size = 6;           // BART ecalib -k
  double svd_threshold = 0.001;  // BART ecalib -t: keep singular vectors with (sigma_n / sigma_0)² > svd_threshold
  double crop = 0.8;             // BART ecalib -c: maps set to 0 where the eigenvalue is <= crop
};

struct EspiritMaps {
  std::vector<std::complex<float>> maps;  // [coil][y][x]
  std::vector<float> eigenvalue;          // [y][x], ~1 inside the object
  int coils = 0, nx = 0, ny = 0;
  int kernels = 0;                        // signal-space dimension kept (columns of V_par)
};

// From a centred Cartesian calibration block [coil][cy][cx] (k = 0 at index cy/2, cx/2), maps on an nx x ny
// image grid. Throws InputError (one line) for a block smaller than the kernel
// or parameters outside their ranges, and for a block without signal.
EspiritMaps espirit_from_calibration(const std::vector<std::complex<float>>& calib, int cx, int cy, int coils, int nx,
                                     int ny, const EspiritParams& p);

// From raw data (Cartesian, one slice): the largest fully acquired block of lines around k0 (calibration and/or
// imaging lines, raw.flags(line) & kLineAcquired), at most calib_size lines by calib_size samples centred on k0;
// maps on the encoded grid of the FFT reconstruction (fft_layout, recon/fft_layout.hpp), then cropped as it
// crops readout oversampling, so they sit on the image the FFT and sense_unfold give. The data are used as they
// are: prewhiten data and maps together (noise_prewhitening.hpp) where channels correlate.
EspiritMaps espirit_maps(const RawData& raw, const EspiritParams& p);

// From non-Cartesian raw data (2-D trajectory, BART convention, cycles/FOV; noncart_types.hpp): the samples
// with max(|k_x|, |k_y|) < calib_size/2 + a margin are gridded (Kaiser-Bessel, Pipe-Menon density) onto a
// low-resolution image whose centred DFT gives the calib_size x calib_size block around k = 0; maps on the
// matrix x matrix grid of the non-Cartesian reconstruction (x = (i − n/2)/n; matrix 0: default_matrix).
// Throws InputError for Cartesian or 3-D data, a matrix below calib_size, and what espirit_from_calibration refuses.
EspiritMaps espirit_maps_noncart(const RawData& raw, int matrix, const EspiritParams& p);

// espirit_maps' two halves, for its CUDA twin: the calibration block it takes from the raw data (after
// check_espirit_input; [coil][cy][cx], k = 0 at cy/2, cx/2), and the maps of the encoded grid (fft_layout's
// Nx x Ny) cropped to the image as reconstruct_fft crops readout oversampling.
struct EspiritBlock {
  std::vector<std::complex<float>> data;
  int cx = 0, cy = 0, coils = 0;
};
EspiritBlock espirit_calibration_block(const RawData& raw, const EspiritParams& p);
EspiritMaps espirit_crop_to_image(const RawData& raw, EspiritMaps m);

// espirit_maps_noncart's first half, for the backends (espirit_backend.hpp): its refusals, the gridded
// calib_size² block and the matrix of the image grid (matrix, or the trajectory's default_matrix for 0).
struct EspiritNoncartCalibration {
  EspiritBlock block;
  int matrix = 0;
};
EspiritNoncartCalibration espirit_noncart_calibration(const RawData& raw, int matrix, const EspiritParams& p);

// What espirit_from_calibration refuses (InputError, one line), for its CUDA twin as well: parameters outside their
// ranges, an empty image grid, a block smaller than the kernel or not coils x cy x cx values.
void check_espirit_calibration(const EspiritBlock& block, int nx, int ny, const EspiritParams& p);

// What espirit_maps refuses (InputError, one line naming the option and the allowed range): non-Cartesian or
// multi-slice data; crop or svd_threshold outside [0, 1]; kernel_size outside [2, calib_size]; calib_size outside
// [kernel_size, min(nx, ny)]; fewer than kernel_size + 1 fully acquired lines (or samples) around k = 0.
void check_espirit_input(const RawData& raw, const EspiritParams& p);

}  // namespace mrwb
