// NIfTI-1 single-file images (.nii): the 348-byte header of the NIfTI-1 standard, 4 bytes of (empty)
// extension flag, then the voxels. We write float32 magnitude with the voxel size from the FOV.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"

namespace mrwb {
namespace {

// Field layout of nifti1.h (NIfTI-1, 2004); natural alignment gives exactly 348 bytes.
struct Nifti1Header {
  std::int32_t sizeof_hdr;
  char data_type[10];
  char db_name[18];
  std::int32_t extents;
  std::int16_t session_error;
  char regular;
  char dim_info;
  std::int16_t dim[8];
  float intent_p1, intent_p2, intent_p3;
  std::int16_t intent_code, datatype, bitpix, slice_start;
  float pixdim[8];
  float vox_offset, scl_slope, scl_inter;
  std::int16_t slice_end;
  char slice_code, xyzt_units;
  float cal_max, cal_min, slice_duration, toffset;
  std::int32_t glmax, glmin;
  char descrip[80];
  char aux_file[24];
  std::int16_t qform_code, sform_code;
  float quatern_b, quatern_c, quatern_d, qoffset_x, qoffset_y, qoffset_z;
  float srow_x[4], srow_y[4], srow_z[4];
  char intent_name[16];
  char magic[4];
};
static_assert(sizeof(Nifti1Header) == 348, "NIfTI-1 header must be 348 bytes");

constexpr std::int16_t k_uint8 = 2, k_int16 = 4, k_int32 = 8, k_float32 = 16, k_complex64 = 32, k_float64 = 64;
constexpr char k_units_mm = 2, k_units_s = 8;
constexpr std::size_t k_max_voxels = std::size_t{1} << 28;

}  // namespace

void write_nifti(const std::string& path, const Image2D& image) {
  if (image.nx <= 0 || image.ny <= 0 || image.nx > 32767 || image.ny > 32767 || image.data.size() != image.size())
    throw InputError(path + ": image " + std::to_string(image.nx) + "x" + std::to_string(image.ny) +
                     " does not fit NIfTI-1 (allowed: 1 .. 32767 each, data matching)");
  const std::vector<float> mag = image.magnitude();
  Nifti1Header h{};
  h.sizeof_hdr = 348;
  h.regular = 'r';
  h.dim[0] = 3;
  h.dim[1] = static_cast<std::int16_t>(image.nx);
  h.dim[2] = static_cast<std::int16_t>(image.ny);
  for (int i = 3; i < 8; ++i) h.dim[i] = 1;
  h.datatype = k_float32;
  h.bitpix = 32;
  // Voxel size in mm from the FOV; 1 mm where the FOV is unknown (e.g. an image from a .cfl).
  const float dx = image.fov_x_m > 0 ? static_cast<float>(image.fov_x_m * 1e3 / image.nx) : 1.f;
  const float dy = image.fov_y_m > 0 ? static_cast<float>(image.fov_y_m * 1e3 / image.ny) : 1.f;
  h.pixdim[0] = 1.f;  // qfac
  h.pixdim[1] = dx;
  h.pixdim[2] = dy;
  h.pixdim[3] = 1.f;
  for (int i = 4; i < 8; ++i) h.pixdim[i] = 1.f;
  h.vox_offset = 352.f;
  h.scl_slope = 1.f;
  h.xyzt_units = k_units_mm | k_units_s;
  h.cal_max = mag.empty() ? 0.f : *std::max_element(mag.begin(), mag.end());
  std::strncpy(h.descrip, "MR Workbench magnitude image", sizeof(h.descrip) - 1);
  // Scanner-like frame: voxel (i, j) at ((i − nx/2)·dx, (j − ny/2)·dy), the image centre at the origin.
  h.qform_code = 1;
  h.sform_code = 1;
  h.qoffset_x = -static_cast<float>(image.nx / 2) * dx;
  h.qoffset_y = -static_cast<float>(image.ny / 2) * dy;
  h.srow_x[0] = dx;
  h.srow_x[3] = h.qoffset_x;
  h.srow_y[1] = dy;
  h.srow_y[3] = h.qoffset_y;
  h.srow_z[2] = 1.f;
  std::memcpy(h.magic, "n+1\0", 4);

  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary);
    if (!f) out.fail();
    f.write(reinterpret_cast<const char*>(&h), sizeof(h));
    const char ext[4] = {0, 0, 0, 0};
    f.write(ext, 4);
    f.write(reinterpret_cast<const char*>(mag.data()), static_cast<std::streamsize>(mag.size() * sizeof(float)));
    if (!f.flush()) out.fail();
  }
  out.commit();
}

Image2D read_nifti(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path + ": no such file");
  if (bytes < sizeof(Nifti1Header)) throw InputError(path + ": " + std::to_string(bytes) + " bytes, shorter than a NIfTI-1 header");
  std::ifstream f(path, std::ios::binary);
  Nifti1Header h{};
  f.read(reinterpret_cast<char*>(&h), sizeof(h));
  if (h.sizeof_hdr != 348) {
    if (h.sizeof_hdr == 0x5C010000) throw InputError(path + ": big-endian NIfTI is not supported");
    throw InputError(path + ": sizeof_hdr = " + std::to_string(h.sizeof_hdr) + " (allowed: 348; not NIfTI-1)");
  }
  if (std::memcmp(h.magic, "n+1", 4) != 0)
    throw InputError(path + ": magic is not \"n+1\" (only single-file NIfTI-1 .nii is supported)");
  if (h.dim[0] < 2 || h.dim[0] > 7) throw InputError(path + ": dim[0] = " + std::to_string(h.dim[0]) + " (allowed: 2 .. 7)");
  for (int i = 1; i <= h.dim[0]; ++i)
    if (h.dim[i] < 1) throw InputError(path + ": dim[" + std::to_string(i) + "] = " + std::to_string(h.dim[i]) + " (allowed: >= 1)");
  for (int i = 3; i <= h.dim[0]; ++i)
    if (h.dim[i] != 1)
      throw InputError(path + ": dim[" + std::to_string(i) + "] = " + std::to_string(h.dim[i]) + " (a 2-D image needs 1)");
  int bytes_per = 0;
  switch (h.datatype) {
    case k_uint8: bytes_per = 1; break;
    case k_int16: bytes_per = 2; break;
    case k_int32: case k_float32: bytes_per = 4; break;
    case k_complex64: case k_float64: bytes_per = 8; break;
    default:
      throw InputError(path + ": datatype = " + std::to_string(h.datatype) +
                       " (allowed: 2 uint8, 4 int16, 8 int32, 16 float32, 32 complex64, 64 float64)");
  }
  if (h.bitpix != 8 * bytes_per)
    throw InputError(path + ": bitpix = " + std::to_string(h.bitpix) + " disagrees with datatype " + std::to_string(h.datatype));
  const std::size_t n = static_cast<std::size_t>(h.dim[1]) * static_cast<std::size_t>(h.dim[2]);
  if (n > k_max_voxels) throw InputError(path + ": " + std::to_string(n) + " voxels (allowed: at most 2^28)");
  if (!(h.vox_offset >= 348.f) || h.vox_offset > static_cast<float>(bytes))
    throw InputError(path + ": vox_offset = " + std::to_string(h.vox_offset) + " (allowed: 348 .. file size)");
  const std::size_t off = static_cast<std::size_t>(h.vox_offset);
  if (bytes < off + n * bytes_per)
    throw InputError(path + ": holds " + std::to_string(bytes) + " bytes, header needs " + std::to_string(off + n * bytes_per));
  std::vector<char> buf(n * static_cast<std::size_t>(bytes_per));
  f.seekg(static_cast<std::streamoff>(off));
  if (!f.read(buf.data(), static_cast<std::streamsize>(buf.size()))) throw InputError(path + ": read failed");
  const float slope = h.scl_slope != 0.f && std::isfinite(h.scl_slope) ? h.scl_slope : 1.f;
  const float inter = std::isfinite(h.scl_inter) ? h.scl_inter : 0.f;
  Image2D img;
  img.nx = h.dim[1];
  img.ny = h.dim[2];
  img.data.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = buf.data() + i * static_cast<std::size_t>(bytes_per);
    std::complex<float> v;
    switch (h.datatype) {
      case k_uint8: v = static_cast<float>(static_cast<unsigned char>(*p)); break;
      case k_int16: { std::int16_t x; std::memcpy(&x, p, 2); v = static_cast<float>(x); break; }
      case k_int32: { std::int32_t x; std::memcpy(&x, p, 4); v = static_cast<float>(x); break; }
      case k_float32: { float x; std::memcpy(&x, p, 4); v = x; break; }
      case k_float64: { double x; std::memcpy(&x, p, 8); v = static_cast<float>(x); break; }
      default: std::memcpy(&v, p, 8); break;
    }
    img.data[i] = h.datatype == k_complex64 ? v : std::complex<float>(v.real() * slope + inter, 0.f);
  }
  // pixdim in the header's spatial unit: 1 m, 2 mm, 3 um.
  const int unit = h.xyzt_units & 7;
  const double to_m = unit == 1 ? 1.0 : unit == 3 ? 1e-6 : 1e-3;
  img.fov_x_m = std::abs(h.pixdim[1]) * img.nx * to_m;
  img.fov_y_m = std::abs(h.pixdim[2]) * img.ny * to_m;
  return img;
}

}  // namespace mrwb
