#pragma once
// CUDA twins of core's Cartesian SENSE operator, CG-SENSE and compressed sensing (cartesian_sense_operator.hpp,
// cg_sense.hpp, compressed_sensing.hpp): the same math and conventions (unitary centred DFT by modulation,
// [ky][kx] mask, Daubechies periodic wavelet with the same cycle-spinning shifts, FISTA step 1/L by power
// iteration, TV ADMM with a warm-started CG x-update; core's cs_data_scale itself, on the host), with every
// iteration on the device: cuFFT batched over the coils, fused elementwise kernels, reductions in double like
// the CPU's, the host at most one iteration ahead (progress and cancel per iteration). No CUDA type in this header.
#include <complex>
#include <memory>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/cg_sense.hpp"
#include "mrwb/recon/compressed_sensing.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb::gpu {

namespace sparse {
struct DeviceSense;  // sparse_device.hpp
}

// E of CartesianSenseOperator on the device: maps and mask uploaded once, one cuFFT plan for all coils.
class CartesianSenseOperatorCuda {
 public:
  // Same arguments and refusals (InputError) as CartesianSenseOperator.
  CartesianSenseOperatorCuda(int nx, int ny, int coils, const std::vector<std::complex<float>>& maps,
                             const std::vector<float>& mask);
  ~CartesianSenseOperatorCuda();
  CartesianSenseOperatorCuda(const CartesianSenseOperatorCuda&) = delete;
  CartesianSenseOperatorCuda& operator=(const CartesianSenseOperatorCuda&) = delete;

  int nx() const;
  int ny() const;
  int coils() const;
  // Host in, host out (for tests): E x, E^H k, E^H E x.
  std::vector<std::complex<float>> forward(const std::vector<std::complex<float>>& x) const;
  std::vector<std::complex<float>> adjoint(const std::vector<std::complex<float>>& k) const;
  std::vector<std::complex<float>> normal(const std::vector<std::complex<float>>& x) const;
  sparse::DeviceSense& device() const { return *dev_; }

 private:
  std::unique_ptr<sparse::DeviceSense> dev_;
};

// Device times of the last solve [s] (host clock around synchronised phases).
struct SparseCudaTiming {
  double upload_s = 0;  // maps, mask and k-space to the device, operator set-up (plan)
  double solve_s = 0;   // data scale, E^H d, power iteration, the iterations
  double download_s = 0;
};

// Twins of cg_sense_solve and cs_solve: k [coil][ky][kx] on the unitary scale; returns x [y][x].
std::vector<std::complex<float>> cg_sense_solve_cuda(const CartesianSenseOperatorCuda& E,
                                                     const std::vector<std::complex<float>>& k,
                                                     const CgSenseParams& params, CgSenseReport* report = nullptr,
                                                     const ProgressFn& progress = {}, const CancelToken& cancel = {});
std::vector<std::complex<float>> cs_solve_cuda(const CartesianSenseOperatorCuda& E, const std::vector<std::complex<float>>& k,
                                               const CsParams& params, CsReport* report = nullptr,
                                               const ProgressFn& progress = {}, const CancelToken& cancel = {});

// Twins of reconstruct_cg_sense and reconstruct_compressed_sensing: the same input checks, the same scale
// (rho weighted by the maps' root sum of squares; CS divided by cs_data_scale when params.scale_data).
Image2D reconstruct_cg_sense_cuda(const RawData& raw, const std::vector<std::complex<float>>& maps,
                                  const CgSenseParams& params, const ProgressFn& progress = {},
                                  const CancelToken& cancel = {}, SparseCudaTiming* timing = nullptr);
Image2D reconstruct_compressed_sensing_cuda(const RawData& raw, const std::vector<std::complex<float>>& maps,
                                            const CsParams& params, const ProgressFn& progress = {},
                                            const CancelToken& cancel = {}, SparseCudaTiming* timing = nullptr,
                                            CsReport* report = nullptr);

// "sense/cuda": the direct unfold (reconstruct_sense, a tiny per-pixel solve on the host) on a regular comb,
// CG-SENSE on the device otherwise. "cs/cuda": reconstruct_compressed_sensing_cuda.
std::unique_ptr<Reconstructor> make_sense_reconstructor_cuda();
std::unique_ptr<Reconstructor> make_cs_reconstructor_cuda();

}  // namespace mrwb::gpu
