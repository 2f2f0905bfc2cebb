#include "ismrmrd_checks.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

// One HDF5 handle, closed with the right function when it goes out of scope.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid(hid_t id, Closer close) : id_(id), close_(close) {}
  ~Hid() {
    if (id_ >= 0) close_(id_);
  }
  Hid(Hid&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid& operator=(Hid&&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer close_;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(path + ": " + what); }

bool link_exists(hid_t file, const std::string& name) {
  // H5Lexists needs every parent to exist; check each level.
  std::string sofar;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = name.find('/', pos + 1);
    sofar = name.substr(0, pos);
    if (sofar.empty() || sofar == "/") continue;
    if (H5Lexists(file, sofar.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return true;
}

Hid open_file(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) fail(path, "cannot be opened as HDF5 (truncated or damaged file)");
  return f;
}

// The member `name` of compound `type` has class `cls`; returns its type (or fails naming the field).
Hid member_type(const std::string& path, const std::string& where, hid_t type, const char* name, H5T_class_t cls) {
  const int i = H5Tget_member_index(type, name);
  if (i < 0) fail(path, where + " has no member '" + name + "' (not an ISMRMRD compound type)");
  Hid t(H5Tget_member_type(type, static_cast<unsigned>(i)), H5Tclose);
  if (H5Tget_class(t.get()) != cls) fail(path, where + "." + name + " has the wrong type (not an ISMRMRD compound type)");
  return t;
}

struct AcqHeadLengths {
  std::uint16_t number_of_samples, active_channels, trajectory_dimensions;
};
struct AcqRecord {
  AcqHeadLengths head;
  hvl_t traj;
  hvl_t data;
};

}  // namespace

void check_ismrmrd_raw_layout(const std::string& path, const std::string& group) {
  Hid f = open_file(path);
  const std::string xml = "/" + group + "/xml", data = "/" + group + "/data";
  if (!link_exists(f.get(), xml)) fail(path, xml + " is missing (not an ISMRMRD raw-data file)");
  {
    Hid d(H5Dopen2(f.get(), xml.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ok()) fail(path, xml + " cannot be read (truncated or damaged file)");
    Hid t(H5Dget_type(d.get()), H5Tclose);
    if (H5Tget_class(t.get()) != H5T_STRING) fail(path, xml + " is not a string (wrong type)");
  }
  if (!link_exists(f.get(), data)) fail(path, data + " is missing (no acquisitions)");
  Hid d(H5Dopen2(f.get(), data.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) fail(path, data + " cannot be read (truncated or damaged file)");
  Hid ft(H5Dget_type(d.get()), H5Tclose);
  if (H5Tget_class(ft.get()) != H5T_COMPOUND) fail(path, data + " is not a compound dataset (wrong type)");
  {
    Hid head = member_type(path, data, ft.get(), "head", H5T_COMPOUND);
    for (const char* m : {"number_of_samples", "active_channels", "trajectory_dimensions"})
      member_type(path, data + ".head", head.get(), m, H5T_INTEGER);
    for (const char* m : {"traj", "data"}) {
      Hid v = member_type(path, data, ft.get(), m, H5T_VLEN);
      Hid base(H5Tget_super(v.get()), H5Tclose);
      if (H5Tget_class(base.get()) != H5T_FLOAT) fail(path, data + "." + m + " is not a list of floats (wrong type)");
    }
  }
  Hid space(H5Dget_space(d.get()), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) fail(path, data + " is not one-dimensional");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);

  // Memory type: the three header lengths and both variable-length arrays; HDF5 matches members by name.
  Hid head_t(H5Tcreate(H5T_COMPOUND, sizeof(AcqHeadLengths)), H5Tclose);
  H5Tinsert(head_t.get(), "number_of_samples", HOFFSET(AcqHeadLengths, number_of_samples), H5T_NATIVE_UINT16);
  H5Tinsert(head_t.get(), "active_channels", HOFFSET(AcqHeadLengths, active_channels), H5T_NATIVE_UINT16);
  H5Tinsert(head_t.get(), "trajectory_dimensions", HOFFSET(AcqHeadLengths, trajectory_dimensions), H5T_NATIVE_UINT16);
  Hid vlen_t(H5Tvlen_create(H5T_NATIVE_FLOAT), H5Tclose);
  Hid rec_t(H5Tcreate(H5T_COMPOUND, sizeof(AcqRecord)), H5Tclose);
  H5Tinsert(rec_t.get(), "head", HOFFSET(AcqRecord, head), head_t.get());
  H5Tinsert(rec_t.get(), "traj", HOFFSET(AcqRecord, traj), vlen_t.get());
  H5Tinsert(rec_t.get(), "data", HOFFSET(AcqRecord, data), vlen_t.get());

  constexpr hsize_t block = 256;
  std::vector<AcqRecord> recs(block);
  for (hsize_t start = 0; start < n; start += block) {
    hsize_t count = std::min(block, n - start);
    Hid mem(H5Screate_simple(1, &count, nullptr), H5Sclose);
    H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr);
    std::fill(recs.begin(), recs.end(), AcqRecord{});
    if (H5Dread(d.get(), rec_t.get(), mem.get(), space.get(), H5P_DEFAULT, recs.data()) < 0)
      fail(path, data + " acquisitions " + std::to_string(start) + ".." + std::to_string(start + count - 1) +
                     " cannot be read (truncated file or wrong compound type)");
    std::string bad;
    for (hsize_t i = 0; i < count && bad.empty(); ++i) {
      const auto& r = recs[i];
      const std::size_t want_data = 2ull * r.head.number_of_samples * r.head.active_channels;
      const std::size_t want_traj = 1ull * r.head.number_of_samples * r.head.trajectory_dimensions;
      if (r.data.len != want_data || r.traj.len != want_traj)
        bad = "acquisition " + std::to_string(start + i) + ": header says " + std::to_string(r.head.number_of_samples) +
              " samples x " + std::to_string(r.head.active_channels) + " channels (" + std::to_string(want_data) +
              " floats) and " + std::to_string(r.head.trajectory_dimensions) + " trajectory dimensions, data holds " +
              std::to_string(r.data.len) + " and " + std::to_string(r.traj.len) + " floats";
    }
    H5Dvlen_reclaim(rec_t.get(), mem.get(), H5P_DEFAULT, recs.data());
    if (!bad.empty()) fail(path, bad);
  }
}

void check_ismrmrd_image_layout(const std::string& path, const std::string& group, const std::string& var) {
  Hid f = open_file(path);
  const std::string base = "/" + group + "/" + var;
  const std::string header = base + "/header", data = base + "/data";
  if (!link_exists(f.get(), header) || !link_exists(f.get(), data))
    fail(path, "no ISMRMRD image '" + base + "' (needs " + header + " and " + data + ")");
  Hid hd(H5Dopen2(f.get(), header.c_str(), H5P_DEFAULT), H5Dclose);
  Hid dd(H5Dopen2(f.get(), data.c_str(), H5P_DEFAULT), H5Dclose);
  if (!hd.ok() || !dd.ok()) fail(path, base + " cannot be read (truncated or damaged file)");
  Hid ht(H5Dget_type(hd.get()), H5Tclose);
  if (H5Tget_class(ht.get()) != H5T_COMPOUND) fail(path, header + " is not a compound dataset (wrong type)");
  member_type(path, header, ht.get(), "matrix_size", H5T_ARRAY);
  member_type(path, header, ht.get(), "channels", H5T_INTEGER);

  Hid hs(H5Dget_space(hd.get()), H5Sclose);
  if (H5Sget_simple_extent_ndims(hs.get()) != 1) fail(path, header + " is not one-dimensional");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(hs.get(), &n, nullptr);
  if (n == 0 || n > 1000000) fail(path, header + " holds " + std::to_string(n) + " image headers (allowed: 1 .. 1000000)");

  struct Sizes {
    std::uint16_t matrix[3];
    std::uint16_t channels;
  };
  const hsize_t three = 3;
  Hid arr_t(H5Tarray_create2(H5T_NATIVE_UINT16, 1, &three), H5Tclose);
  Hid mt(H5Tcreate(H5T_COMPOUND, sizeof(Sizes)), H5Tclose);
  H5Tinsert(mt.get(), "matrix_size", HOFFSET(Sizes, matrix), arr_t.get());
  H5Tinsert(mt.get(), "channels", HOFFSET(Sizes, channels), H5T_NATIVE_UINT16);
  std::vector<Sizes> sizes(n);
  if (H5Dread(hd.get(), mt.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, sizes.data()) < 0)
    fail(path, header + " cannot be read (truncated file or wrong compound type)");

  Hid ds(H5Dget_space(dd.get()), H5Sclose);
  const int nd = H5Sget_simple_extent_ndims(ds.get());
  if (nd < 1 || nd > 8) fail(path, data + " has " + std::to_string(nd) + " dimensions");
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  H5Sget_simple_extent_dims(ds.get(), dims.data(), nullptr);
  // libismrmrd stores images as [image][channel][z][y][x]; each image must hold what its header says.
  hsize_t per_image = 1;
  for (int i = 1; i < nd; ++i) per_image *= dims[static_cast<std::size_t>(i)];
  if (dims[0] != n) fail(path, data + " holds " + std::to_string(dims[0]) + " images, " + header + " " + std::to_string(n));
  for (hsize_t i = 0; i < n; ++i) {
    const auto& s = sizes[i];
    const hsize_t want = 1ull * s.matrix[0] * s.matrix[1] * std::max<std::uint16_t>(1, s.matrix[2]) * std::max<std::uint16_t>(1, s.channels);
    if (want != per_image)
      fail(path, "image " + std::to_string(i) + ": header matrix_size " + std::to_string(s.matrix[0]) + "x" +
                     std::to_string(s.matrix[1]) + "x" + std::to_string(s.matrix[2]) + " with " +
                     std::to_string(s.channels) + " channels, data holds " + std::to_string(per_image) + " values");
  }
}

}  // namespace mrwb
