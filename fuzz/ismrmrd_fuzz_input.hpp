#pragma once
// The ISMRMRD harnesses' input format, close to what an ISMRMRD file holds, so that fuzzing reaches the
// reader's use of the header and the acquisitions rather than HDF5's own parser:
//   <header XML> NUL { <ISMRMRD_AcquisitionHeader> <trajectory floats> <data floats> }...
// each acquisition followed by number_of_samples x trajectory_dimensions trajectory floats and
// number_of_samples x active_channels complex floats, as its header says; a record the input does not
// hold whole ends the list (so the input never asks for more memory than it brings).
//
// The acquisitions go to the reader from memory (raw_from_ismrmrd, mrwb/io/internal): under ASan every
// HDF5 read or write of an acquisition maps a fresh 1 MiB conversion buffer, which made one input of 16
// acquisitions cost a second. The file layer (HDF5, libismrmrd, the layout checks) has its own harness,
// fuzz_ismrmrd_file.
#include <string>
#include <string_view>
#include <vector>

#include <ismrmrd/ismrmrd.h>

namespace mrwb::fuzz {

std::vector<ISMRMRD::Acquisition> parse_acquisitions(std::string_view records);
// The header and acquisitions of an ISMRMRD file in this format (the seeds of corpus/ismrmrd/).
std::string ismrmrd_fuzz_input(const std::string& h5_path);
// Reads header and acquisitions as `mrwb recon --in X.h5` does (read_raw_ismrmrd after the file): every
// slice (its default), and when that is refused slice 0 alone (--slice 0); each a success or a one-line
// refusal naming `source`.
void read_raw_as_recon(const std::string& source, const std::string& xml,
                       const std::vector<ISMRMRD::Acquisition>& acquisitions);

}  // namespace mrwb::fuzz
