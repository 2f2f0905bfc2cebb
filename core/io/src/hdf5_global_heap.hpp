#pragma once
// The global heap of an HDF5 file, read from its stored bytes: where HDF5 keeps variable-length values
// (an ISMRMRD acquisition's lists, the header string, an image's attributes). HDF5 1.10.8 trusts a stored
// reference: H5HG_read indexes the collection's object table with the stored index unchecked (a segfault
// on a damaged index, found by fuzz/fuzz_ismrmrd_file), and the collection's parser follows object sizes
// as stored. Every reference is followed here first, as HDF5 would parse it (HDF5 file format
// specification, "Global Heap"), so that a damaged one is refused before HDF5 reads it.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>

namespace mrwb {

class GlobalHeapCheck {
 public:
  // `base_address`: the superblock's base (the user block size; 0 for ISMRMRD files).
  GlobalHeapCheck(std::string path, std::uintmax_t file_bytes, std::uint64_t base_address);
  // A stored variable-length value: 4-byte length, 8-byte collection address, 4-byte object index. Throws
  // InputError naming `what` unless a length above 0 refers to an object of exactly length x element_bytes.
  void check(const std::string& what, const unsigned char* stored_value, std::size_t element_bytes);

 private:
  using Objects = std::map<std::uint32_t, std::uint64_t>;  // object index -> size in bytes
  const Objects& collection(const std::string& what, std::uint64_t address);
  std::string path_;
  std::uintmax_t file_bytes_;
  std::uint64_t base_;
  std::ifstream file_;
  std::map<std::uint64_t, Objects> collections_;
};

}  // namespace mrwb
