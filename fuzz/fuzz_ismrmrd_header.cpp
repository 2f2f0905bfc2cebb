// ISMRMRD header XML (core/io/src/ismrmrd_io.cpp): the bytes as the header of a file whose acquisitions
// are fixed (8 lines of 16 samples from 2 coils, with a 2-D trajectory, and one noise readout), read as
// `mrwb recon --in X.h5` reads a file's header and acquisitions: the header's encoding, limits, system and
// sequence fields against data it does not describe.
#include <ismrmrd/ismrmrd.h>

#include <cstring>

#include "fuzz_support.hpp"
#include "ismrmrd_fuzz_input.hpp"

namespace {

// One record: the header, a radial-like trajectory (kx = k, ky = 0), then the samples.
void append(std::string& out, const ISMRMRD::AcquisitionHeader& head, float value) {
  out.append(reinterpret_cast<const char*>(static_cast<const ISMRMRD::ISMRMRD_AcquisitionHeader*>(&head)),
             sizeof(ISMRMRD::ISMRMRD_AcquisitionHeader));
  for (int s = 0; s < head.number_of_samples; ++s)
    for (int d = 0; d < head.trajectory_dimensions; ++d) {
      const float k = d == 0 ? (s - head.number_of_samples / 2) / 32.f : 0.f;
      out.append(reinterpret_cast<const char*>(&k), sizeof k);
    }
  for (int i = 0; i < 2 * head.number_of_samples * head.active_channels; ++i, value += 0.25f)
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

std::string fixed_acquisitions() {
  std::string out;
  ISMRMRD::AcquisitionHeader noise;
  noise.number_of_samples = 32;
  noise.active_channels = noise.available_channels = 2;
  noise.sample_time_us = 5.f;
  noise.flags = 1ull << (ISMRMRD::ISMRMRD_ACQ_IS_NOISE_MEASUREMENT - 1);
  append(out, noise, -4.f);
  for (std::uint16_t line = 0; line < 8; ++line) {
    ISMRMRD::AcquisitionHeader h;
    h.number_of_samples = 16;
    h.active_channels = h.available_channels = 2;
    h.center_sample = 8;
    h.trajectory_dimensions = 2;  // what a non-Cartesian header needs; a Cartesian read ignores it
    h.sample_time_us = 5.f;
    h.idx.kspace_encode_step_1 = line;
    append(out, h, 1.f + line);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<ISMRMRD::Acquisition> acquisitions = mrwb::fuzz::parse_acquisitions(fixed_acquisitions());
  mrwb::fuzz::read_raw_as_recon("fuzz.h5", std::string(mrwb::fuzz::bytes(data, size)), acquisitions);
  return 0;
}
