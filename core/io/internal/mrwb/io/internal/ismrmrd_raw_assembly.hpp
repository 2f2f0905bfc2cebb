#pragma once
// The ISMRMRD raw-data reader after the file: the header XML and the acquisitions, however they were read,
// into RawData. read_raw_ismrmrd reads them from HDF5 through libismrmrd and calls this; the fuzzing harness
// hands over acquisitions from memory, so the reader's use of header and acquisitions runs without HDF5.
#include <cstdint>
#include <functional>
#include <string>

#include <ismrmrd/ismrmrd.h>

#include "mrwb/io/file_io.hpp"

namespace mrwb {

struct IsmrmrdAcquisitions {
  std::uint32_t count = 0;
  // Fills `into` with acquisition `index` (read on demand: the reader keeps only what it selects).
  std::function<void(std::uint32_t index, ISMRMRD::Acquisition& into)> read;
};

// `path` names the source in the messages. Throws InputError for what the data cannot be.
RawData raw_from_ismrmrd(const std::string& path, const std::string& header_xml, const IsmrmrdAcquisitions& acquisitions,
                         const RawSelection& selection, RawFileSummary* summary = nullptr);

}  // namespace mrwb
