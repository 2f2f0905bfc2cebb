#pragma once
// CUDA twin of mrwb/recon/grappa.hpp: the whole GRAPPA on the device, calibration solve included.
//   calibrate(): [B; A] built from the ACS blocks (complex double), per-position normalisation and power
//     clipping on the device, [U; V] = [B; A]·A^H in one cuBLAS ZGEMM (strided batch over slices x
//     segments), Tikhonov on the diagonal, cuSOLVER Cholesky (potrf, potrfBatched for several systems),
//     W = U·V^-1 by two cuBLAS triangular solves (cusolver's potrsBatched takes one right-hand side only).
//   synthesize(): A_syn of every missing-line group and column, [W_s] · A_syn in one CGEMM, scatter into
//     the missing lines (acquired lines kept; basic weights blended across columns).
//   combine(): per-coil centred iFFT (cuFFT, batched over coils), readout crop, SoS or sensitivity-weighted.
// No CUDA type in this header (tests and the CLI include it).
#include <complex>
#include <memory>
#include <vector>

#include "mrwb/recon/grappa.hpp"

namespace mrwb::gpu {

// Device-side times (CUDA events) of the last call of each stage; transfers separately.
struct GrappaCudaTiming {
  double upload_ms = 0;          // host -> device of the last upload (ACS blocks or k-space)
  double calibrate_ms = 0;       // A, B .. W on the device, solve included
  double calib_gemm_ms = 0, calib_gemm_gflop = 0;  // the [B; A]·A^H ZGEMM (8·m·n·k flops)
  double synth_ms = 0;           // A_syn, CGEMM, scatter
  double synth_gemm_ms = 0, synth_gemm_gflop = 0;
  double combine_ms = 0;         // centring, cuFFT, crop, combination
  double download_ms = 0;        // device -> host of the last download
};

class GrappaCuda {
 public:
  // nslices ACS blocks of the same geometry are calibrated in one batch.
  GrappaCuda(const GrappaGeometry& g, const GrappaParams& params, int nslices = 1);
  ~GrappaCuda();
  GrappaCuda(const GrappaCuda&) = delete;
  GrappaCuda& operator=(const GrappaCuda&) = delete;

  void upload_acs(int slice, const std::vector<std::complex<float>>& acs);  // grappa_acs_block layout
  void calibrate();
  GrappaWeights weights(int slice);
  // One slice's undersampled k-space; then synthesize with that slice's weights and combine.
  void upload_kspace(const RawData& raw);
  void synthesize(int slice);
  void combine(const RawData& raw, const std::string& combine);
  std::vector<std::complex<float>> kspace();  // synthesised k-space [coil][line][sample]
  Image2D image();
  const GrappaCudaTiming& timing() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Weights of several slices calibrated in one device batch (each slice: grappa_geometry of its own data,
// which must agree).
std::vector<GrappaWeights> grappa_calibrate_cuda(const std::vector<const RawData*>& slices, const GrappaParams& params);
Image2D reconstruct_grappa_cuda(const RawData& raw, const GrappaParams& params, const ProgressFn& progress,
                                const CancelToken& cancel, GrappaCudaTiming* timing = nullptr);
std::unique_ptr<Reconstructor> make_grappa_cuda_reconstructor();
// cuBLAS's own rate on this device for an n x n x n complex GEMM (CGEMM, or ZGEMM), GFLOP/s (8·n^3 flops).
double cublas_complex_gemm_gflops(bool double_precision, int n);

}  // namespace mrwb::gpu
