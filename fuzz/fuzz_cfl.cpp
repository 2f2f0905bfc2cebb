// BART .cfl/.hdr (core/io/src/cfl_io.cpp). One input holds the array's two files and, optionally, a
// trajectory's two files:
//   <.hdr text> NUL <.cfl bytes> [ NUL "TRAJ" NUL <trajectory .hdr text> NUL <trajectory .cfl bytes> ]
// read as `mrwb recon --in k.cfl [--traj t.cfl]` reads k-space (read_raw) and as `mrwb compare` reads an
// image (read_image).
#include <algorithm>
#include <string_view>

#include "fuzz_support.hpp"
#include "mrwb/io/file_io.hpp"

namespace {

constexpr std::string_view k_traj_marker{"\0TRAJ\0", 6};

// Writes <stem>.hdr and <stem>.cfl from "<hdr> NUL <cfl>" (no NUL: all header, empty data).
std::string write_array(const std::string& stem, std::string_view part) {
  const std::string path = mrwb::fuzz::scratch_path(stem);
  const std::size_t nul = std::min(part.find('\0'), part.size());
  mrwb::fuzz::write_file(path + ".hdr", part.substr(0, nul));
  mrwb::fuzz::write_file(path + ".cfl", part.substr(std::min(nul + 1, part.size())));
  return path + ".cfl";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mrwb;
  const std::string_view in = fuzz::bytes(data, size);
  const std::size_t marker = in.find(k_traj_marker);
  const std::string kspace = write_array("k", in.substr(0, marker));
  const std::string traj = marker == std::string_view::npos ? "" : write_array("t", in.substr(marker + k_traj_marker.size()));
  const std::string folder = fuzz::scratch_path("");
  RawSelection all;
  all.slice = -1;  // recon's default
  fuzz::accepts(folder, [&] { (void)read_raw(kspace, traj, all); });
  fuzz::accepts(folder, [&] { (void)read_image(kspace).magnitude(); });
  return 0;
}
