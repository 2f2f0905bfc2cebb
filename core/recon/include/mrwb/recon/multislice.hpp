#pragma once
// Multi-slice 2-D and 3-D (kz partition) Cartesian raw data and their reconstruction: one slice or
// partition as 2-D raw data, the kz inverse DFT to hybrid space, and the volume reconstruction per slice /
// per partition through the 2-D reconstructors. (The volume type: base/image_volume.hpp; its files:
// io/image_volume_io.hpp; the simulation of such scenarios: simulation/volume_simulation.hpp.)
#include <complex>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb {

// ---- Raw data ----
// extract_slice (base/raw_data.hpp) takes one slice / partition as a 2-D RawData.
// 3-D: the centred inverse DFT along kz for every (coil, slice, line, sample), so that partition i holds
// the z plane i of the slab (hybrid space: x-y still in k-space). Unacquired lines stay zero. 2-D data are
// returned unchanged. Throws InputError for a kz centre other than partitions/2 (no kz partial Fourier).
RawData hybrid_space(const RawData& raw);
// What hybrid_space refuses (the layout, the kz centre), without its copy.
void check_hybrid_space(const RawData& raw);

// ---- Reconstruction ----
// Every slice (2-D) or every partition of the hybrid space (3-D) through the 2-D reconstructor of
// options.method (fft, grappa: R and ACS per slice / partition), stacked into a volume. progress runs
// 0..1 over the planes; cancel is checked between them. 2-D single-slice data give nz = 1.
ImageVolume reconstruct_volume(const RawData& raw, const ReconOptions& options, const ProgressFn& progress = {},
                               const CancelToken& cancel = {});

}  // namespace mrwb
