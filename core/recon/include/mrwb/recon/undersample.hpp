#pragma once
// Regular Cartesian undersampling with a block of autocalibration (ACS) lines, as GRAPPA expects it.
#include "mrwb/base/raw_data.hpp"

namespace mrwb {

// Keeps every R-th phase-encode line (ky − k0 ≡ 0 mod R, so k = 0 is acquired) for imaging and the
// acs_lines lines around k0 (first k0 − acs_lines/2) for calibration; zeroes the other lines and sets
// line_flags (kLineAcquired | kLineImaging / kLineCalibration) and accel_R. ACS lines off the lattice are
// calibration-only. Throws InputError for R < 1, acs_lines outside 0 .. ny or data not fully sampled.
void undersample_cartesian(RawData& raw, int R, int acs_lines);

}  // namespace mrwb
