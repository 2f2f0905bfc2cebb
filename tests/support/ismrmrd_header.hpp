#pragma once
// A Cartesian ISMRMRD header (x*y*z over `coils` receivers, FOV 200 x 200 x 5 mm, 1.5 T) serialised by
// libismrmrd: the header the I/O tests write into their raw-data files, hostile or not.
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <sstream>
#include <string>

namespace mrwb_test {

inline std::string cartesian_header_xml(int x, int y, int z, int coils) {
  ISMRMRD::IsmrmrdHeader h;
  h.version = ISMRMRD_XMLHDR_VERSION;
  h.experimentalConditions.H1resonanceFrequency_Hz = 63500000;
  ISMRMRD::AcquisitionSystemInformation sys;
  sys.receiverChannels = static_cast<unsigned short>(coils);
  h.acquisitionSystemInformation = sys;
  ISMRMRD::Encoding e;
  e.encodedSpace.matrixSize = ISMRMRD::MatrixSize(static_cast<unsigned short>(x), static_cast<unsigned short>(y),
                                                  static_cast<unsigned short>(z));
  e.encodedSpace.fieldOfView_mm = {200, 200, 5};
  e.reconSpace = e.encodedSpace;
  e.trajectory = ISMRMRD::TrajectoryType::CARTESIAN;
  h.encoding.push_back(e);
  std::ostringstream s;
  ISMRMRD::serialize(h, s);
  return s.str();
}

}  // namespace mrwb_test
