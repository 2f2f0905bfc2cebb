#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/reconstructor.hpp"

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

// Methods of the CLI contract; those with no registered implementation answer "not yet available".
const std::vector<std::string> k_methods = {"fft", "grappa", "gridding", "cg"};

using ReconRegistry = BackendRegistry<std::function<std::unique_ptr<Reconstructor>()>>;

ReconRegistry& registry() {
  // CPU references of core. One line per method.
  static ReconRegistry r({
      {{"fft", "cpu"}, {[] { return true; }, [] { return make_function_reconstructor("fft/cpu", fft_recon); }}},
      {{"grappa", "cpu"}, {[] { return true; }, [] { return make_grappa_cpu_reconstructor(); }}},
      {{"gridding", "cpu"}, {[] { return true; }, [] { return noncart::make_gridding_reconstructor_cpu(); }}},
      {{"cg", "cpu"}, {[] { return true; }, [] { return noncart::make_cg_reconstructor_cpu(); }}},
  });
  return r;
}

}  // namespace

std::unique_ptr<Reconstructor> make_function_reconstructor(std::string name, ReconFn fn) {
  return std::make_unique<FunctionReconstructor>(std::move(name), std::move(fn));
}

void register_reconstructor(const std::string& method, const std::string& backend, ReconBackend b) {
  registry().add(method, backend, std::move(b));
}

std::vector<std::string> reconstructor_methods() { return k_methods; }

std::unique_ptr<Reconstructor> make_reconstructor(const std::string& method, const std::string& backend) {
  bool known = false;
  for (const auto& m : k_methods) known |= (m == method);
  if (!known) throw InputError("--method " + method + ": unknown method (allowed: fft, grappa, gridding, cg)");
  const auto refusal = [&method](BackendRefusal why, const std::string& choice, const std::string& b) -> std::string {
    if (why == BackendRefusal::Unknown) return "--backend " + choice + ": unknown backend (allowed: auto, cpu, cuda)";
    if (why == BackendRefusal::Unavailable) return "--backend cuda: no CUDA device available here";
    if (!registry().find(method, "cpu") && !registry().find(method, "cuda"))
      throw std::runtime_error("recon --method " + method + ": not yet available in this version");
    if (b == "cuda") return "--backend cuda: method " + method + " has no CUDA implementation (allowed: cpu)";
    return "--backend " + choice + ": method " + method + " has no CPU implementation (use cuda)";
  };
  return registry().choose(method, backend, refusal)();
}

}  // namespace mrwb
