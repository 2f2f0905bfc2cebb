#include "mrwb/base/raw_data.hpp"

#include <algorithm>
#include <string>

#include "mrwb/base/errors.hpp"

namespace mrwb {

void check_raw_layout(const RawData& raw) {
  if (raw.slices < 1 || raw.partitions < 1 || raw.nx <= 0 || raw.ny <= 0 || raw.ncoils <= 0 ||
      raw.kspace.size() != raw.kspace_size())
    throw InputError("recon: k-space holds " + std::to_string(raw.kspace.size()) + " samples, header says " +
                     std::to_string(raw.ncoils) + " coils x " + std::to_string(raw.slices) + " slices x " +
                     std::to_string(raw.partitions) + " partitions x " + std::to_string(raw.ny) + " lines x " +
                     std::to_string(raw.nx) + " samples");
}

RawData extract_slice(const RawData& raw, int slice, int partition) {
  check_raw_layout(raw);
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

}  // namespace mrwb
