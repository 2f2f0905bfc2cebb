#pragma once
// What a reconstruction would refuse about its raw data and options, checked before any of its work, so
// that `mrwb recon` refuses before its summary and progress lines. The messages name no file: the caller,
// which knows it, does (base/input_source.hpp).
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb {

// The method against the data (fft and grappa need Cartesian lines, grappa an acceleration and ACS lines,
// gridding and cg a trajectory), the backend, the parameters, the kz centre of 3-D data and the memory of
// gridding / cg on the CPU (noncart::check_noncart_recon). Throws InputError.
void check_recon_input(const RawData& raw, const ReconOptions& options);

}  // namespace mrwb
