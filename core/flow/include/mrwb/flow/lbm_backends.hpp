#pragma once
// The lattice-Boltzmann solver's backends for `mrwb flow --backend` and the GUI's Compute Flow: the CPU's
// lbm_run_cpu, and the CUDA twin that gpu::register_backends() adds (base/backend_registry.hpp's one
// auto | cpu | cuda choice).
#include <functional>

#include "mrwb/base/backend.hpp"
#include "mrwb/flow/lbm.hpp"

namespace mrwb {

void register_lbm_runner(Backend backend, std::function<bool()> available, LbmRunner run);
// The runner of `choice`; InputError naming --backend when it is not here.
LbmRunner choose_lbm_runner(Backend choice);

}  // namespace mrwb
