// Fixture for core_layers_refuse_upward_gpu_include: gpu/recon may not include gpu/simulation.
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"
