// espirit_maps' backends (recon/espirit_backend.hpp).
#include "mrwb/recon/espirit_backend.hpp"

#include <string>

namespace mrwb {
namespace {

BackendRegistry<EspiritFn>& registry() {
  static BackendRegistry<EspiritFn> r({{{"espirit", Backend::Cpu},
                                        {[] { return true; }, [](const RawData& raw, const EspiritParams& p) {
                                           return espirit_maps(raw, p);
                                         }}}});
  return r;
}

}  // namespace

void register_espirit(Backend backend, EspiritBackend b) { registry().add("espirit", backend, std::move(b)); }

EspiritMaps espirit_maps(const RawData& raw, const EspiritParams& p, Backend backend) {
  const auto refusal = [](BackendRefusal why, Backend, Backend b) -> std::string {
    if (why == BackendRefusal::Unavailable) return "espirit --backend cuda: no CUDA device available here (allowed: cpu, auto)";
    return "espirit --backend " + name_of(b) + ": not in this build (allowed: cpu, auto)";
  };
  return registry().choose("espirit", backend, refusal)(raw, p);
}

}  // namespace mrwb
