// Multi-slice / 3-D raw data: one slice or partition as 2-D RawData, the kz inverse DFT to hybrid space,
// and the image volume stacked from 2-D planes.
#include <algorithm>

#include "mrwb/errors.hpp"
#include "mrwb/multislice.hpp"
#include "mrwb/recon_fft.hpp"

namespace mrwb {

Image2D ImageVolume::slice(int z) const {
  if (z < 0 || z >= nz) throw InputError("volume: plane " + std::to_string(z) + " (allowed: 0 .. " + std::to_string(nz - 1) + ")");
  Image2D img;
  img.nx = nx;
  img.ny = ny;
  img.fov_x_m = fov_x_m;
  img.fov_y_m = fov_y_m;
  img.data.assign(data.begin() + static_cast<std::ptrdiff_t>(plane() * z),
                  data.begin() + static_cast<std::ptrdiff_t>(plane() * (z + 1)));
  return img;
}

ImageVolume stack_images(const std::vector<Image2D>& planes, double fov_z_m) {
  ImageVolume v;
  if (planes.empty()) return v;
  v.nx = planes.front().nx;
  v.ny = planes.front().ny;
  v.nz = static_cast<int>(planes.size());
  v.fov_x_m = planes.front().fov_x_m;
  v.fov_y_m = planes.front().fov_y_m;
  v.fov_z_m = fov_z_m;
  v.data.reserve(v.plane() * v.nz);
  for (const Image2D& p : planes) {
    if (p.nx != v.nx || p.ny != v.ny || p.data.size() != v.plane())
      throw InputError("volume: planes differ in size (" + std::to_string(p.nx) + "x" + std::to_string(p.ny) + " and " +
                       std::to_string(v.nx) + "x" + std::to_string(v.ny) + ")");
    v.data.insert(v.data.end(), p.data.begin(), p.data.end());
  }
  return v;
}

namespace {

void check_volume_raw(const RawData& raw) {
  if (raw.slices < 1 || raw.partitions < 1 || raw.nx <= 0 || raw.ny <= 0 || raw.ncoils <= 0 ||
      raw.kspace.size() != raw.kspace_size())
    throw InputError("recon: k-space holds " + std::to_string(raw.kspace.size()) + " samples, header says " +
                     std::to_string(raw.ncoils) + " coils x " + std::to_string(raw.slices) + " slices x " +
                     std::to_string(raw.partitions) + " partitions x " + std::to_string(raw.ny) + " lines x " +
                     std::to_string(raw.nx) + " samples");
}

}  // namespace

RawData extract_slice(const RawData& raw, int slice, int partition) {
  check_volume_raw(raw);
  if (slice < 0 || slice >= raw.slices || partition < 0 || partition >= raw.partitions)
    throw InputError("raw data: slice " + std::to_string(slice) + ", partition " + std::to_string(partition) +
                     " (allowed: slice 0 .. " + std::to_string(raw.slices - 1) + ", partition 0 .. " +
                     std::to_string(raw.partitions - 1) + ")");
  RawData out = raw;  // header, flags, noise scan
  out.slices = out.partitions = 1;
  out.center_partition = -1;
  const std::size_t plane = static_cast<std::size_t>(raw.ny) * raw.nx;
  out.kspace.resize(plane * raw.ncoils);
  for (int c = 0; c < raw.ncoils; ++c)
    std::copy_n(raw.kspace.begin() + static_cast<std::ptrdiff_t>(raw.index(c, slice, partition, 0, 0)), plane,
                out.kspace.begin() + static_cast<std::ptrdiff_t>(plane * c));
  return out;
}

RawData hybrid_space(const RawData& raw) {
  check_volume_raw(raw);
  if (raw.partitions == 1) return raw;
  const int P = raw.partitions;
  if (raw.k0_partition() != P / 2)
    throw InputError("recon: kz centre at partition " + std::to_string(raw.k0_partition()) + " of " + std::to_string(P) +
                     " (allowed: partitions/2 = " + std::to_string(P / 2) + "; kz partial Fourier is not supported)");
  RawData out = raw;
  std::vector<std::complex<float>> kz(static_cast<std::size_t>(P));
  const std::size_t stride = static_cast<std::size_t>(raw.ny) * raw.nx;  // between partitions
  for (int c = 0; c < raw.ncoils; ++c)
    for (int s = 0; s < raw.slices; ++s) {
      const std::size_t base = raw.index(c, s, 0, 0, 0);
      for (std::size_t i = 0; i < stride; ++i) {
        for (int p = 0; p < P; ++p) kz[static_cast<std::size_t>(p)] = raw.kspace[base + p * stride + i];
        // The 1-D centred inverse DFT (1/P) with the convention of the in-plane axes: z = (i − P/2)·dz.
        const auto z = centred_ifft2(kz.data(), P, 1);
        for (int p = 0; p < P; ++p) out.kspace[base + p * stride + i] = z[static_cast<std::size_t>(p)];
      }
    }
  return out;
}

}  // namespace mrwb
