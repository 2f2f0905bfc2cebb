// Volume outputs of the 3-D non-Cartesian reconstruction (ImageVolume): BART .cfl, NIfTI-1 .nii, ISMRMRD image .h5.
// file_io.hpp's writers take 2-D images; the NIfTI-1 header is filled here by the standard's byte offsets
// (nifti1.h) rather than a second copy of nifti_io.cpp's struct.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/recon/noncart_volume.hpp"

namespace mrwb::noncart {
namespace {

std::string extension(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(dot);
}

template <typename T>
void put(char* header, std::size_t offset, T value) {
  std::memcpy(header + offset, &value, sizeof(T));
}

// "n^3" for a cube (n^2 for one square plane), else "nx x ny x nz": the size in messages.
std::string size_text(const ImageVolume& v) {
  if (v.nx == v.ny && v.ny == v.nz) return std::to_string(v.nx) + "^3";
  if (v.nx == v.ny && v.nz == 1) return std::to_string(v.nx) + "^2";
  return std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nz);
}

void write_nifti_volume(const std::string& path, const ImageVolume& v) {
  const int n[3] = {v.nx, v.ny, v.nz};
  const double fov_m[3] = {v.fov_x_m, v.fov_y_m, v.fov_z_m};
  for (int a = 0; a < 3; ++a)
    if (n[a] < 1 || n[a] > 32767)
      throw InputError(path + ": volume of " + size_text(v) + " does not fit NIfTI-1 (allowed: 1 .. 32767)");
  std::vector<float> mag(v.data.size());
  std::transform(v.data.begin(), v.data.end(), mag.begin(), [](const std::complex<float>& c) { return std::abs(c); });
  float dx[3], origin[3];
  for (int a = 0; a < 3; ++a) {
    dx[a] = fov_m[a] > 0 ? static_cast<float>(fov_m[a] * 1e3 / n[a]) : 1.f;  // mm
    origin[a] = -static_cast<float>(n[a] / 2) * dx[a];                         // voxel n/2 at 0 (x = (i - n/2)/n)
  }
  if (n[2] == 1) origin[2] = origin[0];  // one plane (a 2-D grid): its z origin was always the in-plane one
  char h[348] = {};
  put<std::int32_t>(h, 0, 348);                             // sizeof_hdr
  h[38] = 'r';                                              // regular
  const std::int16_t dim[8] = {3, static_cast<std::int16_t>(n[0]), static_cast<std::int16_t>(n[1]),
                               static_cast<std::int16_t>(n[2]), 1, 1, 1, 1};
  std::memcpy(h + 40, dim, sizeof dim);                     // dim[8]
  put<std::int16_t>(h, 70, 16);                             // datatype float32
  put<std::int16_t>(h, 72, 32);                             // bitpix
  const float pixdim[8] = {1.f, dx[0], dx[1], dx[2], 1.f, 1.f, 1.f, 1.f};  // qfac 1
  std::memcpy(h + 76, pixdim, sizeof pixdim);
  put<float>(h, 108, 352.f);                                // vox_offset
  put<float>(h, 112, 1.f);                                  // scl_slope
  h[123] = 2 | 8;                                           // xyzt_units mm, s
  put<float>(h, 124, mag.empty() ? 0.f : *std::max_element(mag.begin(), mag.end()));  // cal_max
  std::strncpy(h + 148, "MR Workbench magnitude volume", 79);  // descrip
  put<std::int16_t>(h, 252, 1);                             // qform_code scanner
  put<std::int16_t>(h, 254, 1);                             // sform_code scanner
  for (int a = 0; a < 3; ++a) {
    put<float>(h, 268 + 4 * a, origin[a]);                  // qoffset_x/y/z
    put<float>(h, 280 + 16 * a + 4 * a, dx[a]);             // srow_{x,y,z}[a]
    put<float>(h, 280 + 16 * a + 12, origin[a]);            // srow_{x,y,z}[3]
  }
  std::memcpy(h + 344, "n+1\0", 4);                         // magic
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary);
    if (!f) out.fail();
    f.write(h, sizeof h);
    const char ext[4] = {0, 0, 0, 0};
    f.write(ext, 4);
    f.write(reinterpret_cast<const char*>(mag.data()), static_cast<std::streamsize>(mag.size() * sizeof(float)));
    if (!f.flush()) out.fail();
  }
  out.commit();
}

void write_ismrmrd_volume(const std::string& path, const ImageVolume& v) {
  const int n[3] = {v.nx, v.ny, v.nz};
  const double fov_m[3] = {v.fov_x_m, v.fov_y_m, v.fov_z_m};
  float fov_mm[3];
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 1 || n[a] > 65535) throw InputError(path + ": volume of " + size_text(v) + " (allowed: 1 .. 65535)");
    fov_mm[a] = fov_m[a] > 0 ? static_cast<float>(fov_m[a] * 1e3) : static_cast<float>(n[a]);  // unknown: 1 mm voxels
  }
  write_complex_image_ismrmrd(path, v.nx, v.ny, v.nz, fov_mm, v.data.data());
}

}  // namespace

void check_volume_path(const std::string& path) {
  const std::string ext = extension(path);
  if (ext != ".cfl" && ext != ".nii" && ext != ".h5")
    throw InputError(path + ": --out of a 3-D reconstruction must be a volume (allowed: .cfl, .nii, .h5)");
  require_output_folder(path);
}

void write_volume(const std::string& path, const ImageVolume& v) {
  check_volume_path(path);
  if (v.nx < 0 || v.ny < 0 || v.nz < 0 || v.data.size() != v.plane() * static_cast<std::size_t>(v.nz))
    throw InputError(path + ": volume data does not match " + size_text(v));
  const std::string ext = extension(path);
  if (ext == ".nii") return write_nifti_volume(path, v);
  if (ext == ".h5") return write_ismrmrd_volume(path, v);
  CflArray a;
  a.dims = {v.nx, v.ny, v.nz};
  a.data = v.data;
  write_cfl(path, a);
}

ImageVolume reconstruct_volume_to_files(const RawData& raw, ReconMethod method, Backend backend,
                                        const NoncartParams& p, const std::vector<std::string>& outputs,
                                        const ProgressFn& progress, const CancelToken& cancel) {
  for (const auto& o : outputs) check_volume_path(o);
  const ImageVolume v = reconstruct_volume(raw, method, backend, p, progress, cancel);
  for (const auto& o : outputs) write_volume(o, v);
  return v;
}

}  // namespace mrwb::noncart
