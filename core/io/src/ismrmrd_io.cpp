// ISMRMRD/MRD HDF5 through libismrmrd: raw data (header XML + one acquisition per readout) and images.
#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/ismrmrd.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <sstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "hdf5_isolation.hpp"
#include "ismrmrd_checks.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/internal/ismrmrd_raw_assembly.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/noise_prewhitening.hpp"

namespace mrwb {
namespace {

constexpr const char* k_group = "dataset";
constexpr const char* k_image_var = "image_0";
constexpr double k_gamma_1H_Hz_per_T = 42.57747892e6;  // gamma/2pi of 1H
// The largest k-space we allocate: 2^28 complex samples (2 GiB). Bigger headers are damaged or absurd.
constexpr std::size_t k_max_samples = std::size_t{1} << 28;
// A Cartesian grid comes from the header's sizes, not from the data, so it is also held to what the file
// brings: at most 64 x the samples acquired (R 8 with partial Fourier 0.5, or R 4 x 4 in 3-D, leave 1/16
// of the grid; 64 is four times that), or 2^20 samples (8 MiB) whatever the file holds.
constexpr double k_grid_per_acquired_sample = 64;
constexpr double k_grid_floor_samples = 1 << 20;

// libismrmrd reports through exceptions; silence HDF5's own stderr dumps and libismrmrd's default error
// handler (it prints every HDF5 error of the stack, one line each) so users see our one line.
extern "C" void ismrmrd_silent(const char*, int, const char*, int, const char*) {}
void quiet_hdf5() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  ISMRMRD::ismrmrd_set_error_handler(ismrmrd_silent);
}

// A library's exception text inside our one-line message: its first line (libismrmrd appends the HDF5
// error stack, a line per entry), at most `max` characters.
std::string first_line(const std::exception& ex, std::size_t max) {
  std::string t = ex.what();
  t = t.substr(0, t.find_first_of("\r\n"));
  return t.size() > max ? t.substr(0, max) + "..." : t;
}

// One HDF5 file of an ISMRMRD dataset, through libismrmrd's C functions, which take the file's handle as they find
// it: opened read-only (libismrmrd's own open asks for write access and creates the dataset's group, so reading
// an input changed its mtime), or created in memory for a write (the core driver without a backing store:
// HDF5 never writes to disk, so a full disk fails our write of its bytes, not HDF5's close; a close that failed
// on disk left the file open, and HDF5's exit handler crashed on it). Closed on every path; a file in memory with
// every object of it (H5F_CLOSE_STRONG).
class IsmrmrdHdf5 {
 public:
  explicit IsmrmrdHdf5(const std::string& path) : name_(path) {
    // The default access (weak close, as every other open of the file in this process: HDF5 refuses a second open
    // of a file with another close degree); nothing of a read-only file is left to flush at exit.
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file_ < 0) throw std::runtime_error("HDF5 cannot open it read-only");
    bind();
  }
  // A new file in memory, grown by `bytes_hint` at a time (the caller's estimate of its size).
  explicit IsmrmrdHdf5(std::size_t bytes_hint) {
    static std::atomic<unsigned> count{0};
    name_ = "mrwb-in-memory-" + std::to_string(::getpid()) + "-" + std::to_string(count++);  // the core driver tells files by name
    const hid_t fapl = in_memory_access(bytes_hint);
    file_ = H5Fcreate(name_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (file_ < 0) throw std::runtime_error("HDF5 cannot create a file in memory");
    bind();
    const hid_t g = H5Gcreate2(file_, k_group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
      close();  // no destructor for a constructor that throws
      throw std::runtime_error(std::string("HDF5 cannot create the group ") + k_group);
    }
    H5Gclose(g);
  }
  ~IsmrmrdHdf5() { close(); }
  IsmrmrdHdf5(const IsmrmrdHdf5&) = delete;
  IsmrmrdHdf5& operator=(const IsmrmrdHdf5&) = delete;

  const ISMRMRD::ISMRMRD_Dataset* dataset() const { return &d_; }
  // The finished file's bytes (flushed, as H5Fget_file_image gives them).
  std::vector<unsigned char> bytes() const {
    if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) throw std::runtime_error("HDF5 cannot finish the file");
    const ssize_t n = H5Fget_file_image(file_, nullptr, 0);
    std::vector<unsigned char> b(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (n <= 0 || H5Fget_file_image(file_, b.data(), b.size()) != n) throw std::runtime_error("HDF5 gave no file image");
    return b;
  }
  void close() {
    if (file_ >= 0) H5Fclose(file_);
    file_ = -1;
  }

 private:
  static hid_t in_memory_access(std::size_t increment) {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    H5Pset_fapl_core(fapl, std::max<std::size_t>(increment, 1 << 20), 0);
    return fapl;
  }
  void bind() {
    d_.filename = name_.data();
    d_.groupname = group_.data();
    d_.fileid = file_;
  }
  std::string name_, group_ = k_group;
  hid_t file_ = -1;
  ISMRMRD::ISMRMRD_Dataset d_{};
};

// libismrmrd's C++ records with the C structs its C functions take.
struct AcquisitionRecord : ISMRMRD::Acquisition {
  using ISMRMRD::Acquisition::Acquisition;
  ISMRMRD::ISMRMRD_Acquisition* record() { return &acq; }
};
struct ImageRecord : ISMRMRD::Image<std::complex<float>> {
  using ISMRMRD::Image<std::complex<float>>::Image;
  ISMRMRD::ISMRMRD_Image* record() { return &im; }
};

void ok(int status, const char* what) {
  if (status != ISMRMRD::ISMRMRD_NOERROR) throw std::runtime_error(std::string("libismrmrd: ") + what + " failed");
}

void require_readable_hdf5(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw InputError(path + ": no such file");
  quiet_hdf5();
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(path + ": not an HDF5 file");
}

const std::map<std::string, ISMRMRD::TrajectoryType>& trajectory_names() {
  static const std::map<std::string, ISMRMRD::TrajectoryType> m = {
      {"cartesian", ISMRMRD::TrajectoryType::CARTESIAN}, {"epi", ISMRMRD::TrajectoryType::EPI},
      {"radial", ISMRMRD::TrajectoryType::RADIAL},       {"goldenangle", ISMRMRD::TrajectoryType::GOLDENANGLE},
      {"spiral", ISMRMRD::TrajectoryType::SPIRAL},       {"other", ISMRMRD::TrajectoryType::OTHER}};
  return m;
}
std::string trajectory_name(ISMRMRD::TrajectoryType t) {
  for (const auto& [name, type] : trajectory_names())
    if (type == t) return name;
  return "other";
}

// ISMRMRD stores non-Cartesian k in units of the encoded matrix, [-0.5, 0.5) (as
// ismrmrd_generate_cartesian_shepp_logan -k and Gadgetron write it); RawData uses cycles per FOV.
int traj_matrix(const ISMRMRD::Encoding& e, int d) {
  const auto& m = e.encodedSpace.matrixSize;
  return std::max<int>(1, d == 0 ? m.x : d == 1 ? m.y : m.z);
}

// Image matrix of non-Cartesian data when the RawData does not say: twice the largest |k| (cycles/FOV).
int noncart_matrix(const RawData& raw, int d) {
  const int given = d == 0 ? raw.recon_nx : raw.recon_ny;
  if (given > 0) return given;
  float kmax = 0;
  for (std::size_t i = static_cast<std::size_t>(d); i < raw.traj.size(); i += static_cast<std::size_t>(raw.traj_dims))
    kmax = std::max(kmax, std::abs(raw.traj[i]));
  return std::max(1, 2 * static_cast<int>(std::ceil(kmax - 1e-3f)));
}

// Asymmetric echo / partial Fourier: ISMRMRD's encoded space is the full symmetric k-space, with k = 0 at
// its centre; the acquired samples and lines sit inside it (center_sample, kspace_encode_step_1).
int full_length(int n, int k0) { return k0 == n / 2 ? n : 2 * std::max(k0, n - k0); }
int line_offset(const RawData& raw) { return full_length(raw.ny, raw.k0_line()) / 2 - raw.k0_line(); }

std::string header_xml(const RawData& raw) {
  ISMRMRD::IsmrmrdHeader h;
  h.version = ISMRMRD_XMLHDR_VERSION;
  h.experimentalConditions.H1resonanceFrequency_Hz = std::lround(raw.field_T * k_gamma_1H_Hz_per_T);
  ISMRMRD::AcquisitionSystemInformation sys;
  sys.systemVendor = std::string("MR Workbench (simulated)");
  sys.systemFieldStrength_T = static_cast<float>(raw.field_T);
  sys.receiverChannels = static_cast<unsigned short>(raw.ncoils);
  h.acquisitionSystemInformation = sys;

  ISMRMRD::Encoding e;
  const bool cart = raw.cartesian();
  const int mx = cart ? full_length(raw.nx, raw.k0_sample()) : noncart_matrix(raw, 0);
  const int my = cart ? full_length(raw.ny, raw.k0_line()) : noncart_matrix(raw, 1);
  // z: the kz partitions of a 3-D slab (matrix z, FOV z = the slab), or the slice thickness of 2-D data.
  const auto mz = static_cast<unsigned short>(raw.partitions);
  const float fov_z_mm = raw.fov_z_m > 0 ? static_cast<float>(raw.fov_z_m * 1e3) : 1.f;
  e.encodedSpace.matrixSize = ISMRMRD::MatrixSize(static_cast<unsigned short>(mx), static_cast<unsigned short>(my), mz);
  e.encodedSpace.fieldOfView_mm = {static_cast<float>(raw.fov_x_m * 1e3), static_cast<float>(raw.fov_y_m * 1e3), fov_z_mm};
  e.reconSpace.matrixSize = ISMRMRD::MatrixSize(static_cast<unsigned short>(raw.recon_nx > 0 ? raw.recon_nx : mx),
                                                static_cast<unsigned short>(raw.recon_ny > 0 ? raw.recon_ny : my), mz);
  e.reconSpace.fieldOfView_mm = {
      static_cast<float>((raw.recon_fov_x_m > 0 ? raw.recon_fov_x_m : raw.fov_x_m) * 1e3),
      static_cast<float>((raw.recon_fov_y_m > 0 ? raw.recon_fov_y_m : raw.fov_y_m) * 1e3), fov_z_mm};
  const auto u16 = [](int v) { return static_cast<unsigned short>(std::clamp(v, 0, 65535)); };
  e.encodingLimits.kspace_encoding_step_0 = ISMRMRD::Limit(0, u16(raw.nx - 1), u16(raw.k0_sample()));
  const int l0 = cart ? line_offset(raw) : 0;
  e.encodingLimits.kspace_encoding_step_1 = ISMRMRD::Limit(u16(l0), u16(l0 + raw.ny - 1), u16(cart ? l0 + raw.k0_line() : 0));
  if (raw.partitions > 1)
    e.encodingLimits.kspace_encoding_step_2 = ISMRMRD::Limit(0, u16(raw.partitions - 1), u16(raw.k0_partition()));
  e.encodingLimits.slice = ISMRMRD::Limit(0, u16(raw.slices - 1), u16(raw.slices / 2));
  e.encodingLimits.contrast = ISMRMRD::Limit(0, 0, 0);
  e.encodingLimits.repetition = ISMRMRD::Limit(0, 0, 0);
  e.encodingLimits.average = ISMRMRD::Limit(0, 0, 0);
  if (cart) {
    e.trajectory = ISMRMRD::TrajectoryType::CARTESIAN;
  } else {
    const auto it = trajectory_names().find(raw.trajectory_type);
    e.trajectory = it != trajectory_names().end() && it->first != "cartesian" ? it->second : ISMRMRD::TrajectoryType::OTHER;
  }
  if (raw.accel_R > 1) {
    ISMRMRD::ParallelImaging pi;
    pi.accelerationFactor.kspace_encoding_step_1 = u16(raw.accel_R);
    pi.accelerationFactor.kspace_encoding_step_2 = 1;
    bool integrated = false, separate = false;
    for (int l = 0; l < raw.ny; ++l) {
      const auto f = raw.flags(l);
      if ((f & kLineCalibration) && (f & kLineImaging)) integrated = true;
      if ((f & kLineCalibration) && !(f & kLineImaging)) separate = true;
    }
    // ACS lines among the imaging lines are "embedded"; ACS lines only for calibration, in the same scan,
    // are also embedded in ISMRMRD's sense (Gadgetron's generic recon reads both from the flags).
    pi.calibrationMode = std::string(integrated || separate ? "embedded" : "other");
    e.parallelImaging = pi;
  }
  h.encoding.push_back(e);

  ISMRMRD::SequenceParameters sp;
  sp.TR = std::vector<float>{static_cast<float>(raw.TR_s * 1e3)};
  sp.TE = std::vector<float>{static_cast<float>(raw.TE_s * 1e3)};
  sp.flipAngle_deg = std::vector<float>{static_cast<float>(raw.flip_angle_deg)};
  sp.sequence_type = std::string("SpoiledGradientEcho");
  h.sequenceParameters = sp;
  if (!raw.scenario_name.empty()) {
    ISMRMRD::MeasurementInformation mi;
    mi.protocolName = raw.scenario_name;
    mi.patientPosition = "HFS";
    h.measurementInformation = mi;
  }
  std::ostringstream xml;
  ISMRMRD::serialize(h, xml);
  return xml.str();
}

void set_geometry(ISMRMRD::Acquisition& acq) {
  acq.read_dir()[0] = 1.f;
  acq.phase_dir()[1] = 1.f;
  acq.slice_dir()[2] = 1.f;
}

// Multi-slice: slice s centred at z = (s − (slices − 1)/2)·spacing [m], as the block builders place them.
double slice_position_m(const RawData& raw, int slice) {
  const double spacing = raw.slice_spacing_m > 0 ? raw.slice_spacing_m : raw.fov_z_m;
  return (slice - 0.5 * (raw.slices - 1)) * spacing;
}

void check_raw_for_writing(const std::string& path, const RawData& raw) {
  if (raw.nx <= 0 || raw.nx > 65535 || raw.ny <= 0 || raw.ny > 65535 || raw.ncoils <= 0 || raw.ncoils > 65535 ||
      raw.slices < 1 || raw.slices > 65535 || raw.partitions < 1 || raw.partitions > 65535)
    throw InputError(path + ": raw data " + std::to_string(raw.nx) + " samples x " + std::to_string(raw.ny) + " lines x " +
                     std::to_string(raw.ncoils) + " coils x " + std::to_string(raw.slices) + " slices x " +
                     std::to_string(raw.partitions) + " partitions (allowed: 1 .. 65535 each)");
  if (raw.volume() && !raw.cartesian())
    throw InputError(path + ": multi-slice / 3-D raw data with a trajectory (allowed: Cartesian)");
  if (raw.kspace.size() != raw.kspace_size())
    throw InputError(path + ": k-space holds " + std::to_string(raw.kspace.size()) + " samples, header says " +
                     std::to_string(raw.kspace_size()));
  if (!raw.line_flags.empty() && raw.line_flags.size() != static_cast<std::size_t>(raw.ny))
    throw InputError(path + ": line_flags holds " + std::to_string(raw.line_flags.size()) + " lines, not " + std::to_string(raw.ny));
  if (!raw.cartesian() && (raw.traj_dims < 2 || raw.traj_dims > 3 ||
                           raw.traj.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.traj_dims))
    throw InputError(path + ": trajectory holds " + std::to_string(raw.traj.size()) + " values for " +
                     std::to_string(raw.traj_dims) + " dimensions (needs 2 or 3 per sample)");
  if (!raw.noise.empty() && raw.noise.size() != static_cast<std::size_t>(raw.noise_samples) * raw.ncoils)
    throw InputError(path + ": noise holds " + std::to_string(raw.noise.size()) + " values, not noise_samples x coils");
}

}  // namespace

void write_raw_ismrmrd(const std::string& path, const RawData& raw) {
  quiet_hdf5();
  check_raw_for_writing(path, raw);
  const std::string xml = header_xml(raw);
  const bool cart = raw.cartesian();

  AtomicOutput out(path);
  std::vector<unsigned char> bytes;
  try {
    const std::size_t acquisitions = static_cast<std::size_t>(raw.slices) * raw.partitions * raw.ny + raw.noise_samples / 65535 + 1;
    const std::size_t per_acquisition = sizeof(ISMRMRD::ISMRMRD_AcquisitionHeader) + 64 +
                                        static_cast<std::size_t>(raw.nx) * (raw.ncoils * sizeof(std::complex<float>) +
                                                                            (cart ? 0 : raw.traj_dims * sizeof(float)));
    IsmrmrdHdf5 d(acquisitions * per_acquisition + raw.noise.size() * sizeof(std::complex<float>) + xml.size());
    ok(ISMRMRD::ismrmrd_write_header(d.dataset(), xml.c_str()), "writing the header");
    uint32_t scan = 0;
    // Noise first, as scanners record it, in acquisitions of at most 65535 samples.
    for (int s0 = 0; s0 < raw.noise_samples && !raw.noise.empty(); s0 += 65535) {
      const int ns = std::min(65535, raw.noise_samples - s0);
      AcquisitionRecord acq(static_cast<uint16_t>(ns), static_cast<uint16_t>(raw.ncoils));
      acq.scan_counter() = scan++;
      acq.available_channels() = static_cast<uint16_t>(raw.ncoils);
      acq.sample_time_us() = static_cast<float>(raw.dwell_s * 1e6);
      acq.setFlag(ISMRMRD::ISMRMRD_ACQ_IS_NOISE_MEASUREMENT);
      set_geometry(acq);
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < ns; ++s)
          acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c)) =
              raw.noise[static_cast<std::size_t>(c) * raw.noise_samples + s0 + s];
      ok(ISMRMRD::ismrmrd_append_acquisition(d.dataset(), acq.record()), "appending a noise acquisition");
    }
    std::vector<int> lines;
    for (int line = 0; line < raw.ny; ++line)
      if (raw.flags(line) & kLineAcquired) lines.push_back(line);
    // Partition by partition, each line through every slice (as an interleaved multi-slice scan plays them).
    struct Readout {
      int par, line, slc;
    };
    std::vector<Readout> order;
    for (int par = 0; par < raw.partitions; ++par)
      for (const int line : lines)
        for (int slc = 0; slc < raw.slices; ++slc) order.push_back({par, line, slc});
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto [par, line, slc] = order[i];
      AcquisitionRecord acq(static_cast<uint16_t>(raw.nx), static_cast<uint16_t>(raw.ncoils),
                            static_cast<uint16_t>(cart ? 0 : raw.traj_dims));
      acq.scan_counter() = scan++;
      acq.center_sample() = static_cast<uint16_t>(raw.k0_sample());
      acq.sample_time_us() = static_cast<float>(raw.dwell_s * 1e6);
      acq.available_channels() = static_cast<uint16_t>(raw.ncoils);
      acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(line + (cart ? line_offset(raw) : 0));
      acq.idx().kspace_encode_step_2 = static_cast<uint16_t>(par);
      acq.idx().slice = static_cast<uint16_t>(slc);
      set_geometry(acq);
      acq.position()[2] = static_cast<float>(slice_position_m(raw, slc) * 1e3);  // mm
      const auto f = raw.flags(line);
      if ((f & kLineCalibration) && (f & kLineImaging)) acq.setFlag(ISMRMRD::ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION_AND_IMAGING);
      else if (f & kLineCalibration) acq.setFlag(ISMRMRD::ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION);
      if (i == 0)
        for (auto fl : {ISMRMRD::ISMRMRD_ACQ_FIRST_IN_ENCODE_STEP1, ISMRMRD::ISMRMRD_ACQ_FIRST_IN_SLICE,
                        ISMRMRD::ISMRMRD_ACQ_FIRST_IN_CONTRAST, ISMRMRD::ISMRMRD_ACQ_FIRST_IN_REPETITION})
          acq.setFlag(fl);
      if (i + 1 == order.size())
        for (auto fl : {ISMRMRD::ISMRMRD_ACQ_LAST_IN_ENCODE_STEP1, ISMRMRD::ISMRMRD_ACQ_LAST_IN_SLICE,
                        ISMRMRD::ISMRMRD_ACQ_LAST_IN_CONTRAST, ISMRMRD::ISMRMRD_ACQ_LAST_IN_REPETITION,
                        ISMRMRD::ISMRMRD_ACQ_LAST_IN_MEASUREMENT})
          acq.setFlag(fl);
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < raw.nx; ++s)
          acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c)) = raw.kspace[raw.index(c, slc, par, line, s)];
      if (!cart) {
        const ISMRMRD::Encoding e = [&] {
          ISMRMRD::Encoding enc;
          enc.encodedSpace.matrixSize = ISMRMRD::MatrixSize(static_cast<unsigned short>(noncart_matrix(raw, 0)),
                                                            static_cast<unsigned short>(noncart_matrix(raw, 1)), 1);
          return enc;
        }();
        for (int s = 0; s < raw.nx; ++s)
          for (int dd = 0; dd < raw.traj_dims; ++dd)
            acq.traj(static_cast<uint16_t>(dd), static_cast<uint16_t>(s)) =
                raw.traj[(static_cast<std::size_t>(line) * raw.nx + s) * raw.traj_dims + dd] / static_cast<float>(traj_matrix(e, dd));
      }
      ok(ISMRMRD::ismrmrd_append_acquisition(d.dataset(), acq.record()), "appending an acquisition");
    }
    bytes = d.bytes();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& ex) {
    throw std::runtime_error(path + ": cannot write ISMRMRD file (" + first_line(ex, 200) + ")");
  }
  out.write_bytes(bytes.data(), bytes.size());
  out.commit();
}

RawData read_raw_ismrmrd(const std::string& path) { return read_raw_ismrmrd(path, RawSelection{}); }

namespace {

RawData read_raw_ismrmrd_in_process(const std::string& path, const RawSelection& sel, RawFileSummary* summary) {
  require_readable_hdf5(path);
  check_ismrmrd_raw_layout(path, k_group);
  try {
    const IsmrmrdHdf5 d(path);
    char* text = ISMRMRD::ismrmrd_read_header(d.dataset());
    if (!text) throw std::runtime_error("libismrmrd: reading the header failed");
    const std::string xml(text);
    std::free(text);
    const IsmrmrdAcquisitions acquisitions{ISMRMRD::ismrmrd_get_number_of_acquisitions(d.dataset()),
                                           [&](std::uint32_t a, ISMRMRD::Acquisition& acq) {
                                             AcquisitionRecord read;
                                             ok(ISMRMRD::ismrmrd_read_acquisition(d.dataset(), a, read.record()),
                                                "reading an acquisition");
                                             acq = read;
                                           }};
    return raw_from_ismrmrd(path, xml, acquisitions, sel, summary);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& ex) {
    throw InputError(path + ": not a readable ISMRMRD raw-data file (" + first_line(ex, 160) + ")");
  }
}

}  // namespace

RawData read_raw_ismrmrd(const std::string& path, const RawSelection& sel, RawFileSummary* summary) {
  survive_hdf5_read(path, [&] { (void)read_raw_ismrmrd_in_process(path, sel, nullptr); });  // hdf5_isolation.hpp
  return read_raw_ismrmrd_in_process(path, sel, summary);
}

RawData raw_from_ismrmrd(const std::string& path, const std::string& xml, const IsmrmrdAcquisitions& acquisitions,
                         const RawSelection& sel, RawFileSummary* summary) {
  RawData raw;
  RawFileSummary sum;
  check_ismrmrd_header_integers(path, xml);
  ISMRMRD::IsmrmrdHeader h;
  try {
    ISMRMRD::deserialize(xml.c_str(), h);
  } catch (const std::exception& ex) {
    throw InputError(path + ": header XML is not a valid ISMRMRD header (" + first_line(ex, 120) + ")");
  }
  if (h.encoding.empty()) throw InputError(path + ": header has no encoding");
  const auto& e = h.encoding[0];
  const bool cart = e.trajectory == ISMRMRD::TrajectoryType::CARTESIAN;
  sum.trajectory = trajectory_name(e.trajectory);
  if (!cart) raw.trajectory_type = sum.trajectory;
  const auto& em = e.encodedSpace.matrixSize;
  if (em.x < 1 || em.y < 1)
    throw InputError(path + ": encodedSpace.matrixSize = " + std::to_string(em.x) + "x" + std::to_string(em.y) +
                     " (allowed: 1 .. 65535 each)");
  if (em.z > 1 && !cart)
    throw InputError(path + ": encodedSpace.matrixSize.z = " + std::to_string(em.z) +
                     ": 3-D encoding of non-Cartesian data is not supported (allowed: 1)");
  // Multi-slice and 3-D limits: every acquisition's slice and kspace_encode_step_2 must lie inside them.
  const int max_slice = e.encodingLimits.slice ? e.encodingLimits.slice->maximum : -1;  // -1: not stated
  int partitions = std::max<int>(1, em.z);
  if (e.encodingLimits.kspace_encoding_step_2) partitions = std::max<int>(partitions, e.encodingLimits.kspace_encoding_step_2->maximum + 1);
  raw.fov_z_m = e.encodedSpace.fieldOfView_mm.z * 1e-3;
  raw.fov_x_m = e.encodedSpace.fieldOfView_mm.x * 1e-3;
  raw.fov_y_m = e.encodedSpace.fieldOfView_mm.y * 1e-3;
  raw.recon_nx = e.reconSpace.matrixSize.x;
  raw.recon_ny = e.reconSpace.matrixSize.y;
  raw.recon_fov_x_m = e.reconSpace.fieldOfView_mm.x * 1e-3;
  raw.recon_fov_y_m = e.reconSpace.fieldOfView_mm.y * 1e-3;
  if (h.sequenceParameters) {
    const auto& sp = *h.sequenceParameters;
    if (sp.TR && !sp.TR->empty()) raw.TR_s = (*sp.TR)[0] * 1e-3;
    if (sp.TE && !sp.TE->empty()) raw.TE_s = (*sp.TE)[0] * 1e-3;
    if (sp.flipAngle_deg && !sp.flipAngle_deg->empty()) raw.flip_angle_deg = (*sp.flipAngle_deg)[0];
  }
  if (h.acquisitionSystemInformation && h.acquisitionSystemInformation->systemFieldStrength_T)
    raw.field_T = *h.acquisitionSystemInformation->systemFieldStrength_T;
  else if (h.experimentalConditions.H1resonanceFrequency_Hz > 0)
    raw.field_T = h.experimentalConditions.H1resonanceFrequency_Hz / k_gamma_1H_Hz_per_T;
  if (h.measurementInformation && h.measurementInformation->protocolName)
    raw.scenario_name = *h.measurementInformation->protocolName;
  int header_coils = 0;
  if (h.acquisitionSystemInformation && h.acquisitionSystemInformation->receiverChannels)
    header_coils = *h.acquisitionSystemInformation->receiverChannels;
  double rnbw = 1;  // relativeReceiverNoiseBandwidth; absent: the noise scan sees the nominal band
  if (h.acquisitionSystemInformation && h.acquisitionSystemInformation->relativeReceiverNoiseBandwidth) {
    rnbw = *h.acquisitionSystemInformation->relativeReceiverNoiseBandwidth;
    if (!(rnbw > 0 && rnbw <= 2))
      throw InputError(path + ": acquisitionSystemInformation.relativeReceiverNoiseBandwidth = " + std::to_string(rnbw) +
                       " (allowed: 0 < value <= 2)");
  }

  // One pass: noise apart, the selected dataset kept, the rest counted for the summary.
  const uint32_t n_acq = acquisitions.count;
  if (n_acq == 0) throw InputError(path + ": no acquisitions");
  sum.acquisitions = static_cast<int>(n_acq);
  std::vector<ISMRMRD::Acquisition> selected;
  std::vector<std::uint32_t> selected_at;  // each one's place in the file, for the messages
  std::vector<ISMRMRD::Acquisition> noise;
  // Flag numbers (libismrmrd's isFlagSet takes the bit number) of readouts that are never image data.
  const ISMRMRD::ISMRMRD_AcquisitionFlags never_image[] = {
      ISMRMRD::ISMRMRD_ACQ_IS_NAVIGATION_DATA,  ISMRMRD::ISMRMRD_ACQ_IS_PHASECORR_DATA,
      ISMRMRD::ISMRMRD_ACQ_IS_DUMMYSCAN_DATA,   ISMRMRD::ISMRMRD_ACQ_IS_RTFEEDBACK_DATA,
      ISMRMRD::ISMRMRD_ACQ_IS_HPFEEDBACK_DATA,  ISMRMRD::ISMRMRD_ACQ_IS_SURFACECOILCORRECTIONSCAN_DATA};
  for (uint32_t a = 0; a < n_acq; ++a) {
    ISMRMRD::Acquisition acq;
    acquisitions.read(a, acq);
    if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_NOISE_MEASUREMENT)) {
      ++sum.noise_acquisitions;
      noise.push_back(std::move(acq));
      continue;
    }
    bool skip = false;
    for (auto fl : never_image) skip |= acq.isFlagSet(fl);
    if (skip) continue;
    const auto& idx = acq.idx();
    if ((max_slice >= 0 && idx.slice > max_slice) || idx.kspace_encode_step_2 >= partitions)
      throw InputError(path + ": acquisition " + std::to_string(a) + " has slice " + std::to_string(idx.slice) +
                       " and kspace_encode_step_2 " + std::to_string(idx.kspace_encode_step_2) +
                       " (allowed by the header's encodingLimits / encodedSpace.matrixSize.z: slice 0.." +
                       (max_slice >= 0 ? std::to_string(max_slice) : std::string("any")) + ", kspace_encode_step_2 0.." +
                       std::to_string(partitions - 1) + ")");
    sum.slices = std::max(sum.slices, idx.slice + 1);
    sum.repetitions = std::max(sum.repetitions, idx.repetition + 1);
    sum.contrasts = std::max(sum.contrasts, idx.contrast + 1);
    if ((sel.slice >= 0 && idx.slice != sel.slice) || idx.repetition != sel.repetition || idx.contrast != sel.contrast) continue;
    selected.push_back(std::move(acq));
    selected_at.push_back(a);
  }
  const bool all_slices = sel.slice < 0;  // the whole multi-slice stack
  if (sel.slice < -1 || sel.slice >= sum.slices || sel.repetition < 0 || sel.repetition >= sum.repetitions ||
      sel.contrast < 0 || sel.contrast >= sum.contrasts || selected.empty())
    throw InputError(path + ": no data for slice " + std::to_string(sel.slice) + ", repetition " +
                     std::to_string(sel.repetition) + ", contrast " + std::to_string(sel.contrast) + " (allowed: slice -1 (all), 0.." +
                     std::to_string(sum.slices - 1) + ", repetition 0.." + std::to_string(sum.repetitions - 1) +
                     ", contrast 0.." + std::to_string(sum.contrasts - 1) + ")");

  raw.ncoils = header_coils > 0 ? header_coils : selected.front().active_channels();
  raw.dwell_s = selected.front().sample_time_us() * 1e-6;
  int max_samples = 0;
  double acquired = 0;  // complex samples of the selected acquisitions, every channel
  for (std::size_t i = 0; i < selected.size(); ++i) {
    auto& acq = selected[i];
    if (acq.active_channels() != raw.ncoils)
      throw InputError(path + ": acquisition with kspace_encode_step_1 = " + std::to_string(acq.idx().kspace_encode_step_1) +
                       " has " + std::to_string(acq.active_channels()) + " channels, header receiverChannels says " +
                       std::to_string(raw.ncoils));
    max_samples = std::max<int>(max_samples, acq.number_of_samples());
    acquired += static_cast<double>(acq.number_of_samples()) * acq.active_channels();
  }

  if (cart) {
    raw.nx = std::max<int>(em.x, max_samples);
    raw.ny = em.y;
    int center_line = raw.ny / 2;
    if (e.encodingLimits.kspace_encoding_step_1) {
      const auto& lim = *e.encodingLimits.kspace_encoding_step_1;
      raw.ny = std::max<int>(raw.ny, lim.maximum + 1);
      // A centre of 0 is what writers leave when they do not say; k = 0 on the first line is not a real scan.
      if (lim.center > 0) center_line = lim.center;
    }
    // The header's lines are the grid; a line beyond them is a damaged index, not a larger image.
    for (std::size_t i = 0; i < selected.size(); ++i)
      if (selected[i].idx().kspace_encode_step_1 >= raw.ny)
        throw InputError(path + ": acquisition " + std::to_string(selected_at[i]) + " has kspace_encode_step_1 = " +
                         std::to_string(selected[i].idx().kspace_encode_step_1) +
                         " (allowed by the header's encodedSpace.matrixSize.y / encodingLimits: 0 .. " +
                         std::to_string(raw.ny - 1) + ")");
    raw.slices = all_slices ? sum.slices : 1;
    raw.partitions = partitions;
    // In double: the product of five 16-bit sizes overflows size_t (and wrapped to a small number, it
    // passed); and before anything is allocated. Each size counts at least 1: with 0 channels or samples
    // the product was 0 and the per-line tables (ny x slices x partitions) went unchecked.
    const auto at_least_1 = [](int v) { return static_cast<double>(std::max(1, v)); };
    const double grid = at_least_1(raw.ncoils) * at_least_1(raw.slices) * at_least_1(raw.partitions) *
                        at_least_1(raw.ny) * at_least_1(raw.nx);
    const double budget = std::min(static_cast<double>(k_max_samples),
                                   std::max(k_grid_floor_samples, k_grid_per_acquired_sample * acquired));
    if (grid > budget)
      throw InputError(path + ": encodedSpace " + std::to_string(raw.nx) + "x" + std::to_string(raw.ny) + "x" +
                       std::to_string(raw.partitions) + " in " + std::to_string(raw.slices) + " slice(s) with " +
                       std::to_string(raw.ncoils) + " channels is too large: " + std::to_string(std::llround(grid * 8 / (1 << 20))) +
                       " MiB of k-space for " + std::to_string(std::llround(acquired)) +
                       " acquired samples (allowed: at most 64 x the acquired samples or 2^20, and 2^28 in all)");
    raw.center_line = center_line;
    if (raw.partitions > 1 && e.encodingLimits.kspace_encoding_step_2 && e.encodingLimits.kspace_encoding_step_2->center > 0)
      raw.center_partition = e.encodingLimits.kspace_encoding_step_2->center;
    raw.kspace.assign(raw.kspace_size(), {});
    raw.line_flags.assign(static_cast<std::size_t>(raw.ny), 0);
    std::vector<int> count(static_cast<std::size_t>(raw.ny) * raw.slices * raw.partitions, 0);
    std::map<int, float> slice_z_mm;  // slice -> position z, for the spacing
    int k0_col = -1;
    for (std::size_t i = 0; i < selected.size(); ++i) {
      auto& acq = selected[i];
      const int ns = acq.number_of_samples();
      // A full readout keeps its own k-space centre; a shorter one is read only as an asymmetric echo, as a
      // scanner's file states it: center_sample says where k = 0 lies in the readout, off its middle (the
      // echo's early or late part not sampled). It is placed so that its centre sample lands on the centre
      // of the encoded readout. A short readout without a centre, with the centre at or past its end or in
      // its middle (a readout of some other matrix), or with no samples at all, says nothing of where its
      // samples belong; placed anyway, it was a line of a wrong image.
      const int centre = acq.center_sample();
      if (ns != raw.nx && !(ns > 0 && centre > 0 && centre < ns && centre != ns / 2))
        throw InputError(path + ": acquisition " + std::to_string(selected_at[i]) + " has number_of_samples = " +
                         std::to_string(ns) + " with center_sample " + std::to_string(centre) + " (allowed: " +
                         std::to_string(raw.nx) + ", the encoded readout, or fewer with center_sample inside the "
                         "readout and off its middle: an asymmetric echo)");
      const int k0 = ns == raw.nx ? (centre > 0 ? centre : raw.nx / 2) : raw.nx / 2;
      const int offset = ns == raw.nx ? 0 : raw.nx / 2 - centre;
      if (offset < 0 || offset + ns > raw.nx)
        throw InputError(path + ": acquisition with " + std::to_string(ns) + " samples and center_sample " +
                         std::to_string(acq.center_sample()) + " does not fit the encoded readout of " +
                         std::to_string(raw.nx) + " samples");
      if (k0_col >= 0 && k0 != k0_col)
        throw InputError(path + ": acquisitions disagree on the k-space centre sample (" + std::to_string(k0_col) +
                         " and " + std::to_string(k0) + ")");
      k0_col = k0;
      const int line = acq.idx().kspace_encode_step_1;
      const int slc = all_slices ? acq.idx().slice : 0, par = acq.idx().kspace_encode_step_2;
      slice_z_mm[slc] = acq.position()[2];
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < ns; ++s)
          raw.kspace[raw.index(c, slc, par, line, offset + s)] += acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c));
      ++count[(static_cast<std::size_t>(slc) * raw.partitions + par) * raw.ny + line];
      auto& f = raw.line_flags[static_cast<std::size_t>(line)];
      f |= kLineAcquired;
      if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION_AND_IMAGING)) f |= kLineCalibration | kLineImaging;
      else if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_PARALLEL_CALIBRATION)) f |= kLineCalibration;
      else f |= kLineImaging;
    }
    raw.center_sample = k0_col;
    // Averages of a line are averaged.
    for (int slc = 0; slc < raw.slices; ++slc)
      for (int par = 0; par < raw.partitions; ++par)
        for (int line = 0; line < raw.ny; ++line) {
          const int n = count[(static_cast<std::size_t>(slc) * raw.partitions + par) * raw.ny + line];
          if (n > 1)
            for (int c = 0; c < raw.ncoils; ++c)
              for (int s = 0; s < raw.nx; ++s) raw.kspace[raw.index(c, slc, par, line, s)] /= static_cast<float>(n);
        }
    if (raw.slices > 1 && slice_z_mm.count(0) && slice_z_mm.count(1))
      raw.slice_spacing_m = std::abs(slice_z_mm[1] - slice_z_mm[0]) * 1e-3;
    int prev = -1, gap = 0;
    for (int line = 0; line < raw.ny; ++line) {
      const auto f = raw.line_flags[static_cast<std::size_t>(line)];
      if (f & kLineCalibration) ++sum.calibration_lines;
      if (!(f & kLineImaging)) continue;
      if (prev >= 0) gap = std::gcd(gap, line - prev);
      prev = line;
    }
    if (prev < 0) throw InputError(path + ": no imaging lines in the selected dataset (only calibration)");
    raw.accel_R = std::max(1, gap);
    if (e.parallelImaging && e.parallelImaging->accelerationFactor.kspace_encoding_step_1 > 1)
      raw.accel_R = e.parallelImaging->accelerationFactor.kspace_encoding_step_1;
  } else {
    // Non-Cartesian: one RawData line per readout, ordered by kspace_encode_step_1 when that numbers
    // the readouts 0..n-1, else in file order.
    if (all_slices && sum.slices > 1)
      throw InputError(path + ": non-Cartesian data in " + std::to_string(sum.slices) +
                       " slices are read one slice at a time (allowed: --slice 0.." + std::to_string(sum.slices - 1) + ")");
    raw.nx = max_samples;
    if (raw.nx < 1)
      throw InputError(path + ": non-Cartesian readouts of number_of_samples = 0 (allowed: 1 .. 65535, every readout alike)");
    raw.ny = static_cast<int>(selected.size());
    raw.traj_dims = selected.front().trajectory_dimensions();
    if (raw.traj_dims < 2 || raw.traj_dims > 3)
      throw InputError(path + ": non-Cartesian acquisition has trajectory_dimensions = " + std::to_string(raw.traj_dims) +
                       " (allowed: 2 or 3)");
    if (static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils > k_max_samples)
      throw InputError(path + ": " + std::to_string(raw.ny) + " readouts of " + std::to_string(raw.nx) +
                       " samples is too large (allowed: at most 2^28 samples)");
    std::vector<int> order(selected.size(), -1);
    bool by_step = true;
    std::vector<char> seen(selected.size(), 0);
    for (std::size_t i = 0; i < selected.size(); ++i) {
      const std::size_t k = selected[i].idx().kspace_encode_step_1;
      if (k >= selected.size() || seen[k]) by_step = false;
      else seen[k] = 1;
    }
    raw.kspace.assign(static_cast<std::size_t>(raw.ncoils) * raw.ny * raw.nx, {});
    raw.traj.assign(static_cast<std::size_t>(raw.ny) * raw.nx * raw.traj_dims, 0.f);
    raw.line_flags.assign(static_cast<std::size_t>(raw.ny), 0);
    for (std::size_t i = 0; i < selected.size(); ++i) {
      auto& acq = selected[i];
      const int line = by_step ? acq.idx().kspace_encode_step_1 : static_cast<int>(i);
      if (acq.number_of_samples() != raw.nx || acq.trajectory_dimensions() != raw.traj_dims)
        throw InputError(path + ": non-Cartesian readouts differ in samples or trajectory dimensions (readout " +
                         std::to_string(i) + ")");
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < raw.nx; ++s) raw.at(c, line, s) = acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c));
      for (int s = 0; s < raw.nx; ++s)
        for (int dd = 0; dd < raw.traj_dims; ++dd)
          raw.traj[(static_cast<std::size_t>(line) * raw.nx + s) * raw.traj_dims + dd] =
              acq.traj(static_cast<uint16_t>(dd), static_cast<uint16_t>(s)) * static_cast<float>(traj_matrix(e, dd));
      raw.line_flags[static_cast<std::size_t>(line)] = kLineAcquired | kLineImaging;
    }
    raw.center_sample = selected.front().center_sample();
    if (raw.recon_nx <= 0) raw.recon_nx = em.x;
    if (raw.recon_ny <= 0) raw.recon_ny = em.y;
  }

  // Noise acquisitions of every slice/repetition: [coil][sample], for prewhitening, referred to the
  // data's bandwidth (their dwell time may differ; see noise_bandwidth_scale).
  for (auto& acq : noise) {
    if (acq.active_channels() != raw.ncoils)
      throw InputError(path + ": noise acquisition has " + std::to_string(acq.active_channels()) +
                       " channels, the data " + std::to_string(raw.ncoils));
    raw.noise_samples += acq.number_of_samples();
  }
  if (raw.noise_samples > 0) {
    raw.noise.assign(static_cast<std::size_t>(raw.noise_samples) * raw.ncoils, {});
    int s0 = 0;
    for (auto& acq : noise) {
      const float bw = static_cast<float>(noise_bandwidth_scale(acq.sample_time_us() * 1e-6, raw.dwell_s, rnbw));
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < acq.number_of_samples(); ++s)
          raw.noise[static_cast<std::size_t>(c) * raw.noise_samples + s0 + s] =
              bw * acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c));
      s0 += acq.number_of_samples();
    }
  }
  if (summary) *summary = sum;
  return raw;
}

void write_complex_image_ismrmrd(const std::string& path, int nx, int ny, int nz, const float fov_mm[3],
                                 const std::complex<float>* data) {
  quiet_hdf5();
  AtomicOutput out(path);
  std::vector<unsigned char> bytes;
  try {
    const std::size_t values = static_cast<std::size_t>(nx) * ny * nz;
    IsmrmrdHdf5 d(values * sizeof(std::complex<float>) + sizeof(ISMRMRD::ISMRMRD_ImageHeader));
    ImageRecord im(static_cast<uint16_t>(nx), static_cast<uint16_t>(ny), static_cast<uint16_t>(nz), 1);
    im.setFieldOfView(fov_mm[0], fov_mm[1], fov_mm[2]);
    im.setImageType(ISMRMRD::ISMRMRD_IMTYPE_COMPLEX);
    im.setImageIndex(1);
    im.setImageSeriesIndex(1);
    im.setReadDirection(1.f, 0.f, 0.f);
    im.setPhaseDirection(0.f, 1.f, 0.f);
    im.setSliceDirection(0.f, 0.f, 1.f);
    std::copy(data, data + values, im.begin());
    ok(ISMRMRD::ismrmrd_append_image(d.dataset(), k_image_var, im.record()), "appending the image");
    bytes = d.bytes();
  } catch (const std::exception& ex) {
    throw std::runtime_error(path + ": cannot write ISMRMRD image (" + first_line(ex, 200) + ")");
  }
  out.write_bytes(bytes.data(), bytes.size());
  out.commit();
}

void write_image_ismrmrd(const std::string& path, const Image2D& image) {
  if (image.nx <= 0 || image.ny <= 0 || image.nx > 65535 || image.ny > 65535 || image.data.size() != image.size())
    throw InputError(path + ": image " + std::to_string(image.nx) + "x" + std::to_string(image.ny) +
                     " does not match its data (allowed: 1 .. 65535 each)");
  const float fov_mm[3] = {static_cast<float>(image.fov_x_m * 1e3), static_cast<float>(image.fov_y_m * 1e3), 1.f};
  write_complex_image_ismrmrd(path, image.nx, image.ny, 1, fov_mm, image.data.data());
}

namespace {

ImageVolume read_image_volume_ismrmrd_in_process(const std::string& path) {
  require_readable_hdf5(path);
  check_ismrmrd_image_layout(path, k_group, k_image_var);
  ImageVolume v;
  try {
    const IsmrmrdHdf5 d(path);
    ImageRecord im;
    ok(ISMRMRD::ismrmrd_read_image(d.dataset(), k_image_var, 0, im.record()), "reading the image");
    if (im.getDataType() != ISMRMRD::ISMRMRD_CXFLOAT)
      throw InputError(path + ": image data type " + std::to_string(static_cast<int>(im.getDataType())) +
                       " (allowed: complex float, ISMRMRD data type " + std::to_string(static_cast<int>(ISMRMRD::ISMRMRD_CXFLOAT)) + ")");
    v.nx = im.getMatrixSizeX();
    v.ny = im.getMatrixSizeY();
    v.nz = std::max<int>(1, im.getMatrixSizeZ());
    v.fov_x_m = im.getFieldOfViewX() * 1e-3;
    v.fov_y_m = im.getFieldOfViewY() * 1e-3;
    v.fov_z_m = im.getFieldOfViewZ() * 1e-3;
    if (im.getNumberOfChannels() > 1)
      throw InputError(path + ": image has " + std::to_string(im.getNumberOfChannels()) + " channels (allowed: 1)");
    v.data.assign(im.begin(), im.begin() + static_cast<std::ptrdiff_t>(v.plane() * v.nz));
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& ex) {
    throw InputError(path + ": not a readable ISMRMRD image file (" + first_line(ex, 160) + ")");
  }
  return v;
}

}  // namespace

ImageVolume read_image_volume_ismrmrd(const std::string& path) {
  survive_hdf5_read(path, [&] { (void)read_image_volume_ismrmrd_in_process(path); });  // hdf5_isolation.hpp
  return read_image_volume_ismrmrd_in_process(path);
}

Image2D read_image_ismrmrd(const std::string& path) {
  const ImageVolume v = read_image_volume_ismrmrd(path);
  if (v.nz > 1)
    throw InputError(path + ": image has " + std::to_string(v.nz) + " partitions (allowed: 1; a volume: read it as one)");
  return v.slice(0);
}

}  // namespace mrwb
