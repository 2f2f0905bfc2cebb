#pragma once
// The receive coils the user asks for (the scenario's "coils" section).
#include <string>

namespace mrwb {

struct CoilSpec {
  int count = 1;                   // receive channels, 1 .. 128
  std::string arrangement = "loops";  // "loops": loop coils around the FOV (Biot–Savart); "uniform"
                                      // (count = 1 is always one uniform coil)
  double noise_std = 0;            // receiver noise: complex standard deviation per channel, in the
                                   // signal's units (voxel magnetization); 0 = noise-free
  double noise_correlation = 0;    // 0 .. 0.95: correlation rho^|i-j| of channels i and j (neighbours share flux)
};

}  // namespace mrwb
