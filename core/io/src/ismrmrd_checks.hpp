#pragma once
// Layout checks that libismrmrd's readers rely on but do not make: they copy as many bytes as an
// acquisition or image header announces, whatever the HDF5 file holds, and do not check the file's
// compound types. Run these before handing a file to libismrmrd, so a malformed file is an InputError.
#include <string>

namespace mrwb {

// group/xml is a string; group/data is the acquisition compound (head, traj, data) and every
// acquisition's data and trajectory hold exactly what its header says. Throws InputError.
void check_ismrmrd_raw_layout(const std::string& path, const std::string& group);
// The header XML's 16-bit integers (matrixSize x/y/z, encodingLimits minimum/maximum/center,
// receiverChannels, accelerationFactor): libismrmrd reads 100000 as 34464, -1 as 65535 and "12abc" as 12
// without a word, so each is checked as text first. Throws InputError naming the element and its value.
void check_ismrmrd_header_integers(const std::string& path, const std::string& xml);
// group/var/header and group/var/data exist and the data holds matrix_size × channels values per
// image header. Throws InputError.
void check_ismrmrd_image_layout(const std::string& path, const std::string& group, const std::string& var);

}  // namespace mrwb
