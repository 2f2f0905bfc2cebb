#pragma once
// Shared by the CLI tests of non-Cartesian recon: BART .cfl inputs — a trajectory [3, samples, readouts]
// (cycles per FOV; kz 0 for a 2-D trajectory) and its k-space [1, samples, readouts, 1]. Magnitudes of what
// the CLI writes: numeric.hpp's mag.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "mrwb/io/file_io.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb_test {

inline void write_bart(const std::string& k_path, const std::string& t_path, const mrwb::noncart::Trajectory& t,
                       const std::vector<std::complex<float>>& d) {
  mrwb::CflArray traj{{3, t.samples, t.readouts}, {}}, k{{1, t.samples, t.readouts, 1}, d};
  for (std::size_t m = 0; m < t.count(); ++m)
    traj.data.insert(traj.data.end(), {t.k[m * t.dims], t.k[m * t.dims + 1], t.dims == 3 ? t.k[m * 3 + 2] : 0.0f});
  mrwb::write_cfl(t_path, traj);
  mrwb::write_cfl(k_path, k);
}

}  // namespace mrwb_test
