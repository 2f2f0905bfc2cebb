#include "mrwb/recon/undersample.hpp"

#include <string>

#include "mrwb/base/errors.hpp"

namespace mrwb {

void undersample_cartesian(RawData& raw, int R, int acs_lines) {
  if (R < 1 || R > raw.ny) throw InputError("undersample: R = " + std::to_string(R) + " (allowed: 1 .. ny)");
  if (acs_lines < 0 || acs_lines > raw.ny)
    throw InputError("undersample: acs_lines = " + std::to_string(acs_lines) + " (allowed: 0 .. ny)");
  if (!raw.cartesian() || raw.kspace.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils)
    throw InputError("undersample: needs Cartesian raw data whose k-space matches nx*ny*ncoils");
  for (int y = 0; y < raw.ny; ++y)
    if (!(raw.flags(y) & kLineAcquired)) throw InputError("undersample: raw data is not fully sampled");
  const int k0 = raw.k0_line(), acs_first = k0 - acs_lines / 2;
  raw.line_flags.assign(raw.ny, 0);
  for (int y = 0; y < raw.ny; ++y) {
    std::uint8_t f = 0;
    if (((y - k0) % R + R) % R == 0) f |= kLineAcquired | kLineImaging;
    if (y >= acs_first && y < acs_first + acs_lines) f |= kLineAcquired | kLineCalibration;
    raw.line_flags[y] = f;
    if (!(f & kLineAcquired))
      for (int c = 0; c < raw.ncoils; ++c)
        for (int x = 0; x < raw.nx; ++x) raw.at(c, y, x) = {};
  }
  raw.accel_R = R;
}

}  // namespace mrwb
