// Raw data by file type, with a one-line account of what was read (the CLI prints it).
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"

namespace mrwb {

RawData read_raw(const std::string& path, const std::string& traj_path, const RawSelection& sel, std::string* description) {
  const std::string ext = std::filesystem::path(path).extension().string();
  RawData raw;
  std::ostringstream d;
  if (ext == ".h5") {
    if (!traj_path.empty())
      throw InputError(traj_path + ": --traj goes with a .cfl k-space; an ISMRMRD file carries its own trajectory");
    RawFileSummary s;
    raw = read_raw_ismrmrd(path, sel, &s);
    d << path << ": ";
    if (sel.slice < 0) d << "all " << s.slices << " slice(s)";  // the multi-slice stack
    else d << "slice " << sel.slice << " of 0.." << s.slices - 1;
    d << ", repetition " << sel.repetition << " of 0.." << s.repetitions - 1 << ", contrast " << sel.contrast << " of 0.." << s.contrasts - 1 << "; " << s.trajectory;
    if (s.calibration_lines > 0) d << ", " << s.calibration_lines << " calibration lines";
    if (s.noise_acquisitions > 0) d << ", " << s.noise_acquisitions << " noise acquisition(s) for prewhitening";
  } else if (ext == ".cfl" || ext == ".hdr") {
    RawSelection one = sel;  // BART k-space is read one slice at a time (slice -1: the first)
    one.slice = std::max(0, sel.slice);
    raw = read_raw_cfl(path, traj_path, one);
    d << path << ": BART " << (traj_path.empty() ? "Cartesian" : "non-Cartesian") << " k-space, slice " << one.slice
      << ", repetition " << sel.repetition << ", contrast " << sel.contrast;
  } else {
    throw InputError(path + ": unknown raw-data format '" + ext + "' (allowed: .h5 ISMRMRD, .cfl BART)");
  }
  d << "; " << raw.ncoils << " coil(s), " << raw.nx << " samples x " << raw.ny << (raw.cartesian() ? " lines" : " readouts");
  if (raw.cartesian() && raw.recon_nx > 0 && (raw.recon_nx != raw.nx || raw.recon_ny != raw.ny))
    d << " (recon space " << raw.recon_nx << " x " << raw.recon_ny << ")";
  if (raw.slices > 1) d << ", " << raw.slices << " slices";
  if (raw.partitions > 1) d << ", " << raw.partitions << " kz partitions";
  if (raw.accel_R > 1) d << ", R = " << raw.accel_R;
  if (description) *description = d.str();
  return raw;
}

}  // namespace mrwb
