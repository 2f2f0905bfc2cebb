#include "mrwb/flow/lbm_backends.hpp"

#include <string>
#include <utility>

#include "mrwb/base/backend_registry.hpp"
#include "mrwb/base/cuda_backends.hpp"

namespace mrwb {
namespace {

constexpr const char* k_lbm = "lbm";

BackendRegistry<LbmRunner>& registry() {
  static BackendRegistry<LbmRunner> r({{{k_lbm, Backend::Cpu},
                                        {[] { return true; },
                                         [](const LbmDomain& d, const LbmParams& p, const ProgressFn& pr,
                                            const CancelToken& c) { return lbm_run_cpu(d, p, pr, c); }}}});
  return r;
}

}  // namespace

void register_lbm_runner(Backend backend, std::function<bool()> available, LbmRunner run) {
  registry().add(k_lbm, backend, {std::move(available), std::move(run)});
}

LbmRunner choose_lbm_runner(Backend choice) {
  return registry().choose(k_lbm, choice, [](BackendRefusal why, Backend, Backend) {
    const std::string reason = why == BackendRefusal::Unavailable ? "no CUDA device (" + cuda_device_description() + ")"
                                                                  : cuda_backends_missing_reason();
    return "--backend cuda: " + reason + "; use auto or cpu";
  });
}

}  // namespace mrwb
