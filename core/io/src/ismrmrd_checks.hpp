#pragma once
// Layout checks that libismrmrd's readers rely on but do not make: they copy as many bytes as an
// acquisition or image header announces, whatever the HDF5 file holds, and do not check the file's
// compound types. Run these before handing a file to libismrmrd, so a malformed file is an InputError.
#include <string>

namespace mrwb {

// group/xml is a string; group/data is the acquisition compound (head, traj, data) and every
// acquisition's data and trajectory hold exactly what its header says. Throws InputError.
void check_ismrmrd_raw_layout(const std::string& path, const std::string& group);
// group/var/header and group/var/data exist and the data holds matrix_size × channels values per
// image header. Throws InputError.
void check_ismrmrd_image_layout(const std::string& path, const std::string& group, const std::string& var);

}  // namespace mrwb
