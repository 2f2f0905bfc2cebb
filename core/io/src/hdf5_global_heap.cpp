#include "hdf5_global_heap.hpp"

#include <vector>

#include "mrwb/base/errors.hpp"

namespace mrwb {

namespace {

std::uint64_t little_endian(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// A collection: "GCOL", version 1, 3 reserved bytes, its size (8 bytes, the header included); then
// objects, each a 16-byte header (index 2, references 2, reserved 4, size 8) and its data padded to 8.
constexpr std::uint64_t k_collection_header = 16, k_object_header = 16;

}  // namespace

GlobalHeapCheck::GlobalHeapCheck(std::string path, std::uintmax_t file_bytes, std::uint64_t base_address)
    : path_(std::move(path)), file_bytes_(file_bytes), base_(base_address), file_(path_, std::ios::binary) {}

const GlobalHeapCheck::Objects& GlobalHeapCheck::collection(const std::string& what, std::uint64_t address) {
  if (const auto it = collections_.find(address); it != collections_.end()) return it->second;
  const auto refuse = [&](const std::string& why) -> void {
    throw InputError(path_ + ": " + what + " refers to the global heap at byte " + std::to_string(address) + ", " + why +
                     " (damaged file)");
  };
  const std::uint64_t at = base_ + address;
  if (at > file_bytes_ || file_bytes_ - at < k_collection_header) refuse("beyond the end of the file");
  unsigned char head[k_collection_header];
  file_.clear();
  if (!file_.seekg(static_cast<std::streamoff>(at)) || !file_.read(reinterpret_cast<char*>(head), sizeof head))
    refuse("which cannot be read");
  if (std::string(reinterpret_cast<const char*>(head), 4) != "GCOL" || head[4] != 1) refuse("where no heap collection is");
  const std::uint64_t size = little_endian(head + 8, 8);
  if (size < k_collection_header || size > file_bytes_ - at)
    refuse("a collection stated as " + std::to_string(size) + " bytes in a file of " + std::to_string(file_bytes_));
  std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
  file_.clear();
  if (!file_.seekg(static_cast<std::streamoff>(at)) || !file_.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    refuse("which cannot be read");
  // As HDF5 parses it (H5HG__cache_heap_deserialize): an object of index 0 is free space whose size
  // includes its header; the others are padded to 8 bytes; a tail shorter than a header is free space.
  Objects objects;
  std::uint64_t p = k_collection_header;
  while (p < size) {
    if (size - p < k_object_header) break;
    const auto index = static_cast<std::uint32_t>(little_endian(&bytes[p], 2));
    const std::uint64_t object = little_endian(&bytes[p + 8], 8);
    const std::uint64_t need = index == 0 ? object : k_object_header + ((object + 7) / 8) * 8;
    if (need == 0) refuse("whose free space states 0 bytes (HDF5 parses it forever)");
    if (object > size || need > size - p)
      refuse("whose object " + std::to_string(index) + " of " + std::to_string(object) + " bytes overruns its collection");
    if (index != 0 && !objects.emplace(index, object).second) refuse("whose object " + std::to_string(index) + " is stored twice");
    p += need;
  }
  return collections_.emplace(address, std::move(objects)).first->second;
}

void GlobalHeapCheck::check(const std::string& what, const unsigned char* stored_value, std::size_t element_bytes) {
  const std::uint64_t length = little_endian(stored_value, 4);
  if (length == 0) return;  // HDF5 reads nothing for an empty value
  const std::uint64_t address = little_endian(stored_value + 4, 8);
  const auto index = static_cast<std::uint32_t>(little_endian(stored_value + 12, 4));
  const Objects& objects = collection(what, address);
  const auto it = objects.find(index);
  if (index == 0 || it == objects.end())
    throw InputError(path_ + ": " + what + " refers to object " + std::to_string(index) + " of the global heap collection at byte " +
                     std::to_string(address) + ", which holds no such object (damaged file)");
  if (it->second != length * element_bytes)
    throw InputError(path_ + ": " + what + " states " + std::to_string(length) + " values of " + std::to_string(element_bytes) +
                     " bytes, but its object in the global heap holds " + std::to_string(it->second) + " bytes (damaged file)");
}

}  // namespace mrwb
