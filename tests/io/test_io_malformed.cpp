// Malformed inputs: every one is a one-line InputError naming the file, never a crash and never an
// allocation of an absurd size. Files are damaged here on purpose (HDF5 API, byte edits).
#include <QtTest>

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <fstream>
#include <sstream>

#include "files.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"

using namespace mrwb;

namespace {

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

std::string header_with_matrix(int x, int y, int z, int coils) {
  ISMRMRD::IsmrmrdHeader h;
  h.version = ISMRMRD_XMLHDR_VERSION;
  h.experimentalConditions.H1resonanceFrequency_Hz = 63500000;
  ISMRMRD::AcquisitionSystemInformation sys;
  sys.receiverChannels = static_cast<unsigned short>(coils);
  h.acquisitionSystemInformation = sys;
  ISMRMRD::Encoding e;
  e.encodedSpace.matrixSize = ISMRMRD::MatrixSize(static_cast<unsigned short>(x), static_cast<unsigned short>(y),
                                                  static_cast<unsigned short>(z));
  e.encodedSpace.fieldOfView_mm = {200, 200, 5};
  e.reconSpace = e.encodedSpace;
  e.trajectory = ISMRMRD::TrajectoryType::CARTESIAN;
  h.encoding.push_back(e);
  std::ostringstream s;
  ISMRMRD::serialize(h, s);
  return s.str();
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
      expect_input_error([&] { read_raw_ismrmrd(path(name)); }, path(name), msg);
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
    Image2D img;
    img.nx = 8;
    img.ny = 4;
    img.data.assign(32, {1.f, 0.f});
    write_image_ismrmrd(path("img.h5"), img);
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
};

QTEST_GUILESS_MAIN(TestIoMalformed)
#include "test_io_malformed.moc"
