// CG-SENSE on the device (twin of core's cg_sense.cpp; Pruessmann et al. 2001): CG on
// (E^H E + lambda I) rho = E^H d from rho = 0, the same iterations, lambda and tolerance, the scalars on the
// device (sparse_cg.cu) and the host one iteration behind for progress, cancel and the stop.
#include <chrono>
#include <cmath>

#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb_gpu/recon/sparse_cuda.hpp"
#include "sparse_device.hpp"

namespace mrwb::gpu {
namespace sparse {
namespace {

struct AddLambdaDot {  // q += lambda d; Re<d, q>
  float2* q;
  const float2* d;
  float lambda;
  __device__ double operator()(std::size_t i) const {
    q[i] = cadd(q[i], cscale(lambda, d[i]));
    return re_dot(d[i], q[i]);
  }
};

// Pinned host copies of the state, two slots (iteration parity).
struct PinnedStates {
  CgState* h = nullptr;
  PinnedStates() { cuda_check(cudaMallocHost(&h, 2 * sizeof(CgState)), "pinned state"); }
  ~PinnedStates() {
    cudaDeviceSynchronize();  // a copy into it may still be queued (cancel, stop)
    cudaFreeHost(h);
  }
};

}  // namespace

// x (zeroed here) = the CG-SENSE solution for k (device, unitary scale).
void cg_sense_device(const DeviceSense& E, const float2* k, const CgSenseParams& p, float2* x, CgSenseReport* report,
                     const ProgressFn& progress, const CancelToken& cancel) {
  const std::size_t n = E.n;
  DeviceBuffer<float2> r(n), d(n), q(n);
  DeviceBuffer<double> part(kReduceBlocks), residuals(std::max(p.iterations, 1));
  DeviceBuffer<CgState> st(1);
  cuda_check(cudaMemset(x, 0, n * sizeof(float2)), "memset");
  E.adjoint(k, r.get());
  dot_re(r.get(), r.get(), n, part.get());
  CgState s0;
  s0.rr = partials_to_host(part.get());
  s0.bnorm = std::sqrt(s0.rr);
  st.upload(&s0);
  cuda_check(cudaMemcpy(d.get(), r.get(), n * sizeof(float2), cudaMemcpyDeviceToDevice), "d = r");
  CgSenseReport rep;
  if (s0.bnorm > 0) {
    PinnedStates hs;
    Pacer pacer;
    int reported = 0;
    auto report_done = [&](const CgState& s) {
      for (; reported < s.iterations; ++reported)
        if (progress) progress(double(reported + 1) / p.iterations, "cg-sense");
    };
    for (int it = 0; it < p.iterations; ++it) {
      cancel.throw_if_cancelled();
      E.normal(d.get(), q.get());
      reduce(n, AddLambdaDot{q.get(), d.get(), static_cast<float>(p.lambda)}, part.get());
      cg_alpha(part.get(), st.get());
      cg_update(n, x, r.get(), d.get(), q.get(), st.get(), part.get(), residuals.get(), it, p.tolerance);
      cg_direction(n, d.get(), r.get(), st.get());
      cuda_check(cudaMemcpyAsync(hs.h + (it & 1), st.get(), sizeof(CgState), cudaMemcpyDeviceToHost), "state");
      pacer.queued(it);
      if (it > 0) {
        const CgState& prev = hs.h[(it - 1) & 1];
        report_done(prev);
        if (prev.stop) break;
      }
    }
    pacer.drain();
    cuda_check(cudaGetLastError(), "cg-sense kernels");
    CgState last;
    st.download(&last);
    report_done(last);
    rep.iterations = last.iterations;
    rep.relative_residual = last.relative_residual;
    rep.residuals.resize(last.iterations);
    if (last.iterations > 0)
      cuda_check(cudaMemcpy(rep.residuals.data(), residuals.get(), last.iterations * sizeof(double),
                            cudaMemcpyDeviceToHost),
                 "residuals");
  }
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
