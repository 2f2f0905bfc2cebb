// Fixture for tests/architecture: base may not include a header of recon (a layer above it), so
// check_core_layers.cmake must refuse this file.
#include "mrwb/recon/noncart_cg.hpp"
