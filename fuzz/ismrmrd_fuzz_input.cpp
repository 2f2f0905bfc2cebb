#include "ismrmrd_fuzz_input.hpp"

#include <ismrmrd/dataset.h>

#include <cstring>

#include "fuzz_support.hpp"
#include "mrwb/io/internal/ismrmrd_raw_assembly.hpp"

namespace mrwb::fuzz {

std::vector<ISMRMRD::Acquisition> parse_acquisitions(std::string_view records) {
  std::vector<ISMRMRD::Acquisition> out;
  constexpr std::size_t head_bytes = sizeof(ISMRMRD::ISMRMRD_AcquisitionHeader);
  std::size_t pos = 0;
  while (records.size() - pos >= head_bytes) {
    ISMRMRD::AcquisitionHeader head;
    std::memcpy(static_cast<ISMRMRD::ISMRMRD_AcquisitionHeader*>(&head), records.data() + pos, head_bytes);
    const std::size_t traj = std::size_t{head.number_of_samples} * head.trajectory_dimensions * sizeof(float);
    const std::size_t data = std::size_t{head.number_of_samples} * head.active_channels * 2 * sizeof(float);
    if (records.size() - pos - head_bytes < traj + data) break;
    pos += head_bytes;
    ISMRMRD::Acquisition& acq = out.emplace_back();
    acq.setHead(head);
    if (traj) std::memcpy(acq.getTrajPtr(), records.data() + pos, traj);
    if (data) std::memcpy(static_cast<void*>(acq.getDataPtr()), records.data() + pos + traj, data);
    pos += traj + data;
  }
  return out;
}

std::string ismrmrd_fuzz_input(const std::string& h5_path) {
  ISMRMRD::Dataset d(h5_path.c_str(), "dataset", false);
  std::string out;
  d.readHeader(out);
  out.push_back('\0');
  for (std::uint32_t i = 0, n = d.getNumberOfAcquisitions(); i < n; ++i) {
    ISMRMRD::Acquisition acq;
    d.readAcquisition(i, acq);
    const ISMRMRD::ISMRMRD_AcquisitionHeader& head = acq.getHead();
    out.append(reinterpret_cast<const char*>(&head), sizeof(head));
    out.append(reinterpret_cast<const char*>(acq.getTrajPtr()), acq.getNumberOfTrajElements() * sizeof(float));
    out.append(reinterpret_cast<const char*>(acq.getDataPtr()), acq.getNumberOfDataElements() * 2 * sizeof(float));
  }
  return out;
}

void read_raw_as_recon(const std::string& source, const std::string& xml,
                       const std::vector<ISMRMRD::Acquisition>& acquisitions) {
  const IsmrmrdAcquisitions from_memory{static_cast<std::uint32_t>(acquisitions.size()),
                                        [&](std::uint32_t i, ISMRMRD::Acquisition& into) { into = acquisitions[i]; }};
  RawSelection all, first;
  all.slice = -1;
  if (!accepts(source, [&] { (void)raw_from_ismrmrd(source, xml, from_memory, all); }))
    accepts(source, [&] { (void)raw_from_ismrmrd(source, xml, from_memory, first); });
}

}  // namespace mrwb::fuzz
