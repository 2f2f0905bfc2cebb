// ISMRMRD/MRD HDF5 through libismrmrd: raw data (header XML + one acquisition per line) and images.
#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/ismrmrd.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "atomic_file.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"

namespace mrwb {
namespace {

constexpr const char* k_group = "dataset";
constexpr const char* k_image_var = "image_0";

// libismrmrd reports through exceptions; silence HDF5's own stderr dumps so users see one line.
void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

void require_readable_hdf5(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw InputError(path + ": no such file");
  quiet_hdf5();
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(path + ": not an HDF5 file");
}

}  // namespace

void write_raw_ismrmrd(const std::string& path, const RawData& raw) {
  quiet_hdf5();
  ISMRMRD::IsmrmrdHeader h;
  h.version = ISMRMRD_XMLHDR_VERSION;
  h.experimentalConditions.H1resonanceFrequency_Hz =
      std::lround(raw.field_T * 42.57747892e6);  // gamma/2pi of 1H [Hz/T]
  ISMRMRD::AcquisitionSystemInformation sys;
  sys.systemVendor = std::string("MR Workbench (simulated)");
  sys.systemFieldStrength_T = static_cast<float>(raw.field_T);
  sys.receiverChannels = static_cast<unsigned short>(raw.ncoils);
  h.acquisitionSystemInformation = sys;
  ISMRMRD::Encoding e;
  e.encodedSpace.matrixSize = ISMRMRD::MatrixSize(raw.nx, raw.ny, 1);
  e.encodedSpace.fieldOfView_mm = {static_cast<float>(raw.fov_x_m * 1e3), static_cast<float>(raw.fov_y_m * 1e3), 1.f};
  e.reconSpace = e.encodedSpace;
  e.encodingLimits.kspace_encoding_step_0 = ISMRMRD::Limit(0, raw.nx - 1, raw.nx / 2);
  e.encodingLimits.kspace_encoding_step_1 = ISMRMRD::Limit(0, raw.ny - 1, raw.ny / 2);
  e.encodingLimits.slice = ISMRMRD::Limit(0, 0, 0);
  e.trajectory = ISMRMRD::TrajectoryType::CARTESIAN;
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

  AtomicOutput out(path);
  try {
    ISMRMRD::Dataset d(out.temp_path().c_str(), k_group, true);
    d.writeHeader(xml.str());
    for (int line = 0; line < raw.ny; ++line) {
      ISMRMRD::Acquisition acq(static_cast<uint16_t>(raw.nx), static_cast<uint16_t>(raw.ncoils));
      acq.scan_counter() = static_cast<uint32_t>(line);
      acq.center_sample() = static_cast<uint16_t>(raw.nx / 2);
      acq.sample_time_us() = static_cast<float>(raw.dwell_s * 1e6);
      acq.available_channels() = static_cast<uint16_t>(raw.ncoils);
      acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(line);
      acq.read_dir()[0] = 1.f;
      acq.phase_dir()[1] = 1.f;
      acq.slice_dir()[2] = 1.f;
      if (line == 0) {
        acq.setFlag(ISMRMRD::ISMRMRD_ACQ_FIRST_IN_ENCODE_STEP1);
        acq.setFlag(ISMRMRD::ISMRMRD_ACQ_FIRST_IN_SLICE);
      }
      if (line == raw.ny - 1) {
        acq.setFlag(ISMRMRD::ISMRMRD_ACQ_LAST_IN_ENCODE_STEP1);
        acq.setFlag(ISMRMRD::ISMRMRD_ACQ_LAST_IN_SLICE);
        acq.setFlag(ISMRMRD::ISMRMRD_ACQ_LAST_IN_MEASUREMENT);
      }
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < raw.nx; ++s) acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c)) = raw.at(c, line, s);
      d.appendAcquisition(acq);
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& ex) {
    throw std::runtime_error(path + ": cannot write ISMRMRD file (" + std::string(ex.what()).substr(0, 200) + ")");
  }
  out.commit();
}

RawData read_raw_ismrmrd(const std::string& path) {
  require_readable_hdf5(path);
  RawData raw;
  try {
    ISMRMRD::Dataset d(path.c_str(), k_group, false);
    std::string xml;
    d.readHeader(xml);
    ISMRMRD::IsmrmrdHeader h;
    ISMRMRD::deserialize(xml.c_str(), h);
    if (h.encoding.empty()) throw InputError(path + ": header has no encoding");
    const auto& e = h.encoding[0];
    if (e.trajectory != ISMRMRD::TrajectoryType::CARTESIAN)
      throw InputError(path + ": trajectory is not Cartesian (non-Cartesian reading is not yet available)");
    raw.nx = e.encodedSpace.matrixSize.x;
    raw.ny = e.encodedSpace.matrixSize.y;
    raw.fov_x_m = e.encodedSpace.fieldOfView_mm.x * 1e-3;
    raw.fov_y_m = e.encodedSpace.fieldOfView_mm.y * 1e-3;
    raw.ncoils = (h.acquisitionSystemInformation && h.acquisitionSystemInformation->receiverChannels)
                     ? *h.acquisitionSystemInformation->receiverChannels
                     : 1;
    int center_line = raw.ny / 2;
    if (e.encodingLimits.kspace_encoding_step_1) center_line = e.encodingLimits.kspace_encoding_step_1->center;
    if (h.sequenceParameters) {
      if (h.sequenceParameters->TR && !h.sequenceParameters->TR->empty()) raw.TR_s = (*h.sequenceParameters->TR)[0] * 1e-3;
      if (h.sequenceParameters->TE && !h.sequenceParameters->TE->empty()) raw.TE_s = (*h.sequenceParameters->TE)[0] * 1e-3;
      if (h.sequenceParameters->flipAngle_deg && !h.sequenceParameters->flipAngle_deg->empty())
        raw.flip_angle_deg = (*h.sequenceParameters->flipAngle_deg)[0];
    }
    if (h.acquisitionSystemInformation && h.acquisitionSystemInformation->systemFieldStrength_T)
      raw.field_T = *h.acquisitionSystemInformation->systemFieldStrength_T;
    if (h.measurementInformation && h.measurementInformation->protocolName)
      raw.scenario_name = *h.measurementInformation->protocolName;
    if (raw.nx <= 0 || raw.ny <= 0 || raw.ncoils <= 0)
      throw InputError(path + ": header encodedSpace matrix or receiverChannels is empty");

    raw.kspace.assign(static_cast<std::size_t>(raw.ncoils) * raw.ny * raw.nx, {});
    const uint32_t n_acq = d.getNumberOfAcquisitions();
    for (uint32_t a = 0; a < n_acq; ++a) {
      ISMRMRD::Acquisition acq;
      d.readAcquisition(a, acq);
      if (acq.isFlagSet(ISMRMRD::ISMRMRD_ACQ_IS_NOISE_MEASUREMENT)) continue;  // never image data
      if (acq.number_of_samples() != raw.nx)
        throw InputError(path + ": acquisition " + std::to_string(a) + " has " + std::to_string(acq.number_of_samples()) +
                         " samples, header encodedSpace says " + std::to_string(raw.nx) +
                         " (readout oversampling is not yet supported)");
      if (acq.active_channels() != raw.ncoils)
        throw InputError(path + ": acquisition " + std::to_string(a) + " has " + std::to_string(acq.active_channels()) +
                         " channels, header receiverChannels says " + std::to_string(raw.ncoils));
      const int line = static_cast<int>(acq.idx().kspace_encode_step_1) - center_line + raw.ny / 2;
      if (line < 0 || line >= raw.ny)
        throw InputError(path + ": acquisition " + std::to_string(a) + " has kspace_encode_step_1 = " +
                         std::to_string(acq.idx().kspace_encode_step_1) + " outside the encoded matrix");
      for (int c = 0; c < raw.ncoils; ++c)
        for (int s = 0; s < raw.nx; ++s) raw.at(c, line, s) = acq.data(static_cast<uint16_t>(s), static_cast<uint16_t>(c));
    }
    if (n_acq == 0) throw InputError(path + ": no acquisitions");
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& ex) {
    throw InputError(path + ": not a readable ISMRMRD raw-data file (" + std::string(ex.what()).substr(0, 160) + ")");
  }
  return raw;
}

void write_image_ismrmrd(const std::string& path, const Image2D& image) {
  quiet_hdf5();
  AtomicOutput out(path);
  try {
    ISMRMRD::Dataset d(out.temp_path().c_str(), k_group, true);
    ISMRMRD::Image<std::complex<float>> im(static_cast<uint16_t>(image.nx), static_cast<uint16_t>(image.ny), 1, 1);
    im.setFieldOfView(static_cast<float>(image.fov_x_m * 1e3), static_cast<float>(image.fov_y_m * 1e3), 1.f);
    im.setImageType(ISMRMRD::ISMRMRD_IMTYPE_COMPLEX);
    std::copy(image.data.begin(), image.data.end(), im.begin());
    d.appendImage(k_image_var, im);
  } catch (const std::exception& ex) {
    throw std::runtime_error(path + ": cannot write ISMRMRD image (" + std::string(ex.what()).substr(0, 200) + ")");
  }
  out.commit();
}

Image2D read_image_ismrmrd(const std::string& path) {
  require_readable_hdf5(path);
  Image2D img;
  try {
    ISMRMRD::Dataset d(path.c_str(), k_group, false);
    if (d.getNumberOfImages(k_image_var) == 0) throw InputError(path + ": no image '" + std::string(k_image_var) + "'");
    ISMRMRD::Image<std::complex<float>> im;
    d.readImage(k_image_var, 0, im);
    img.nx = im.getMatrixSizeX();
    img.ny = im.getMatrixSizeY();
    img.fov_x_m = im.getFieldOfViewX() * 1e-3;
    img.fov_y_m = im.getFieldOfViewY() * 1e-3;
    img.data.assign(im.begin(), im.begin() + img.size());
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& ex) {
    throw InputError(path + ": not a readable ISMRMRD image file (" + std::string(ex.what()).substr(0, 160) + ")");
  }
  return img;
}

}  // namespace mrwb
