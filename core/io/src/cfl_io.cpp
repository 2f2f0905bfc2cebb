// BART arrays: name.hdr ("# Dimensions" then the sizes) and name.cfl (raw little-endian complex float,
// first dimension fastest). Raw data, trajectories and images go through these.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"

namespace mrwb {
namespace fs = std::filesystem;
namespace {

constexpr int k_bart_dims = 16;
constexpr int k_time_dim = 10, k_te_dim = 5, k_slice_dim = 13, k_coil_dim = 3;
// Largest array we read: 2^28 complex values (2 GiB); the .cfl size is checked against the .hdr first.
constexpr std::size_t k_max_values = std::size_t{1} << 28;

std::string base_of(const std::string& path) {
  const fs::path p(path);
  const std::string ext = p.extension().string();
  return ext == ".cfl" || ext == ".hdr" ? (p.parent_path() / p.stem()).string() : path;
}

long dim(const CflArray& a, int d) { return d < static_cast<int>(a.dims.size()) ? a.dims[static_cast<std::size_t>(d)] : 1; }

}  // namespace

std::size_t CflArray::size() const {
  std::size_t n = 1;
  for (long d : dims) n *= static_cast<std::size_t>(d);
  return n;
}

std::vector<std::string> files_of(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    if (p.empty()) continue;
    const std::string base = base_of(p);
    if (base == p) {
      files.push_back(p);
    } else {
      files.push_back(base + ".cfl");
      files.push_back(base + ".hdr");
    }
  }
  return files;
}

CflArray read_cfl(const std::string& path) {
  const std::string base = base_of(path);
  const std::string hdr = base + ".hdr", cfl = base + ".cfl";
  std::ifstream h(hdr);
  if (!h) throw InputError(hdr + ": no such file (a BART array needs name.hdr and name.cfl)");
  std::string line;
  CflArray a;
  bool found = false;
  while (std::getline(h, line)) {
    if (line.rfind("# Dimensions", 0) != 0) continue;
    if (!std::getline(h, line)) break;
    std::istringstream ss(line);
    std::string tok;
    while (ss >> tok) {
      char* end = nullptr;
      const long long v = std::strtoll(tok.c_str(), &end, 10);
      if (*end != '\0' || v < 1 || v > 1000000000LL)
        throw InputError(hdr + ": dimension " + std::to_string(a.dims.size()) + " = '" + tok.substr(0, 20) +
                         "' (allowed: integers 1 .. 1e9)");
      a.dims.push_back(static_cast<long>(v));
    }
    found = true;
    break;
  }
  if (!found || a.dims.empty()) throw InputError(hdr + ": no '# Dimensions' line (not a BART header)");
  if (a.dims.size() > k_bart_dims)
    throw InputError(hdr + ": " + std::to_string(a.dims.size()) + " dimensions (allowed: at most 16)");
  // Product with an overflow guard before anything is allocated.
  std::size_t n = 1;
  for (long d : a.dims) {
    if (n > k_max_values / static_cast<std::size_t>(d))
      throw InputError(hdr + ": dimensions hold more than 2^28 values (absurd or too large to read)");
    n *= static_cast<std::size_t>(d);
  }
  std::error_code ec;
  const auto bytes = fs::file_size(cfl, ec);
  if (ec) throw InputError(cfl + ": no such file (a BART array needs name.hdr and name.cfl)");
  if (bytes != n * sizeof(std::complex<float>))
    throw InputError(cfl + ": holds " + std::to_string(bytes) + " bytes, " + hdr + " says " + std::to_string(n) +
                     " complex floats (" + std::to_string(n * sizeof(std::complex<float>)) + " bytes)");
  a.data.resize(n);
  std::ifstream f(cfl, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(bytes)))
    throw InputError(cfl + ": read failed");
  return a;
}

void write_cfl(const std::string& path, const CflArray& a) {
  const std::string base = base_of(path);
  if (a.dims.empty() || a.dims.size() > k_bart_dims) throw InputError(base + ".hdr: needs 1 .. 16 dimensions");
  if (a.size() != a.data.size())
    throw InputError(base + ".cfl: " + std::to_string(a.data.size()) + " values for dimensions of " + std::to_string(a.size()));
  AtomicOutput out_cfl(base + ".cfl"), out_hdr(base + ".hdr");
  {
    std::ofstream f(out_cfl.temp_path(), std::ios::binary);
    f.write(reinterpret_cast<const char*>(a.data.data()), static_cast<std::streamsize>(a.data.size() * sizeof(a.data[0])));
    if (!f.flush()) out_cfl.fail();
  }
  {
    std::ofstream h(out_hdr.temp_path());
    h << "# Dimensions\n";
    for (int d = 0; d < k_bart_dims; ++d) h << (d ? " " : "") << dim(a, d);
    h << "\n";
    if (!h.flush()) out_hdr.fail();
  }
  // Data first, the header last (in an OutputTransaction too): a reader that finds the header finds complete data.
  out_cfl.commit();
  out_hdr.commit();
}

namespace {

// BART's undersampled k-space carries no line flags: a fully sampled block around the centre next to lines
// on a lattice (R = the gcd of the gaps between the acquired lines outside the block) reads as ISMRMRD's
// calibration-and-imaging lines, so that GRAPPA finds its ACS lines and its R. An irregular pattern
// (variable-density Poisson-disc: gcd 1 outside the block) keeps R = 1 and no calibration lines.
void mark_calibration_block(RawData& raw) {
  const auto acquired = [&](int l) { return (raw.line_flags[static_cast<std::size_t>(l)] & kLineAcquired) != 0; };
  const int k0 = raw.k0_line();
  if (k0 < 0 || k0 >= raw.ny || !acquired(k0)) return;
  int first = k0, last = k0;
  while (first > 0 && acquired(first - 1)) --first;
  while (last + 1 < raw.ny && acquired(last + 1)) ++last;
  int gap = 0, prev = -1;
  for (int l = 0; l < raw.ny; ++l) {
    if (!acquired(l) || (l >= first && l <= last)) continue;
    if (prev >= 0 && !(prev < first && l > last)) gap = std::gcd(gap, l - prev);
    prev = l;
  }
  if (gap < 2 || last - first + 1 < 2 * gap) return;
  raw.accel_R = gap;
  for (int l = first; l <= last; ++l) raw.line_flags[static_cast<std::size_t>(l)] |= kLineCalibration;
}

}  // namespace

RawData read_raw_cfl(const std::string& kspace_path, const std::string& traj_path, const RawSelection& sel) {
  const CflArray k = read_cfl(kspace_path);
  const std::string kname = base_of(kspace_path) + ".cfl";
  // Selection along BART's SLICE, TIME and TE dimensions; every other dimension beyond COIL must be 1.
  const int picks[3][2] = {{k_slice_dim, sel.slice}, {k_time_dim, sel.repetition}, {k_te_dim, sel.contrast}};
  const char* pick_names[3] = {"slice (dim 13)", "repetition (TIME, dim 10)", "contrast (TE, dim 5)"};
  for (int i = 0; i < 3; ++i)
    if (picks[i][1] < 0 || picks[i][1] >= dim(k, picks[i][0]))
      throw InputError(kname + ": " + pick_names[i] + " " + std::to_string(picks[i][1]) + " is out of range (allowed: 0.." +
                       std::to_string(dim(k, picks[i][0]) - 1) + ")");
  for (int d = 4; d < k_bart_dims; ++d)
    if (d != k_slice_dim && d != k_time_dim && d != k_te_dim && dim(k, d) != 1)
      throw InputError(kname + ": dimension " + std::to_string(d) + " = " + std::to_string(dim(k, d)) +
                       " (allowed: 1; k-space is [READ, PHS1, 1, COIL] or [1, samples, lines, COIL])");
  RawData raw;
  const bool noncart = !traj_path.empty();
  if (noncart) {
    if (dim(k, 0) != 1)
      throw InputError(kname + ": non-Cartesian k-space needs dimension 0 = 1 ([1, samples, lines, COIL]), has " +
                       std::to_string(dim(k, 0)));
    raw.nx = static_cast<int>(dim(k, 1));
    raw.ny = static_cast<int>(dim(k, 2));
  } else {
    if (dim(k, 0) == 1 && dim(k, 1) > 1)
      throw InputError(kname + ": looks non-Cartesian ([1, samples, lines, ...]); give its trajectory with --traj");
    if (dim(k, 2) != 1)
      throw InputError(kname + ": dimension 2 (PHS2) = " + std::to_string(dim(k, 2)) + ": 3-D k-space is not supported (allowed: 1)");
    raw.nx = static_cast<int>(dim(k, 0));
    raw.ny = static_cast<int>(dim(k, 1));
  }
  raw.ncoils = static_cast<int>(dim(k, k_coil_dim));
  if (raw.nx > 65535 || raw.ny > 65535 || raw.ncoils > 65535)
    throw InputError(kname + ": " + std::to_string(raw.nx) + " x " + std::to_string(raw.ny) + " x " +
                     std::to_string(raw.ncoils) + " coils (allowed: at most 65535 each)");
  // Offset of the selected [x, y, 1, coil] block; strides from the full dims.
  std::size_t stride[k_bart_dims];
  stride[0] = 1;
  for (int d = 1; d < k_bart_dims; ++d) stride[d] = stride[d - 1] * static_cast<std::size_t>(dim(k, d - 1));
  const std::size_t base_off = stride[k_slice_dim] * sel.slice + stride[k_time_dim] * sel.repetition + stride[k_te_dim] * sel.contrast;
  const std::size_t plane = static_cast<std::size_t>(raw.nx) * raw.ny;
  raw.kspace.resize(plane * raw.ncoils);
  for (int c = 0; c < raw.ncoils; ++c)
    std::copy_n(k.data.begin() + static_cast<std::ptrdiff_t>(base_off + stride[k_coil_dim] * c), plane,
                raw.kspace.begin() + static_cast<std::ptrdiff_t>(plane * c));

  if (noncart) {
    const CflArray t = read_cfl(traj_path);
    const std::string tname = base_of(traj_path) + ".cfl";
    if (dim(t, 0) != 3 || dim(t, 1) != raw.nx || dim(t, 2) != raw.ny || t.size() != static_cast<std::size_t>(3) * raw.nx * raw.ny)
      throw InputError(tname + ": trajectory is " + std::to_string(dim(t, 0)) + " x " + std::to_string(dim(t, 1)) + " x " +
                       std::to_string(dim(t, 2)) + ", k-space needs 3 x " + std::to_string(raw.nx) + " x " + std::to_string(raw.ny));
    bool has_kz = false;
    for (std::size_t i = 0; i < t.data.size(); ++i) {
      if (!std::isfinite(t.data[i].real()) || !std::isfinite(t.data[i].imag()))
        throw InputError(tname + ": trajectory value " + std::to_string(i) + " is not finite");
      if (i % 3 == 2 && t.data[i].real() != 0.f) has_kz = true;
    }
    // A 2-D trajectory keeps (kx, ky); a 3-D one all three, for the reconstructor to judge.
    raw.traj_dims = has_kz ? 3 : 2;
    raw.traj.resize(static_cast<std::size_t>(raw.nx) * raw.ny * raw.traj_dims);
    for (std::size_t p = 0; p < plane; ++p)
      for (int dd = 0; dd < raw.traj_dims; ++dd) raw.traj[p * raw.traj_dims + dd] = t.data[p * 3 + dd].real();
    raw.trajectory_type = "other";
  }
  raw.line_flags.assign(static_cast<std::size_t>(raw.ny), kLineAcquired | kLineImaging);
  if (!noncart) {
    // Zero lines are unacquired (BART's convention for undersampled Cartesian k-space).
    int prev = -1, gap = 0, acquired = 0;
    for (int l = 0; l < raw.ny; ++l) {
      bool any = false;
      for (int c = 0; c < raw.ncoils && !any; ++c)
        for (int s = 0; s < raw.nx && !any; ++s) any = raw.at(c, l, s) != std::complex<float>{};
      if (!any) {
        raw.line_flags[static_cast<std::size_t>(l)] = 0;
        continue;
      }
      ++acquired;
      if (prev >= 0) gap = std::gcd(gap, l - prev);
      prev = l;
    }
    if (acquired == 0) throw InputError(kname + ": k-space is all zero");
    raw.accel_R = std::max(1, gap);
    if (acquired == raw.ny) raw.line_flags.clear();
    else mark_calibration_block(raw);
  }
  return raw;
}

void write_raw_cfl(const std::string& kspace_path, const std::string& traj_path, const RawData& raw) {
  if (raw.kspace.size() != static_cast<std::size_t>(raw.nx) * raw.ny * raw.ncoils)
    throw InputError(kspace_path + ": k-space size does not match its header");
  CflArray k;
  k.dims = raw.cartesian() ? std::vector<long>{raw.nx, raw.ny, 1, raw.ncoils} : std::vector<long>{1, raw.nx, raw.ny, raw.ncoils};
  k.data = raw.kspace;
  if (!raw.cartesian()) {
    if (traj_path.empty()) throw InputError(kspace_path + ": non-Cartesian k-space needs a trajectory file too");
    CflArray t;
    t.dims = {3, raw.nx, raw.ny};
    t.data.assign(t.size(), {});
    for (std::size_t p = 0; p < static_cast<std::size_t>(raw.nx) * raw.ny; ++p)
      for (int dd = 0; dd < raw.traj_dims; ++dd) t.data[p * 3 + dd] = raw.traj[p * raw.traj_dims + dd];
    write_cfl(traj_path, t);
  }
  write_cfl(kspace_path, k);
}

void write_image_cfl(const std::string& path, const Image2D& image) {
  CflArray a;
  a.dims = {image.nx, image.ny};
  a.data = image.data;
  write_cfl(path, a);
}

Image2D read_image_cfl(const std::string& path) {
  const CflArray a = read_cfl(path);
  for (std::size_t d = 2; d < a.dims.size(); ++d)
    if (a.dims[d] != 1)
      throw InputError(base_of(path) + ".hdr: dimension " + std::to_string(d) + " = " + std::to_string(a.dims[d]) +
                       " (a 2-D image needs [x, y] with all other dimensions 1)");
  Image2D img;
  img.nx = static_cast<int>(dim(a, 0));
  img.ny = static_cast<int>(dim(a, 1));
  img.data = a.data;
  return img;
}

}  // namespace mrwb
