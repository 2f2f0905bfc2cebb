#include "ismrmrd_checks.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "hdf5_global_heap.hpp"
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
struct ListLengths {
  std::uint32_t traj = 0, data = 0;  // floats
};

// The text of every <tag>...</tag> inside `xml` (a section of the header), with where it starts.
std::vector<std::pair<std::size_t, std::string>> element_texts(std::string_view xml, const std::string& tag) {
  std::vector<std::pair<std::size_t, std::string>> out;
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  for (std::size_t at = xml.find(open); at != std::string_view::npos; at = xml.find(open, at + 1)) {
    const std::size_t from = at + open.size(), to = xml.find(close, from);
    if (to == std::string_view::npos) break;
    out.emplace_back(at, std::string(xml.substr(from, to - from)));
  }
  return out;
}

// An unsigned 16-bit integer as XML text (surrounding white space allowed), else nothing.
bool is_u16_text(const std::string& t) {
  const std::size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
  if (b == std::string::npos || e - b + 1 > 5) return false;
  unsigned v = 0;
  for (std::size_t i = b; i <= e; ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
    v = v * 10 + static_cast<unsigned>(t[i] - '0');
  }
  return v <= 65535;
}

// The value as it may appear in a one-line message: control characters as '?', at most 40 characters.
std::string quoted(const std::string& t) {
  std::string q = t.substr(0, 40);
  for (char& c : q)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return "'" + q + (t.size() > 40 ? "...'" : "'");
}

// One acquisition's lengths as its header states them.
void check_lengths(const std::string& path, hsize_t i, const AcqHeadLengths& h,
                   std::size_t traj_len, std::size_t data_len) {
  const std::size_t want_data = 2ull * h.number_of_samples * h.active_channels;
  const std::size_t want_traj = 1ull * h.number_of_samples * h.trajectory_dimensions;
  if (data_len != want_data || traj_len != want_traj)
    fail(path, "acquisition " + std::to_string(i) + ": header says " + std::to_string(h.number_of_samples) +
                   " samples x " + std::to_string(h.active_channels) + " channels (" + std::to_string(want_data) +
                   " floats) and " + std::to_string(h.trajectory_dimensions) + " trajectory dimensions, data holds " +
                   std::to_string(data_len) + " and " + std::to_string(traj_len) + " floats");
}

// The header lengths of every acquisition: a memory type of the head member alone, so HDF5 converts no list.
std::vector<AcqHeadLengths> head_lengths(const std::string& path, const std::string& data, hid_t d, hsize_t n) {
  Hid head_t(H5Tcreate(H5T_COMPOUND, sizeof(AcqHeadLengths)), H5Tclose);
  H5Tinsert(head_t.get(), "number_of_samples", HOFFSET(AcqHeadLengths, number_of_samples), H5T_NATIVE_UINT16);
  H5Tinsert(head_t.get(), "active_channels", HOFFSET(AcqHeadLengths, active_channels), H5T_NATIVE_UINT16);
  H5Tinsert(head_t.get(), "trajectory_dimensions", HOFFSET(AcqHeadLengths, trajectory_dimensions), H5T_NATIVE_UINT16);
  struct HeadOnly {
    AcqHeadLengths head;
  };
  Hid rec_t(H5Tcreate(H5T_COMPOUND, sizeof(HeadOnly)), H5Tclose);
  H5Tinsert(rec_t.get(), "head", HOFFSET(HeadOnly, head), head_t.get());
  std::vector<AcqHeadLengths> heads(n);
  if (n > 0 && H5Dread(d, rec_t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, heads.data()) < 0)
    fail(path, data + " acquisition headers cannot be read (truncated file or wrong compound type)");
  return heads;
}

// HDF5 converts a variable-length value (an acquisition's list, the header's string) by allocating the
// length its stored record states before it reads the value: a damaged length of 1.2e9 floats asked for
// 4.6 GB. A stored value is that length (4 bytes, little-endian) and a heap address, 16 bytes with the
// 8-byte addresses of every current writer; these read the lengths from the stored bytes, unconverted.
constexpr std::size_t k_stored_vlen_bytes = 16;
bool eight_byte_addresses(hid_t f) {
  Hid fcpl(H5Fget_create_plist(f), H5Pclose);
  std::size_t addr_bytes = 0, size_bytes = 0;
  // Lengths of 8 bytes too: the global heap's collection sizes are stored in them.
  return H5Pget_sizes(fcpl.get(), &addr_bytes, &size_bytes) >= 0 && addr_bytes == 8 && size_bytes == 8;
}
// The file's global heap, for following stored references (hdf5_global_heap.hpp).
GlobalHeapCheck global_heap(const std::string& path, hid_t f, std::uintmax_t file_bytes) {
  Hid fcpl(H5Fget_create_plist(f), H5Pclose);
  hsize_t user_block = 0;
  H5Pget_userblock(fcpl.get(), &user_block);
  return GlobalHeapCheck(path, file_bytes, user_block);
}
std::uint32_t stored_length(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

// The n records of `record` bytes of dataset d as stored: unfiltered chunks (as libismrmrd writes the
// acquisitions) or contiguous bytes (its header); records never written are zeros. Nothing for other
// layouts (filtered, compact).
std::optional<std::vector<unsigned char>> stored_records(const std::string& path, hid_t d, std::size_t record, hsize_t n) {
  std::vector<unsigned char> out(static_cast<std::size_t>(n) * record, 0);
  Hid dcpl(H5Dget_create_plist(d), H5Pclose);
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_CHUNKED && H5Pget_nfilters(dcpl.get()) == 0) {
    hsize_t chunk = 0;
    if (H5Pget_chunk(dcpl.get(), 1, &chunk) != 1 || chunk == 0) return std::nullopt;
    std::vector<unsigned char> bytes;
    // A chunk the index holds but that cannot be read as stored is a damaged index: refused here, since
    // HDF5's own read of it follows the damaged entries (a 25 kB file had it allocate 13.7 GB).
    const auto damaged = [&](hsize_t first) {
      char name[256] = "";
      H5Iget_name(d, name, sizeof name);
      fail(path, std::string(name) + ": the chunk at record " + std::to_string(first) +
                     " cannot be read as stored (damaged chunk index)");
    };
    for (hsize_t first = 0; first < n; first += chunk) {
      hsize_t stored = 0;
      if (H5Dget_chunk_storage_size(d, &first, &stored) < 0) damaged(first);
      if (stored == 0) continue;  // not allocated
      if (stored != chunk * record) damaged(first);
      bytes.resize(stored);
      std::uint32_t filters = 0;
      if (H5Dread_chunk(d, H5P_DEFAULT, &first, &filters, bytes.data()) < 0) damaged(first);
      const std::size_t take = static_cast<std::size_t>(std::min(chunk, n - first)) * record;
      std::copy_n(bytes.begin(), take, out.begin() + static_cast<std::ptrdiff_t>(first * record));
    }
    return out;
  }
  if (layout == H5D_CONTIGUOUS) {
    const haddr_t at = H5Dget_offset(d);
    if (at == HADDR_UNDEF) return out;  // never written
    std::ifstream file(path, std::ios::binary);
    if (!file.seekg(static_cast<std::streamoff>(at)) ||
        !file.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size())))
      return std::nullopt;
    return out;
  }
  return std::nullopt;
}

// Every stored chunk as the chunk index states it: inside the file and, unfiltered, exactly one chunk of
// elements. HDF5 1.10 sizes its read buffer by the index's stated size but copies a whole chunk into it, so
// a damaged size in the B-tree became a heap overflow inside H5Dread (AddressSanitizer: 376 bytes read from
// a 321-byte buffer); measured here before anything reads the dataset.
void check_stored_chunks(const std::string& path, const std::string& name, hid_t d, std::uintmax_t file_bytes) {
  Hid dcpl(H5Dget_create_plist(d), H5Pclose);
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return;
  const bool filtered = H5Pget_nfilters(dcpl.get()) != 0;
  Hid space(H5Dget_space(d), H5Sclose);
  Hid type(H5Dget_type(d), H5Tclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 8) fail(path, name + " has " + std::to_string(rank) + " dimensions (damaged file)");
  std::vector<hsize_t> chunk(static_cast<std::size_t>(rank), 0);
  if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank)
    fail(path, name + " has no valid chunk shape (damaged file)");
  // A variable-length string is stored as its length and heap address, not the pointer H5Tget_size counts.
  const bool exact = !filtered && H5Tis_variable_str(type.get()) <= 0;
  double chunk_bytes = static_cast<double>(H5Tget_size(type.get()));
  for (hsize_t c : chunk) chunk_bytes *= static_cast<double>(c);
  hsize_t count = 0;
  if (H5Dget_num_chunks(d, space.get(), &count) < 0) fail(path, name + ": its chunk index cannot be read (damaged file)");
  std::vector<hsize_t> offset(static_cast<std::size_t>(rank), 0);
  for (hsize_t i = 0; i < count; ++i) {
    unsigned filter_mask = 0;
    haddr_t at = HADDR_UNDEF;
    hsize_t bytes = 0;
    if (H5Dget_chunk_info(d, space.get(), i, offset.data(), &filter_mask, &at, &bytes) < 0)
      fail(path, name + ": its chunk index cannot be read (damaged file)");
    if (at == HADDR_UNDEF) continue;  // not allocated
    if ((exact && static_cast<double>(bytes) != chunk_bytes) ||
        static_cast<double>(at) + static_cast<double>(bytes) > static_cast<double>(file_bytes))
      fail(path, name + ": chunk " + std::to_string(i) + " is stated as " + std::to_string(bytes) + " bytes at byte " +
                     std::to_string(at) + " (a chunk is " + std::to_string(static_cast<long long>(chunk_bytes)) +
                     " bytes, the file " + std::to_string(file_bytes) + "; damaged file)");
  }
}

// The list lengths each acquisition states (records never written: none).
std::optional<std::vector<ListLengths>> stated_list_lengths(const std::string& path, hid_t f, hid_t d, hid_t ft, hsize_t n) {
  const std::size_t record = H5Tget_size(ft);
  const int ti = H5Tget_member_index(ft, "traj"), di = H5Tget_member_index(ft, "data");
  if (!eight_byte_addresses(f) || ti < 0 || di < 0) return std::nullopt;
  const std::size_t traj_at = H5Tget_member_offset(ft, static_cast<unsigned>(ti));
  const std::size_t data_at = H5Tget_member_offset(ft, static_cast<unsigned>(di));
  if (traj_at + 4 > record || data_at + 4 > record) return std::nullopt;
  const auto bytes = stored_records(path, d, record, n);
  if (!bytes) return std::nullopt;
  std::vector<ListLengths> out(n);
  for (hsize_t i = 0; i < n; ++i)
    out[i] = {stored_length(&(*bytes)[i * record + traj_at]), stored_length(&(*bytes)[i * record + data_at])};
  return out;
}

// Variable-length strings (the header, an image's attributes): HDF5 allocates the length each stored
// record states before reading it, so every stated length must fit in the file first.
void check_stated_string_lengths(const std::string& path, const std::string& dataset, hid_t f, hid_t d, hid_t type,
                                 std::uintmax_t file_bytes, hssize_t max_strings) {
  if (H5Tis_variable_str(type) <= 0 || !eight_byte_addresses(f)) return;
  Hid space(H5Dget_space(d), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 1 || n > max_strings)
    fail(path, dataset + " holds " + std::to_string(n) + " strings (allowed: 1 .. " + std::to_string(max_strings) + ")");
  const auto bytes = stored_records(path, d, k_stored_vlen_bytes, static_cast<hsize_t>(n));
  if (!bytes) return;
  for (hssize_t i = 0; i < n; ++i)
    if (const std::uint32_t length = stored_length(&(*bytes)[static_cast<std::size_t>(i) * k_stored_vlen_bytes]);
        length > file_bytes)
      fail(path, dataset + " states a string of " + std::to_string(length) + " bytes, more than the file's " +
                     std::to_string(file_bytes) + " (truncated or damaged file)");
  GlobalHeapCheck heap = global_heap(path, f, file_bytes);
  for (hssize_t i = 0; i < n; ++i)
    heap.check(dataset + " string " + std::to_string(i), &(*bytes)[static_cast<std::size_t>(i) * k_stored_vlen_bytes], 1);
}

// Every acquisition list's reference into the global heap, followed before HDF5 reads the lists.
void check_list_references(const std::string& path, const std::string& data, hid_t f, hid_t d, hid_t ft, hsize_t n,
                           std::uintmax_t file_bytes) {
  const std::size_t record = H5Tget_size(ft);
  const int ti = H5Tget_member_index(ft, "traj"), di = H5Tget_member_index(ft, "data");
  if (!eight_byte_addresses(f) || ti < 0 || di < 0) return;
  const std::size_t traj_at = H5Tget_member_offset(ft, static_cast<unsigned>(ti));
  const std::size_t data_at = H5Tget_member_offset(ft, static_cast<unsigned>(di));
  if (traj_at + k_stored_vlen_bytes > record || data_at + k_stored_vlen_bytes > record) return;
  const auto bytes = stored_records(path, d, record, n);
  if (!bytes) return;
  GlobalHeapCheck heap = global_heap(path, f, file_bytes);
  for (hsize_t i = 0; i < n; ++i) {
    heap.check(data + " acquisition " + std::to_string(i) + " traj", &(*bytes)[i * record + traj_at], sizeof(float));
    heap.check(data + " acquisition " + std::to_string(i) + " data", &(*bytes)[i * record + data_at], sizeof(float));
  }
}

// Every list read through HDF5 in blocks of records, its length checked against its header (the only check
// of the lengths where stated_list_lengths cannot read them: filtered or compact layouts).
void check_lists_by_reading(const std::string& path, const std::string& data, hid_t d, hid_t space, hsize_t n) {
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
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
    std::fill(recs.begin(), recs.end(), AcqRecord{});
    const bool read = H5Dread(d, rec_t.get(), mem.get(), space, H5P_DEFAULT, recs.data()) >= 0;
    // Reclaimed whatever happened: a read that fails part way has allocated the lists converted so far.
    std::vector<AcqRecord> got(recs.begin(), recs.begin() + static_cast<std::ptrdiff_t>(count));
    H5Dvlen_reclaim(rec_t.get(), mem.get(), H5P_DEFAULT, recs.data());
    if (!read)
      fail(path, data + " acquisitions " + std::to_string(start) + ".." + std::to_string(start + count - 1) +
                     " cannot be read (truncated file or wrong compound type)");
    for (hsize_t i = 0; i < count; ++i) check_lengths(path, start + i, got[i].head, got[i].traj.len, got[i].data.len);
  }
}

}  // namespace

void check_ismrmrd_header_integers(const std::string& path, const std::string& xml) {
  const auto check = [&](std::string_view section, const std::string& where, const std::string& tag) {
    for (const auto& [at, text] : element_texts(section, tag))
      if (!is_u16_text(text))
        fail(path, "header element " + where + "<" + tag + "> = " + quoted(text) + " (allowed: an integer 0 .. 65535)");
  };
  for (const char* tag : {"minimum", "maximum", "center", "receiverChannels"}) check(xml, "", tag);
  for (const auto& [at, block] : element_texts(xml, "matrixSize"))
    for (const char* axis : {"x", "y", "z"}) check(block, "<matrixSize>", axis);
  for (const auto& [at, block] : element_texts(xml, "accelerationFactor"))
    for (const char* step : {"kspace_encoding_step_1", "kspace_encoding_step_2"}) check(block, "<accelerationFactor>", step);
}

void check_ismrmrd_raw_layout(const std::string& path, const std::string& group) {
  Hid f = open_file(path);
  const std::string xml = "/" + group + "/xml", data = "/" + group + "/data";
  if (!link_exists(f.get(), xml)) fail(path, xml + " is missing (not an ISMRMRD raw-data file)");
  const std::uintmax_t file_bytes = std::filesystem::file_size(path);
  {
    Hid d(H5Dopen2(f.get(), xml.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ok()) fail(path, xml + " cannot be read (truncated or damaged file)");
    Hid t(H5Dget_type(d.get()), H5Tclose);
    if (H5Tget_class(t.get()) != H5T_STRING) fail(path, xml + " is not a string (wrong type)");
    // libismrmrd reads the header as a variable-length ASCII string, and HDF5 converts neither a fixed-length
    // string nor another character set into that: its read failed with HDF5's error stack as the message.
    const bool variable = H5Tis_variable_str(t.get()) > 0, ascii = H5Tget_cset(t.get()) == H5T_CSET_ASCII;
    if (!variable || !ascii)
      fail(path, xml + " is a " + (variable ? "variable" : "fixed") + "-length " + (ascii ? "ASCII" : "UTF-8") +
                     " string, which libismrmrd cannot read as the header (allowed: a variable-length ASCII string, as "
                     "ISMRMRD writers store it)");
    check_stored_chunks(path, xml, d.get(), file_bytes);
    check_stated_string_lengths(path, xml, f.get(), d.get(), t.get(), file_bytes, 16);
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

  // Every record is in the file: a damaged extent must not size what is read next.
  if (static_cast<double>(n) * H5Tget_size(ft.get()) > static_cast<double>(file_bytes))
    fail(path, data + " states " + std::to_string(n) + " acquisitions of " + std::to_string(H5Tget_size(ft.get())) +
                   " bytes, more than the file's " + std::to_string(file_bytes) + " bytes hold (truncated or damaged file)");
  // What the lists state, before anything reads them: every read allocates what they state, and their
  // values lie in the file, so together they fit in it.
  check_stored_chunks(path, data, d.get(), file_bytes);
  const std::vector<AcqHeadLengths> heads = head_lengths(path, data, d.get(), n);
  if (const auto stated = stated_list_lengths(path, f.get(), d.get(), ft.get(), n)) {
    double floats = 0;
    for (hsize_t i = 0; i < n; ++i) {
      check_lengths(path, i, heads[i], (*stated)[i].traj, (*stated)[i].data);
      floats += static_cast<double>((*stated)[i].traj) + (*stated)[i].data;
    }
    if (floats * sizeof(float) > static_cast<double>(file_bytes))
      fail(path, data + ": the acquisitions state " + std::to_string(static_cast<long long>(floats)) +
                     " floats, more than the file's " + std::to_string(file_bytes) + " bytes hold (truncated or damaged file)");
  }
  check_list_references(path, data, f.get(), d.get(), ft.get(), n, file_bytes);
  // Then every list read once: libismrmrd uses freed memory when HDF5 fails to read one part way.
  check_lists_by_reading(path, data, d.get(), space.get(), n);
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
  const std::uintmax_t file_bytes = std::filesystem::file_size(path);
  check_stored_chunks(path, header, hd.get(), file_bytes);
  check_stored_chunks(path, data, dd.get(), file_bytes);
  // libismrmrd reads <image>/attributes too, and mallocs rank x 8 bytes with the rank HDF5 reports for it:
  // -1 for an unreadable dataspace, so it wrote through the null pointer malloc returned.
  const std::string attributes = base + "/attributes";
  if (!link_exists(f.get(), attributes)) fail(path, attributes + " is missing (not an ISMRMRD image)");
  Hid ad(H5Dopen2(f.get(), attributes.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ad.ok()) fail(path, attributes + " cannot be read (truncated or damaged file)");
  check_stored_chunks(path, attributes, ad.get(), file_bytes);
  Hid ht(H5Dget_type(hd.get()), H5Tclose);
  if (H5Tget_class(ht.get()) != H5T_COMPOUND) fail(path, header + " is not a compound dataset (wrong type)");
  member_type(path, header, ht.get(), "matrix_size", H5T_ARRAY);
  member_type(path, header, ht.get(), "channels", H5T_INTEGER);

  Hid hs(H5Dget_space(hd.get()), H5Sclose);
  if (H5Sget_simple_extent_ndims(hs.get()) != 1) fail(path, header + " is not one-dimensional");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(hs.get(), &n, nullptr);
  if (n == 0 || n > 1000000) fail(path, header + " holds " + std::to_string(n) + " image headers (allowed: 1 .. 1000000)");
  {
    Hid as(H5Dget_space(ad.get()), H5Sclose);
    hsize_t na = 0;
    if (H5Sget_simple_extent_ndims(as.get()) != 1 || H5Sget_simple_extent_dims(as.get(), &na, nullptr) != 1 || na != n)
      fail(path, attributes + " is not one string per image (" + header + " holds " + std::to_string(n) + ")");
    Hid at(H5Dget_type(ad.get()), H5Tclose);
    if (H5Tget_class(at.get()) != H5T_STRING) fail(path, attributes + " is not a string (wrong type)");
    check_stated_string_lengths(path, attributes, f.get(), ad.get(), at.get(), file_bytes, static_cast<hssize_t>(n));
  }

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
