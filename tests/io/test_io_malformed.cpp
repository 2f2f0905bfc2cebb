// Malformed inputs: every one is a one-line InputError naming the file, never a crash and never an
// allocation of an absurd size. Files are damaged here on purpose (HDF5 API, byte edits), or kept as the
// fuzzers found them (tests/data/fuzz_findings/).
#include <QTest>

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

#include "files.hpp"
#include "ismrmrd_header.hpp"
#include "stderr_capture.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"

using namespace mrwb;

namespace {

// An 8x4 image of ones as libismrmrd writes it.
void write_small_image(const std::string& file) {
  Image2D img;
  img.nx = 8;
  img.ny = 4;
  img.data.assign(32, {1.f, 0.f});
  write_image_ismrmrd(file, img);
}

RawData small_raw() {
  RawData r;
  r.nx = 16;
  r.ny = 8;
  r.ncoils = 2;
  r.fov_x_m = r.fov_y_m = 0.2;
  r.kspace.resize(16 * 8 * 2);
  for (std::size_t i = 0; i < r.kspace.size(); ++i) r.kspace[i] = {1.f * i, 0.f};
  return r;
}

std::string header_with_matrix(int x, int y, int z, int coils) { return mrwb_test::cartesian_header_xml(x, y, z, coils); }

// A Cartesian header with encoding limits: kspace_encoding_step_1 / _2 up to k1_max / k2_max.
std::string header_with_limits(int x, int y, int z, int coils, int k1_max, int k2_max) {
  ISMRMRD::IsmrmrdHeader h;
  ISMRMRD::deserialize(header_with_matrix(x, y, z, coils).c_str(), h);
  h.encoding[0].encodingLimits.kspace_encoding_step_1 = ISMRMRD::Limit(0, static_cast<unsigned short>(k1_max), 0);
  h.encoding[0].encodingLimits.kspace_encoding_step_2 = ISMRMRD::Limit(0, static_cast<unsigned short>(k2_max), 0);
  std::ostringstream s;
  ISMRMRD::serialize(h, s);
  return s.str();
}

// One acquisition of `samples` x `channels` at the given line, partition and slice.
void write_one_acquisition(const std::string& path, const std::string& xml, int samples, int channels, int line,
                           int partition, int slice) {
  ISMRMRD::Dataset d(path.c_str(), "dataset", true);
  d.writeHeader(xml);
  ISMRMRD::Acquisition acq(static_cast<uint16_t>(samples), static_cast<uint16_t>(channels));
  acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(line);
  acq.idx().kspace_encode_step_2 = static_cast<uint16_t>(partition);
  acq.idx().slice = static_cast<uint16_t>(slice);
  d.appendAcquisition(acq);
}

// Full readouts of `samples` at lines 0 .. lines - 1, then one readout of `last_samples` with its centre at
// `last_centre` on line `last_line` (one channel).
void write_lines(const std::string& path, const std::string& xml, int samples, int lines, int last_samples,
                 int last_centre, int last_line) {
  ISMRMRD::Dataset d(path.c_str(), "dataset", true);
  d.writeHeader(xml);
  for (int l = 0; l <= lines; ++l) {
    const bool last = l == lines;
    ISMRMRD::Acquisition acq(static_cast<uint16_t>(last ? last_samples : samples), 1);
    acq.center_sample() = static_cast<uint16_t>(last ? last_centre : samples / 2);
    acq.idx().kspace_encode_step_1 = static_cast<uint16_t>(last ? last_line : l);
    for (int s = 0; s < acq.number_of_samples(); ++s) acq.data(static_cast<uint16_t>(s), 0) = {1.f, 0.f};
    d.appendAcquisition(acq);
  }
}

// A file kept under tests/data/fuzz_findings/ (the inputs the fuzzers found; README.md there).
std::string finding(const char* name) {
  const char* src = std::getenv("MRWB_SOURCE_DIR");
  return (src ? std::string(src) : std::string(".")) + "/tests/data/fuzz_findings/" + name;
}

}  // namespace

class TestIoMalformed : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* n) const { return dir_.filePath(n).toStdString(); }

  // The call throws InputError whose one-line message names the file and contains `expected`.
  template <typename F>
  void expect_input_error(F&& f, const std::string& file, const char* expected) {
    try {
      f();
      QFAIL(qPrintable(QString("no error for ") + expected));
    } catch (const InputError& e) {
      const QString msg = e.what();
      QVERIFY2(msg.contains(QString::fromStdString(file)), qPrintable(msg));
      QVERIFY2(msg.contains(expected), qPrintable(msg));
      QVERIFY2(!msg.contains('\n'), qPrintable(msg));
    }
  }

 private slots:
  void cflSizeDisagreesWithHeader() {
    CflArray a;
    a.dims = {4, 4};
    a.data.assign(16, {1.f, 2.f});
    write_cfl(path("a"), a);
    { std::ofstream(path("a.cfl"), std::ios::app | std::ios::binary) << "xx"; }
    expect_input_error([&] { read_cfl(path("a")); }, path("a.cfl"), "holds 130 bytes");
    { std::ofstream(path("b.cfl"), std::ios::binary) << std::string(8, '\0'); }
    { std::ofstream(path("b.hdr")) << "# Dimensions\n1 1 1\n"; }
    QCOMPARE(read_cfl(path("b")).size(), std::size_t{1});
    std::filesystem::resize_file(path("b.cfl"), 4);
    expect_input_error([&] { read_cfl(path("b")); }, path("b.cfl"), "holds 4 bytes");
  }
  void cflAbsurdOrGarbageDimensions() {
    { std::ofstream(path("huge.cfl"), std::ios::binary) << std::string(8, '\0'); }
    { std::ofstream(path("huge.hdr")) << "# Dimensions\n100000 100000 100000 1\n"; }
    expect_input_error([&] { read_cfl(path("huge")); }, path("huge.hdr"), "more than 2^28");
    { std::ofstream(path("neg.hdr")) << "# Dimensions\n4 -3\n"; }
    { std::ofstream(path("neg.cfl")) << ""; }
    expect_input_error([&] { read_cfl(path("neg")); }, path("neg.hdr"), "allowed: integers");
    { std::ofstream(path("none.hdr")) << "hello\n"; }
    expect_input_error([&] { read_cfl(path("none")); }, path("none.hdr"), "# Dimensions");
    expect_input_error([&] { read_cfl(path("missing")); }, path("missing.hdr"), "no such file");
  }
  void hdf5WrongCompoundType() {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const std::string xml = header_with_matrix(16, 8, 1, 2);
    {
      hid_t f = H5Fcreate(path("wrong.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      hid_t g = H5Gcreate2(f, "dataset", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      hid_t st = H5Tcopy(H5T_C_S1);
      H5Tset_size(st, H5T_VARIABLE);
      hid_t sp = H5Screate(H5S_SCALAR);
      hid_t dx = H5Dcreate2(g, "xml", st, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      const char* p = xml.c_str();
      H5Dwrite(dx, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p);
      // "data" with a compound that is not ISMRMRD's: head is an int, no traj/data lists.
      struct Bad {
        int head;
        double other;
      } rec[2] = {{1, 2.0}, {3, 4.0}};
      hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(Bad));
      H5Tinsert(ct, "head", HOFFSET(Bad, head), H5T_NATIVE_INT);
      H5Tinsert(ct, "other", HOFFSET(Bad, other), H5T_NATIVE_DOUBLE);
      hsize_t n = 2;
      hid_t sp2 = H5Screate_simple(1, &n, nullptr);
      hid_t dd = H5Dcreate2(g, "data", ct, sp2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(dd, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, rec);
      for (hid_t d : {dx, dd}) H5Dclose(d);
      for (hid_t s : {sp, sp2}) H5Sclose(s);
      H5Tclose(st);
      H5Tclose(ct);
      H5Gclose(g);
      H5Fclose(f);
    }
    expect_input_error([&] { read_raw_ismrmrd(path("wrong.h5")); }, path("wrong.h5"), "wrong type");
    // xml that is not a string.
    {
      hid_t f = H5Fcreate(path("xmlint.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
      hid_t g = H5Gcreate2(f, "dataset", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      hid_t sp = H5Screate(H5S_SCALAR);
      hid_t d = H5Dcreate2(g, "xml", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      const int v = 7;
      H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
      H5Dclose(d);
      H5Sclose(sp);
      H5Gclose(g);
      H5Fclose(f);
    }
    expect_input_error([&] { read_raw_ismrmrd(path("xmlint.h5")); }, path("xmlint.h5"), "is not a string");
  }
  void acquisitionHeaderDisagreesWithItsData() {
    write_raw_ismrmrd(path("mis.h5"), small_raw());
    // Patch acquisition 3's number_of_samples in place (HDF5 writes only the named member).
    hid_t f = H5Fopen(path("mis.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/dataset/data", H5P_DEFAULT);
    hid_t head = H5Tcreate(H5T_COMPOUND, sizeof(std::uint16_t));
    H5Tinsert(head, "number_of_samples", 0, H5T_NATIVE_UINT16);
    hid_t rec = H5Tcreate(H5T_COMPOUND, sizeof(std::uint16_t));
    H5Tinsert(rec, "head", 0, head);
    hid_t fs = H5Dget_space(d);
    hsize_t start = 3, count = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
    hid_t ms = H5Screate_simple(1, &count, nullptr);
    const std::uint16_t big = 4096;
    QVERIFY(H5Dwrite(d, rec, ms, fs, H5P_DEFAULT, &big) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(rec);
    H5Tclose(head);
    H5Dclose(d);
    H5Fclose(f);
    expect_input_error([&] { read_raw_ismrmrd(path("mis.h5")); }, path("mis.h5"), "acquisition 3: header says 4096 samples");
  }
  void absurdOrUnsupportedEncodedMatrix() {
    for (const auto& [name, x, y, z, msg] :
         std::vector<std::tuple<const char*, int, int, int, const char*>>{{"huge.h5", 65535, 65535, 1, "too large"},
                                                                          {"threed.h5", 1024, 1024, 256, "too large"}}) {
      {
        ISMRMRD::Dataset d(path(name).c_str(), "dataset", true);
        d.writeHeader(header_with_matrix(x, y, z, 64));
        ISMRMRD::Acquisition acq(4, 64);
        d.appendAcquisition(acq);
      }
      const std::string file = path(name);  // a lambda may not capture a structured binding before clang 16
      expect_input_error([&] { read_raw_ismrmrd(file); }, file, msg);
    }
    // Channels in the data disagree with the header's receiverChannels.
    {
      ISMRMRD::Dataset d(path("chan.h5").c_str(), "dataset", true);
      d.writeHeader(header_with_matrix(16, 8, 1, 8));
      ISMRMRD::Acquisition acq(16, 4);
      d.appendAcquisition(acq);
    }
    expect_input_error([&] { read_raw_ismrmrd(path("chan.h5")); }, path("chan.h5"), "receiverChannels says 8");
  }
  void imageHeaderDisagreesWithItsData() {
    write_small_image(path("img.h5"));
    hid_t f = H5Fopen(path("img.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/dataset/image_0/header", H5P_DEFAULT);
    const hsize_t three = 3;
    hid_t arr = H5Tarray_create2(H5T_NATIVE_UINT16, 1, &three);
    hid_t rec = H5Tcreate(H5T_COMPOUND, 6);
    H5Tinsert(rec, "matrix_size", 0, arr);
    const std::uint16_t m[3] = {200, 200, 1};
    QVERIFY(H5Dwrite(d, rec, H5S_ALL, H5S_ALL, H5P_DEFAULT, m) >= 0);
    H5Tclose(rec);
    H5Tclose(arr);
    H5Dclose(d);
    H5Fclose(f);
    expect_input_error([&] { read_image(path("img.h5")); }, path("img.h5"), "header matrix_size 200x200x1");
  }
  void niftiMalformed() {
    Image2D img;
    img.nx = 4;
    img.ny = 4;
    img.data.assign(16, {2.f, 0.f});
    write_nifti(path("ok.nii"), img);
    const std::string bytes = mrwb::test::read_file(path("ok.nii"));
    { std::ofstream(path("short.nii"), std::ios::binary) << bytes.substr(0, bytes.size() - 10); }
    expect_input_error([&] { read_nifti(path("short.nii")); }, path("short.nii"), "header needs");
    std::string huge = bytes;
    const std::int16_t big = 30000;
    std::memcpy(&huge[42], &big, 2);  // dim[1]
    std::memcpy(&huge[44], &big, 2);  // dim[2]
    { std::ofstream(path("huge.nii"), std::ios::binary) << huge; }
    expect_input_error([&] { read_nifti(path("huge.nii")); }, path("huge.nii"), "voxels");
    std::string bad = bytes;
    bad[0] = 7;
    { std::ofstream(path("bad.nii"), std::ios::binary) << bad; }
    expect_input_error([&] { read_nifti(path("bad.nii")); }, path("bad.nii"), "sizeof_hdr");
    { std::ofstream(path("tiny.nii"), std::ios::binary) << "nifti?"; }
    expect_input_error([&] { read_nifti(path("tiny.nii")); }, path("tiny.nii"), "shorter than");
  }
  void pngReaderRefusesJunk() {
    { std::ofstream(path("junk.png"), std::ios::binary) << "not a png at all"; }
    expect_input_error([&] { read_png(path("junk.png")); }, path("junk.png"), "not a PNG");
  }

  // --- found by the fuzzers (fuzz/, docs/fuzzing.md) ---
  // A text chunk stating 1.4 GB in a 300-byte file: libpng allocated (and ASan filled) the 1.4 GB before it
  // found the file short, 16 s per read. Chunk lengths are now held to the file before libpng runs.
  void pngChunkLongerThanTheFile() {
    write_png_magnitude(path("ok.png"), std::vector<float>(16 * 16, 1.f), 16, 16);
    const std::string ok = mrwb::test::read_file(path("ok.png"));
    std::string bad = ok.substr(0, 33);  // signature and IHDR
    bad += std::string("\x56\x00\x00\x17tEXtmrwb:window_lo", 22) + ok.substr(33, 200);
    { std::ofstream(path("long_text.png"), std::ios::binary) << bad; }
    expect_input_error([&] { read_png(path("long_text.png")); }, path("long_text.png"),
                       "chunk tEXt at byte 33 states 1442840599 bytes");
    // Cut short inside the image data.
    { std::ofstream(path("cut.png"), std::ios::binary) << ok.substr(0, ok.size() - 20); }
    expect_input_error([&] { read_png(path("cut.png")); }, path("cut.png"), "damaged PNG file");
  }
  // libpng's warnings (here: a text chunk whose CRC is wrong, which it drops) went to stderr beside ours.
  void pngWarningsStayOffStderr() {
    write_png_magnitude(path("crc.png"), std::vector<float>(16 * 16, 1.f), 16, 16);
    std::string bytes = mrwb::test::read_file(path("crc.png"));
    const std::size_t text = bytes.find("tEXt");
    QVERIFY(text != std::string::npos);
    const std::size_t length = static_cast<unsigned char>(bytes[text - 1]);
    bytes[text + 4 + length] ^= 0x5a;  // first CRC byte of the first text chunk
    { std::ofstream(path("crc.png"), std::ios::binary) << bytes; }
    PngPixels p;
    QCOMPARE(mrwb::test::stderr_of([&] { p = read_png(path("crc.png")); }), std::string());
    QCOMPARE(p.width, 16);
  }
  // A damaged header dataset: libismrmrd's default handler printed HDF5's error stack (13 lines) on stderr
  // and its exception text, lines and all, went into the message. (The layout check now refuses this one
  // before libismrmrd reads it; libismrmrd's handler stays silenced for what the checks do not see.)
  void ismrmrdDamagedFileIsOneQuietLine() {
    const std::string file = finding("ismrmrd_header_unreadable.h5");
    const std::string err = mrwb::test::stderr_of([&] {
      expect_input_error([&] { read_raw_ismrmrd(file); }, file, "/dataset/xml holds 8449 strings (allowed: 1 .. 16)");
    });
    QCOMPARE(err, std::string());
  }
  // Acquisition lists that HDF5 cannot read part way (bytes inserted into the heap): the lists of the
  // records converted before the failure leaked (LeakSanitizer, in the sanitize build).
  void ismrmrdAcquisitionsUnreadablePartWay() {
    const std::string file = finding("ismrmrd_acquisitions_unreadable_part_way.h5");
    expect_input_error([&] { read_raw_ismrmrd(file); }, file, "cannot be read");
  }
  // A list whose stored length says 1162346496 floats (4.6 GB; found by fuzz/fuzz_ismrmrd_file): HDF5
  // allocates a variable-length value's stated length before it reads it. Refused from the stored lengths, before any read:
  // against the header's sizes (the finding), and against the file's size when the header agrees.
  // The chunk index states a chunk of 321 bytes where a chunk of records is 376: HDF5 1.10 read past its
  // buffer inside H5Dread (AddressSanitizer); refused before any read.
  void ismrmrdChunkIndexStatesAShortChunk() {
    const std::string found = finding("ismrmrd_chunk_stated_short.h5");
    expect_input_error([&] { read_raw_ismrmrd(found); }, found, "/dataset/data: chunk 0 is stated as 321 bytes");
  }

  // The chunk index of a 25 kB file misplaces two of its five chunks, and the stored lists state 3.4e9
  // floats: our stored-bytes check gave way to HDF5's own read, which allocated 13.7 GB (20 s). Refused from
  // the stored chunks.
  void ismrmrdChunkIndexDamaged() {
    const std::string found = finding("ismrmrd_chunk_index_damaged_13.7GB.h5");
    expect_input_error([&] { read_raw_ismrmrd(found); }, found, "/dataset/data: the chunk at record 3 cannot be read");
  }

  // A group's local heap states 2^48 bytes: HDF5 asks malloc for them before reading the heap. glibc
  // refuses such a size and HDF5 fails cleanly (ASan runs with allocator_may_return_null=1 to match).
  void hdf5HeapLargerThanAnyMachine() {
    const std::string found = finding("hdf5_local_heap_states_2e48_bytes.h5");
    expect_input_error([&] { read_raw_ismrmrd(found); }, found, "/dataset/xml");
  }

  // An image whose attributes dataset has no readable dataspace: libismrmrd mallocs rank x 8 bytes with
  // rank -1 and wrote through the null pointer (a crash, also without sanitizers); refused before it reads.
  void ismrmrdImageAttributesUnreadable() {
    const std::string found = finding("ismrmrd_image_attributes_unreadable.h5");
    expect_input_error([&] { read_image(found); }, found, "/dataset/image_0/attributes cannot be read");
  }

  // An image's attributes string stating 2^31 - 1 bytes: libismrmrd reads it as a variable-length string,
  // for which HDF5 allocates the stated length first; refused from the stored record, before any read.
  void ismrmrdImageAttributesStateMoreThanTheFile() {
    write_small_image(path("attr.h5"));
    hid_t f = H5Fopen(path("attr.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/dataset/image_0/attributes", H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(d);
    const bool chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
    haddr_t at = HADDR_UNDEF;
    if (chunked) {
      const hsize_t first = 0;
      hsize_t bytes = 0;
      unsigned filters = 0;
      H5Dget_chunk_info_by_coord(d, &first, &filters, &at, &bytes);
    } else {
      at = H5Dget_offset(d);
    }
    H5Pclose(dcpl);
    H5Dclose(d);
    H5Fclose(f);
    QVERIFY2(at != HADDR_UNDEF, "libismrmrd wrote no attributes record");
    {
      std::fstream file(path("attr.h5"), std::ios::in | std::ios::out | std::ios::binary);
      const unsigned char length[4] = {0xff, 0xff, 0xff, 0x7f};  // 2147483647, little-endian
      file.seekp(static_cast<std::streamoff>(at));
      file.write(reinterpret_cast<const char*>(length), 4);
    }
    expect_input_error([&] { read_image(path("attr.h5")); }, path("attr.h5"),
                       "/dataset/image_0/attributes states a string of 2147483647 bytes");
  }

  // Variable-length values refer to objects of the global heap, which HDF5 1.10.8 follows unchecked (found
  // by fuzz/fuzz_ismrmrd_file): an object index the collection lacks crashed H5HG_read (SEGV, without
  // sanitizers too), and a free-space object of 0 bytes made its parser loop forever. Both refused first.
  void hdf5GlobalHeapReferences() {
    const std::string missing = finding("ismrmrd_heap_object_index_missing.h5");
    expect_input_error([&] { read_raw_ismrmrd(missing); }, missing,
                       "/dataset/data acquisition 4 data refers to object 64521 of the global heap collection at byte 5824, "
                       "which holds no such object");
    const std::string loops = finding("ismrmrd_heap_free_space_0_bytes.h5");
    expect_input_error([&] { read_raw_ismrmrd(loops); }, loops, "/dataset/xml string 0 refers to the global heap at byte 5824");
    // A valid file passes the same walk: every list of a written file found in its collection.
    write_raw_ismrmrd(path("heap_ok.h5"), small_raw());
    read_raw_ismrmrd(path("heap_ok.h5"));
  }

  // Files on which HDF5 1.10.8 itself crashes past every layout check (found by fuzz/fuzz_ismrmrd_file; SIGSEGV
  // in `mrwb recon` and `mrwb compare`): a group's local heap read from a null buffer, a compound conversion
  // writing through freed memory in libismrmrd's read. Read first in a child process (hdf5_isolation.hpp):
  // refused in one line, and this process lives on.
  void hdf5CrashesAreRefused() {
    for (const char* name : {"hdf5_local_heap_read_crash.h5", "hdf5_compound_conversion_crash.h5"}) {
      const std::string file = finding(name);
      const std::string err = mrwb::test::stderr_of([&] {
        expect_input_error([&] { read_raw_ismrmrd(file); }, file, "the HDF5 library failed reading it");
      });
      QCOMPARE(err, std::string());
    }
    const std::string file = finding("hdf5_local_heap_read_crash.h5");
    expect_input_error([&] { read_image(file); }, file, "the HDF5 library failed reading it");
  }

  void ismrmrdListLengthBeyondTheFile() {
    const std::string found = finding("ismrmrd_list_states_1.2e9_floats.h5");
    expect_input_error([&] { read_raw_ismrmrd(found); }, found, "data holds 1162346496 and 0 floats");
    // The header string likewise (libismrmrd's readHeader).
    const std::string xml = finding("ismrmrd_header_states_1.7e9_bytes.h5");
    expect_input_error([&] { read_raw_ismrmrd(xml); }, xml, "/dataset/xml states a string of 1697200701 bytes");
    write_raw_ismrmrd(path("long.h5"), small_raw());
    hid_t f = H5Fopen(path("long.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/dataset/data", H5P_DEFAULT);
    // Acquisition 3's header: 65535 samples x 8868 channels, 2 x 65535 x 8868 = 1162328760 floats.
    struct Sizes {
      std::uint16_t samples, channels;
    };
    hid_t head = H5Tcreate(H5T_COMPOUND, sizeof(Sizes));
    H5Tinsert(head, "number_of_samples", HOFFSET(Sizes, samples), H5T_NATIVE_UINT16);
    H5Tinsert(head, "active_channels", HOFFSET(Sizes, channels), H5T_NATIVE_UINT16);
    hid_t rec = H5Tcreate(H5T_COMPOUND, sizeof(Sizes));
    H5Tinsert(rec, "head", 0, head);
    hid_t fs = H5Dget_space(d);
    hsize_t start = 3, count = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
    hid_t ms = H5Screate_simple(1, &count, nullptr);
    const Sizes big{65535, 8868};
    QVERIFY(H5Dwrite(d, rec, ms, fs, H5P_DEFAULT, &big) >= 0);
    // Its data list's stored length (the first 4 bytes of the stored list), in the chunk of record 3.
    hid_t type = H5Dget_type(d);
    const std::size_t data_at = H5Tget_member_offset(type, static_cast<unsigned>(H5Tget_member_index(type, "data")));
    haddr_t chunk_at = HADDR_UNDEF;
    hsize_t chunk_bytes = 0;
    unsigned filters = 0;
    QVERIFY(H5Dget_chunk_info_by_coord(d, &start, &filters, &chunk_at, &chunk_bytes) >= 0);
    for (hid_t t : {type, rec, head}) H5Tclose(t);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
    QVERIFY(chunk_at != HADDR_UNDEF);
    {
      std::fstream file(path("long.h5"), std::ios::in | std::ios::out | std::ios::binary);
      const unsigned char length[4] = {0xb8, 0xba, 0x47, 0x45};  // 1162328760, little-endian
      file.seekp(static_cast<std::streamoff>(chunk_at + data_at));
      file.write(reinterpret_cast<const char*>(length), 4);
    }
    expect_input_error([&] { read_raw_ismrmrd(path("long.h5")); }, path("long.h5"), "floats, more than the file's");
  }
  // A header whose sizes are out of all proportion to the data: k-space was allocated from the header
  // (6334 slices of 32x16 for 256 samples; 65536 lines), and five 16-bit sizes whose product wraps size_t
  // to 0 passed the size check, then the acquisition was written past the empty k-space.
  void ismrmrdGridOutOfProportionToTheData() {
    const auto read_every_slice = [](const std::string& p) { read_raw_ismrmrd(p, RawSelection{-1, 0, 0}); };  // recon's default
    write_one_acquisition(path("slices.h5"), header_with_matrix(32, 16, 1, 2), 32, 2, 0, 0, 6333);
    expect_input_error([&] { read_every_slice(path("slices.h5")); }, path("slices.h5"), "6334 slice(s)");
    write_one_acquisition(path("lines.h5"), header_with_limits(63, 16, 2, 2, 65535, 1), 63, 2, 0, 0, 0);
    expect_input_error([&] { read_every_slice(path("lines.h5")); }, path("lines.h5"), "63x65536x2");
    write_one_acquisition(path("wrap.h5"), header_with_limits(16384, 16, 1, 4, 65535, 65535), 4, 4, 65535, 65535, 65535);
    expect_input_error([&] { read_every_slice(path("wrap.h5")); }, path("wrap.h5"), "is too large");
    // No channels and no samples (found by fuzz/fuzz_ismrmrd): the product was 0, so the per-line tables of
    // 12289 lines x 29185 slices (1.4 GB) were allocated unchecked.
    write_one_acquisition(path("empty.h5"), header_with_limits(32, 16, 1, 0, 12288, 0), 0, 0, 12288, 0, 29184);
    expect_input_error([&] { read_every_slice(path("empty.h5")); }, path("empty.h5"), "32x12289x1 in 29185 slice(s)");
    for (const char* f : {"slices.h5", "lines.h5", "wrap.h5", "empty.h5"})
      expect_input_error([&] { read_every_slice(path(f)); }, path(f), "allowed: at most 64 x the acquired samples");
  }
  // A line beyond the encoded matrix grew the grid (32 x 33), and a readout shorter than the encoded one (16
  // or 0 of 32 samples) was placed as an asymmetric echo although its header did not say it was one.
  void ismrmrdAcquisitionsOutsideTheEncodedMatrix() {
    const std::string xml = header_with_matrix(32, 32, 1, 1);
    write_lines(path("ky.h5"), xml, 32, 32, 32, 16, 32);
    expect_input_error([&] { read_raw_ismrmrd(path("ky.h5")); }, path("ky.h5"),
                       "acquisition 32 has kspace_encode_step_1 = 32 (allowed by the header's encodedSpace.matrixSize.y / "
                       "encodingLimits: 0 .. 31)");
    // The header's limits may state more lines than the matrix; up to there a line is read.
    const std::string limits = header_with_limits(32, 32, 1, 1, 32, 0);
    write_lines(path("ky_limits.h5"), limits, 32, 32, 32, 16, 32);
    QCOMPARE(read_raw_ismrmrd(path("ky_limits.h5")).ny, 33);
    write_lines(path("ky_beyond_limits.h5"), limits, 32, 32, 32, 16, 33);
    expect_input_error([&] { read_raw_ismrmrd(path("ky_beyond_limits.h5")); }, path("ky_beyond_limits.h5"),
                       "kspace_encode_step_1 = 33 (allowed by the header's encodedSpace.matrixSize.y / encodingLimits: 0 .. 32)");
    // Short readouts: no centre (0), the centre at or past the readout's end, the centre in its middle (a
    // symmetric readout of a smaller matrix), none at all.
    for (const auto& [file, samples, centre] : std::vector<std::tuple<const char*, int, int>>{
             {"short_half.h5", 16, 0}, {"short_past.h5", 16, 16}, {"short_middle.h5", 16, 8}, {"short_empty.h5", 0, 0}}) {
      const std::string p = path(file);
      write_lines(p, xml, 32, 31, samples, centre, 31);
      expect_input_error([&] { read_raw_ismrmrd(p); }, p,
                         ("acquisition 31 has number_of_samples = " + std::to_string(samples) + " with center_sample " +
                          std::to_string(centre) + " (allowed: 32, the encoded readout, or fewer with center_sample")
                             .c_str());
    }
    // An asymmetric echo whose centre the readout states is read, its samples placed around the encoded centre.
    write_lines(path("short_asym.h5"), xml, 32, 31, 20, 4, 31);
    const RawData r = read_raw_ismrmrd(path("short_asym.h5"));
    QCOMPARE(r.nx, 32);
    QCOMPARE(r.ny, 32);
    QCOMPARE(r.at(0, 31, 11), std::complex<float>(0.f, 0.f));
    QCOMPARE(r.at(0, 31, 12), std::complex<float>(1.f, 0.f));
    QCOMPARE(r.at(0, 31, 31), std::complex<float>(1.f, 0.f));
  }
  // libismrmrd reads a header's 16-bit integers modulo 2^16 and stops at the first non-digit: a limit of
  // 4444...415 (found by fuzz/fuzz_ismrmrd_header) became 65535, a matrix of 100000 became 34464.
  void ismrmrdHeaderIntegersAreNotWrapped() {
    const std::string xml = header_with_limits(16, 8, 1, 2, 7, 0);
    const auto with = [&](const std::string& from, const std::string& to) {
      std::string x = xml;
      const std::size_t at = x.find(from);
      return at == std::string::npos ? std::string() : x.replace(at, from.size(), to);
    };
    for (const auto& [file, edited, expected] : std::vector<std::tuple<const char*, std::string, const char*>>{
             {"wrap.h5", with("<x>16</x>", "<x>100000</x>"), "header element <matrixSize><x> = '100000'"},
             {"minus.h5", with("<maximum>7</maximum>", "<maximum>-1</maximum>"), "header element <maximum> = '-1'"},
             {"junk.h5", with("<maximum>7</maximum>", "<maximum>7abc</maximum>"), "header element <maximum> = '7abc'"},
             {"coils.h5", with("<receiverChannels>2</receiverChannels>", "<receiverChannels>1e3</receiverChannels>"),
              "header element <receiverChannels> = '1e3'"}}) {
      QVERIFY2(!edited.empty(), file);
      const std::string p = path(file);
      write_one_acquisition(p, edited, 16, 2, 0, 0, 0);
      expect_input_error([&] { read_raw_ismrmrd(p); }, p, expected);
      expect_input_error([&] { read_raw_ismrmrd(p); }, p, "(allowed: an integer 0 .. 65535)");
    }
  }
};

QTEST_GUILESS_MAIN(TestIoMalformed)
#include "test_io_malformed.moc"
