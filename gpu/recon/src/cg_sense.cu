// CG-SENSE on the device (twin of core's cg_sense.cpp; Pruessmann et al. 2001): core's one CG
// (iter/conjugate_gradient.hpp) on (E^H E + lambda I) rho = E^H d from rho = 0 over the device's vectors
// (DeviceVectorOps), the same iterations, lambda and tolerance.
#include <chrono>
#include <cmath>

#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb_gpu/recon/sparse_cuda.hpp"
#include "sparse_device.hpp"

namespace mrwb::gpu {
namespace sparse {

// x (n values, overwritten) = the CG-SENSE solution for k (device, unitary scale).
void cg_sense_device(const DeviceSense& E, const float2* k, const CgSenseParams& p, float2* x, CgSenseReport* report,
                     const ProgressFn& progress, const CancelToken& cancel) {
  const DeviceVectorOps ops(E.n);
  auto normal = [&](const DeviceBuffer<float2>& d, DeviceBuffer<float2>& q) {  // (E^H E + lambda I) d
    E.normal(d.get(), q.get());
    ops.axpy(p.lambda, d, q);
  };
  iter::CgConfig cfg;
  cfg.max_iterations = p.iterations;
  cfg.tolerance = p.tolerance;
  cfg.nan_curvature_stops = true;  // !(Re<d, q> > 0), as this solver always stopped
  cfg.residual_stops = true;       // and at r = 0
  cfg.stage = "cg-sense";
  cfg.progress = progress;
  cfg.cancel = &cancel;
  DeviceBuffer<float2> b = ops.make(), xv = ops.make();
  E.adjoint(k, b.get());
  cuda_check(cudaMemset(xv.get(), 0, E.n * sizeof(float2)), "memset");
  CgSenseReport rep = iter::conjugate_gradient(ops, normal, b, xv, cfg);
  cuda_check(cudaMemcpy(x, xv.get(), E.n * sizeof(float2), cudaMemcpyDeviceToDevice), "x");
  cuda_check(cudaGetLastError(), "cg-sense kernels");
  if (report) *report = std::move(rep);
}

}  // namespace sparse

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

std::vector<std::complex<float>> cg_sense_solve_cuda(const CartesianSenseOperatorCuda& E,
                                                     const std::vector<std::complex<float>>& k, const CgSenseParams& p,
                                                     CgSenseReport* report, const ProgressFn& progress,
                                                     const CancelToken& cancel) {
  const sparse::DeviceSense& dev = E.device();
  if (k.size() != dev.n * dev.coils) throw InputError("cg-sense cuda: k holds coils x ny x nx values");
  DeviceBuffer<float2> dk(k.size()), x(dev.n);
  dk.upload(reinterpret_cast<const float2*>(k.data()));
  sparse::cg_sense_device(dev, dk.get(), p, x.get(), report, progress, cancel);
  std::vector<std::complex<float>> out(dev.n);
  x.download(reinterpret_cast<float2*>(out.data()));
  return out;
}

Image2D reconstruct_cg_sense_cuda(const RawData& raw, const std::vector<std::complex<float>>& maps,
                                  const CgSenseParams& p, const ProgressFn& progress, const CancelToken& cancel,
                                  SparseCudaTiming* timing) {
  check_cg_sense_input(raw, maps, p);
  SparseCudaTiming tm;
  auto t0 = std::chrono::steady_clock::now();
  const sparse::DeviceSense E(raw.nx, raw.ny, raw.ncoils, maps.data(), line_mask(raw));
  DeviceBuffer<float2> k(E.n * E.coils), x(E.n);
  sparse::upload_unitary_kspace(raw, k.get());
  cuda_check(cudaDeviceSynchronize(), "upload");
  tm.upload_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  sparse::cg_sense_device(E, k.get(), p, x.get(), nullptr, progress, cancel);
  E.weight_by_rss(x.get());
  cuda_check(cudaDeviceSynchronize(), "cg-sense");
  tm.solve_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  Image2D out = sparse::download_image(raw, x.get());
  tm.download_s = seconds_since(t0);
  if (timing) *timing = tm;
  return out;
}

std::unique_ptr<Reconstructor> make_sense_reconstructor_cuda() {
  return make_function_reconstructor("sense/cuda", [](const RawData& raw, const ReconOptions& options,
                                                      const ProgressFn& progress, const CancelToken& cancel) {
    cancel.throw_if_cancelled();
    // The regular comb: the direct unfold, a small least-squares solve per aliased pixel set, on the host.
    Image2D img = sense_regular_comb(raw)
                      ? reconstruct_sense(raw, options.sense.maps)
                      : reconstruct_cg_sense_cuda(raw, options.sense.maps, options.sense.cg, progress, cancel);
    if (progress) progress(1.0, "recon");
    return img;
  });
}

}  // namespace mrwb::gpu
