#include <stdexcept>

#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/reconstructor.hpp"
#include "mrwb/recon/sense.hpp"

namespace mrwb {
namespace {

class FunctionReconstructor final : public Reconstructor {
 public:
  FunctionReconstructor(std::string name, ReconFn fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  std::string name() const override { return name_; }
  Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                      const CancelToken& cancel) override {
    return fn_(raw, options, progress, cancel);
  }

 private:
  std::string name_;
  ReconFn fn_;
};

Image2D fft_recon(const RawData& raw, const ReconOptions&, const ProgressFn& progress, const CancelToken& cancel) {
  cancel.throw_if_cancelled();
  Image2D img = reconstruct_fft(raw);
  if (progress) progress(1.0, "recon");
  return img;
}

Image2D sense_recon(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                    const CancelToken& cancel) {
  cancel.throw_if_cancelled();
  Image2D img = sense_regular_comb(raw) ? reconstruct_sense(raw, options.sense.maps)
                                        : reconstruct_cg_sense(raw, options.sense.maps, options.sense.cg, progress, cancel);
  if (progress) progress(1.0, "recon");
  return img;
}

Image2D cs_recon(const RawData& raw, const ReconOptions& options, const ProgressFn& progress, const CancelToken& cancel) {
  return reconstruct_compressed_sensing(raw, options.sense.maps, options.cs, progress, cancel);
}

using ReconRegistry = BackendRegistry<std::function<std::unique_ptr<Reconstructor>()>>;

// Keyed by the method's name; a method with no registered implementation answers "not yet available".
std::string key(ReconMethod method) { return name_of(method); }

ReconRegistry& registry() {
  // CPU references of core. One line per method.
  static ReconRegistry r({
      {{key(ReconMethod::Fft), Backend::Cpu},
       {[] { return true; }, [] { return make_function_reconstructor("fft/cpu", fft_recon); }}},
      {{key(ReconMethod::Grappa), Backend::Cpu}, {[] { return true; }, [] { return make_grappa_cpu_reconstructor(); }}},
      {{key(ReconMethod::Gridding), Backend::Cpu},
       {[] { return true; }, [] { return noncart::make_gridding_reconstructor_cpu(); }}},
      {{key(ReconMethod::Cg), Backend::Cpu}, {[] { return true; }, [] { return noncart::make_cg_reconstructor_cpu(); }}},
      {{key(ReconMethod::Sense), Backend::Cpu},
       {[] { return true; }, [] { return make_function_reconstructor("sense/cpu", sense_recon); }}},
      {{key(ReconMethod::Cs), Backend::Cpu}, {[] { return true; }, [] { return make_function_reconstructor("cs/cpu", cs_recon); }}},
  });
  return r;
}

}  // namespace

std::unique_ptr<Reconstructor> make_function_reconstructor(std::string name, ReconFn fn) {
  return std::make_unique<FunctionReconstructor>(std::move(name), std::move(fn));
}

void register_reconstructor(ReconMethod method, Backend backend, ReconBackend b) {
  registry().add(key(method), backend, std::move(b));
}

std::unique_ptr<Reconstructor> make_reconstructor(ReconMethod method, Backend backend) {
  const std::string name = key(method);
  const auto refusal = [&name](BackendRefusal why, Backend choice, Backend b) -> std::string {
    if (why == BackendRefusal::Unavailable) return "--backend cuda: no CUDA device available here";
    if (!registry().find(name, Backend::Cpu) && !registry().find(name, Backend::Cuda))
      throw std::runtime_error("recon --method " + name + ": not yet available in this version");
    if (b == Backend::Cuda && !cuda_backends_registered())
      return "--backend cuda: " + cuda_backends_missing_reason() + " (allowed: auto, cpu)";
    if (b == Backend::Cuda) return "--backend cuda: method " + name + " has no CUDA implementation (allowed: cpu)";
    return "--backend " + name_of(choice) + ": method " + name + " has no CPU implementation (use cuda)";
  };
  return registry().choose(name, backend, refusal)();
}

}  // namespace mrwb
