// Multi-slice / 3-D raw data: the 5-index layout and its helpers (extract one slice, kz inverse DFT to
// hybrid space), the ISMRMRD round trip of slices and partitions, and malformed slice / partition indices.
#include <QFile>
#include <QTest>

#include <ismrmrd/dataset.h>
#include <ismrmrd/version.h>
#include <ismrmrd/xml.h>

#include <cmath>
#include <complex>
#include <random>
#include <sstream>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/recon_fft.hpp"

using namespace mrwb;
using cf = std::complex<float>;

namespace {

RawData random_volume_raw(int coils, int slices, int partitions, int nx, int ny, unsigned seed) {
  RawData r;
  r.nx = nx;
  r.ny = ny;
  r.ncoils = coils;
  r.slices = slices;
  r.partitions = partitions;
  r.fov_x_m = r.fov_y_m = 0.128;
  r.fov_z_m = partitions > 1 ? 0.03 : 0.004;
  r.slice_spacing_m = slices > 1 ? 0.006 : 0;
  r.TR_s = 0.02;
  r.TE_s = 0.005;
  r.flip_angle_deg = 25;
  r.dwell_s = 1e-5;
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.f, 1.f);
  r.kspace.resize(r.kspace_size());
  for (auto& v : r.kspace) v = {n(rng), n(rng)};
  return r;
}

}  // namespace

class TestMultisliceIo : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

 private slots:
  void indexMatches2dLayoutAndExtractsOneSlice() {
    RawData r = random_volume_raw(2, 3, 4, 6, 5, 1);
    // The 5-index form walks the buffer in [coil][slice][partition][line][sample] order without gaps.
    std::size_t expect = 0;
    for (int c = 0; c < 2; ++c)
      for (int s = 0; s < 3; ++s)
        for (int p = 0; p < 4; ++p)
          for (int l = 0; l < 5; ++l)
            for (int x = 0; x < 6; ++x) QCOMPARE(r.index(c, s, p, l, x), expect++);
    QCOMPARE(expect, r.kspace.size());
    const RawData one = extract_slice(r, 2, 1);
    QCOMPARE(one.slices, 1);
    QCOMPARE(one.partitions, 1);
    QCOMPARE(one.kspace.size(), std::size_t{2 * 5 * 6});
    for (int c = 0; c < 2; ++c)
      for (int l = 0; l < 5; ++l)
        for (int x = 0; x < 6; ++x) QCOMPARE(one.at(c, l, x), r.kspace[r.index(c, 2, 1, l, x)]);
    // With one slice and one partition the two index forms agree.
    RawData flat = one;
    QCOMPARE(flat.index(1, 0, 0, 3, 2), flat.index(1, 3, 2));
    QVERIFY_THROWS_EXCEPTION(InputError, extract_slice(r, 3, 0));
  }

  void hybridSpaceInvertsTheKzEncoding() {
    // k(kz) = Σ_z m(z)·exp(−2πi·kz·z/P), kz = p − P/2 and z = i − P/2 (the in-plane convention): the kz
    // inverse DFT must give back m(z) in partition i, for even and odd P.
    for (int P : {5, 8}) {
      RawData m = random_volume_raw(2, 1, P, 4, 3, 2u + P);
      RawData k = m;
      const std::size_t stride = static_cast<std::size_t>(m.ny) * m.nx;
      for (int c = 0; c < m.ncoils; ++c)
        for (std::size_t i = 0; i < stride; ++i)
          for (int p = 0; p < P; ++p) {
            std::complex<double> acc = 0;
            for (int z = 0; z < P; ++z)
              acc += std::complex<double>(m.kspace[m.index(c, 0, z, 0, 0) + i]) *
                     std::polar(1.0, -2 * M_PI * (p - P / 2) * (z - P / 2) / P);
            k.kspace[k.index(c, 0, p, 0, 0) + i] = cf(acc);
          }
      const RawData h = hybrid_space(k);
      double err = 0;
      for (std::size_t i = 0; i < h.kspace.size(); ++i) err = std::max(err, double(std::abs(h.kspace[i] - m.kspace[i])));
      QVERIFY2(err < 1e-4, qPrintable(QString("P = %1: max error %2").arg(P).arg(err)));
    }
    RawData off = random_volume_raw(1, 1, 6, 4, 4, 3);
    off.center_partition = 2;  // kz partial Fourier: refused with one line
    QVERIFY_THROWS_EXCEPTION(InputError, hybrid_space(off));
  }

  void ismrmrdRoundTripOfSlices() {
    RawData r = random_volume_raw(3, 4, 1, 16, 12, 4);
    // R = 2 with 4 integrated ACS lines: flags are per line, the same in every slice.
    r.accel_R = 2;
    r.line_flags.assign(12, 0);
    for (int l = 0; l < 12; ++l) {
      const bool acq = (l - 6) % 2 == 0, acs = l >= 4 && l < 8;
      if (acq || acs) r.line_flags[l] = kLineAcquired | (acs ? kLineCalibration : 0) | kLineImaging;
      if (!(acq || acs))
        for (int c = 0; c < 3; ++c)
          for (int s = 0; s < 4; ++s)
            for (int x = 0; x < 16; ++x) r.kspace[r.index(c, s, 0, l, x)] = 0;
    }
    write_raw_ismrmrd(path("ms.h5"), r);
    RawFileSummary sum;
    const RawData b = read_raw_ismrmrd(path("ms.h5"), RawSelection{-1, 0, 0}, &sum);
    QCOMPARE(sum.slices, 4);
    QCOMPARE(b.slices, 4);
    QCOMPARE(b.partitions, 1);
    QCOMPARE(b.accel_R, 2);
    QCOMPARE(b.line_flags, r.line_flags);
    QVERIFY(std::abs(b.slice_spacing_m - r.slice_spacing_m) < 1e-7);
    QVERIFY(std::abs(b.fov_z_m - r.fov_z_m) < 1e-7);
    QCOMPARE(b.kspace, r.kspace);  // float samples stored as they are
    // One slice selected: the 2-D dataset of that slice.
    const RawData s2 = read_raw_ismrmrd(path("ms.h5"), RawSelection{2, 0, 0});
    QCOMPARE(s2.slices, 1);
    QCOMPARE(s2.kspace, extract_slice(r, 2, 0).kspace);
  }

  void ismrmrdRoundTripOfPartitions() {
    RawData r = random_volume_raw(2, 1, 7, 10, 8, 5);
    write_raw_ismrmrd(path("p3d.h5"), r);
    const RawData b = read_raw_ismrmrd(path("p3d.h5"), RawSelection{-1, 0, 0});
    QCOMPARE(b.partitions, 7);
    QCOMPARE(b.slices, 1);
    QCOMPARE(b.k0_partition(), 3);
    QVERIFY(std::abs(b.fov_z_m - 0.03) < 1e-7);
    QCOMPARE(b.kspace, r.kspace);
    // The default selection (slice 0) of a single-slice 3-D file is the same volume.
    QCOMPARE(read_raw_ismrmrd(path("p3d.h5")).kspace, r.kspace);
  }

  void imageVolumeRoundTrip() {
    ImageVolume v;
    v.nx = 6;
    v.ny = 5;
    v.nz = 4;
    v.fov_x_m = 0.06;
    v.fov_y_m = 0.05;
    v.fov_z_m = 0.02;
    for (std::size_t i = 0; i < v.plane() * v.nz; ++i) v.data.push_back({float(i), -float(i) / 2});
    for (const char* name : {"vol.h5", "vol.cfl"}) {
      write_image_volume(path(name), v);
      const ImageVolume b = read_image_volume(path(name));
      QCOMPARE(b.nx, 6);
      QCOMPARE(b.ny, 5);
      QCOMPARE(b.nz, 4);
      QCOMPARE(b.data, v.data);
    }
    QVERIFY(std::abs(read_image_volume(path("vol.h5")).fov_z_m - 0.02) < 1e-7);
    QCOMPARE(v.slice(2).data[0], v.data[2 * 30]);
    QVERIFY_THROWS_EXCEPTION(InputError, write_image_volume(path("vol.png"), v));
    QVERIFY(!QFile::exists(dir_.filePath("vol.png")));
    // A 2-D image reader refuses a volume with one line rather than returning its first plane.
    QVERIFY_THROWS_EXCEPTION(InputError, read_image_ismrmrd(path("vol.h5")));
  }

  // Files whose acquisitions lie outside the header's limits: one InputError line naming file and field.
  void malformedSliceAndPartitionIndices() {
    auto write = [&](const char* name, int limit_slices, int matrix_z, int slice, int step2) {
      ISMRMRD::IsmrmrdHeader h;
      h.version = ISMRMRD_XMLHDR_VERSION;
      ISMRMRD::Encoding e;
      e.encodedSpace.matrixSize = ISMRMRD::MatrixSize(8, 8, static_cast<unsigned short>(matrix_z));
      e.encodedSpace.fieldOfView_mm = {100, 100, 10};
      e.reconSpace = e.encodedSpace;
      e.encodingLimits.kspace_encoding_step_1 = ISMRMRD::Limit(0, 7, 4);
      e.encodingLimits.slice = ISMRMRD::Limit(0, static_cast<unsigned short>(limit_slices - 1), 0);
      e.trajectory = ISMRMRD::TrajectoryType::CARTESIAN;
      h.encoding.push_back(e);
      std::ostringstream xml;
      ISMRMRD::serialize(h, xml);
      ISMRMRD::Dataset d(path(name).c_str(), "dataset", true);
      d.writeHeader(xml.str());
      for (int l = 0; l < 8; ++l) {
        ISMRMRD::Acquisition a(8, 1, 0);
        a.idx().kspace_encode_step_1 = static_cast<uint16_t>(l);
        a.idx().slice = static_cast<uint16_t>(l == 3 ? slice : 0);
        a.idx().kspace_encode_step_2 = static_cast<uint16_t>(l == 3 ? step2 : 0);
        d.appendAcquisition(a);
      }
    };
    write("slice_beyond.h5", 2, 1, 5, 0);
    write("step2_beyond.h5", 1, 4, 0, 4);
    write("step2_in_2d.h5", 1, 1, 0, 1);
    for (const char* name : {"slice_beyond.h5", "step2_beyond.h5", "step2_in_2d.h5"}) {
      try {
        read_raw_ismrmrd(path(name), RawSelection{-1, 0, 0});
        QFAIL(qPrintable(QString("%1: no error").arg(name)));
      } catch (const InputError& ex) {
        const QString m = ex.what();
        QVERIFY2(m.contains(name) && !m.contains('\n') && m.contains("allowed"), qPrintable(m));
        QVERIFY2(m.contains("slice 5") || m.contains("kspace_encode_step_2 4") || m.contains("kspace_encode_step_2 1"), qPrintable(m));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestMultisliceIo)
#include "test_multislice_io.moc"
