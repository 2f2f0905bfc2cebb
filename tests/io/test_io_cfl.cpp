// BART .cfl/.hdr arrays, NIfTI-1 and PNG output: round trips and the layouts other tools expect.
#include <QTest>

#include <cmath>
#include <cstring>

#include "files.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/io/file_io.hpp"

using namespace mrwb;

namespace {

using mrwb::test::read_file;

CflArray ramp(std::vector<long> dims) {
  CflArray a;
  a.dims = std::move(dims);
  a.data.resize(a.size());
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = {std::sin(0.3f * i), 0.01f * i};
  return a;
}

std::string text_of(const PngPixels& p, const std::string& key) {
  for (const auto& [k, v] : p.text)
    if (k == key) return v;
  return {};
}

}  // namespace

class TestIoCfl : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* n) const { return dir_.filePath(n).toStdString(); }

 private slots:
  void cflRoundTripIsExactWithBartHeader() {
    const CflArray a = ramp({5, 3, 1, 2});
    write_cfl(path("a.cfl"), a);
    QCOMPARE(read_file(path("a.hdr")), std::string("# Dimensions\n5 3 1 2 1 1 1 1 1 1 1 1 1 1 1 1\n"));
    QCOMPARE(read_file(path("a.cfl")).size(), a.size() * 8);
    for (const char* name : {"a", "a.cfl", "a.hdr"}) {
      const CflArray b = read_cfl(path(name));
      QCOMPARE(b.size(), a.size());
      QVERIFY(b.data == a.data);
      QCOMPARE(b.dims.at(0), 5L);
      QCOMPARE(b.dims.at(3), 2L);
    }
  }
  void cartesianKspaceFlagsUnacquiredLinesAndR() {
    CflArray k = ramp({16, 12, 1, 2});
    for (long c = 0; c < 2; ++c)
      for (long l = 1; l < 12; l += 2)
        for (long s = 0; s < 16; ++s) k.data[static_cast<std::size_t>((c * 12 + l) * 16 + s)] = {};
    write_cfl(path("k"), k);
    const RawData raw = read_raw_cfl(path("k.cfl"));
    QCOMPARE(raw.nx, 16);
    QCOMPARE(raw.ny, 12);
    QCOMPARE(raw.ncoils, 2);
    QCOMPARE(raw.accel_R, 2);
    QCOMPARE(static_cast<int>(raw.flags(1)), 0);
    QCOMPARE(static_cast<int>(raw.flags(2)), kLineAcquired | kLineImaging);
    QVERIFY(raw.at(1, 2, 3) == k.data[(1 * 12 + 2) * 16 + 3]);
  }
  // BART's way to write GRAPPA data: every R-th line plus a fully sampled block at the centre. The block reads
  // as calibration-and-imaging lines and R as the lattice's spacing outside it; an irregular pattern stays R 1.
  void cartesianKspaceFindsTheCalibrationBlock() {
    const long nx = 16, ny = 48;
    CflArray k = ramp({nx, ny, 1, 2});
    const auto keep = [&](long l) { return l % 3 == 1 || (l >= 16 && l < 32); };
    for (long c = 0; c < 2; ++c)
      for (long l = 0; l < ny; ++l)
        if (!keep(l))
          for (long s = 0; s < nx; ++s) k.data[static_cast<std::size_t>((c * ny + l) * nx + s)] = {};
    write_cfl(path("acs"), k);
    const RawData raw = read_raw_cfl(path("acs.cfl"));
    QCOMPARE(raw.accel_R, 3);
    for (long l = 0; l < ny; ++l) {
      const int expected = !keep(l) ? 0 : (l >= 16 && l < 32) ? kLineAcquired | kLineImaging | kLineCalibration
                                                              : kLineAcquired | kLineImaging;
      QCOMPARE(static_cast<int>(raw.flags(static_cast<int>(l))), expected);
    }
    // Lines at gaps 1, 2 and 3 outside the block: no lattice, no calibration lines.
    CflArray irregular = ramp({nx, ny, 1, 1});
    for (long l : {0L, 2L, 3L, 6L, 40L, 41L, 44L})
      for (long s = 0; s < nx; ++s) irregular.data[static_cast<std::size_t>(l * nx + s)] = {};
    write_cfl(path("irregular"), irregular);
    const RawData r1 = read_raw_cfl(path("irregular.cfl"));
    QCOMPARE(r1.accel_R, 1);
    QCOMPARE(static_cast<int>(r1.flags(24)), kLineAcquired | kLineImaging);
  }
  void selectionPicksTimeSliceAndEcho() {
    // [READ 4, PHS1 3, 1, COIL 2, 1, TE 2, 1 .. TIME 3 at dim 10]
    std::vector<long> dims(16, 1);
    dims[0] = 4, dims[1] = 3, dims[3] = 2, dims[5] = 2, dims[10] = 3;
    const CflArray k = ramp(dims);
    write_cfl(path("multi"), k);
    RawSelection sel;
    sel.repetition = 2;
    sel.contrast = 1;
    const RawData raw = read_raw_cfl(path("multi"), "", sel);
    const std::size_t stride_te = 4 * 3 * 2, stride_time = stride_te * 2;
    QVERIFY(raw.at(1, 2, 3) == k.data[2 * stride_time + 1 * stride_te + (1 * 3 + 2) * 4 + 3]);
    sel.repetition = 3;
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_cfl(path("multi"), "", sel));
  }
  void nonCartesianRawRoundTrip() {
    RawData raw;
    raw.nx = 8;
    raw.ny = 5;
    raw.ncoils = 3;
    raw.traj_dims = 2;
    raw.kspace.resize(8 * 5 * 3);
    for (std::size_t i = 0; i < raw.kspace.size(); ++i) raw.kspace[i] = {0.5f * i, -1.f};
    for (int l = 0; l < 5; ++l)
      for (int s = 0; s < 8; ++s) {
        raw.traj.push_back((s - 4) * std::cos(0.6f * l));
        raw.traj.push_back((s - 4) * std::sin(0.6f * l));
      }
    write_raw_cfl(path("nk"), path("nt"), raw);
    const CflArray t = read_cfl(path("nt"));
    QCOMPARE(t.dims.at(0), 3L);  // BART layout [3, samples, lines]
    QCOMPARE(t.dims.at(1), 8L);
    QCOMPARE(t.dims.at(2), 5L);
    const RawData back = read_raw_cfl(path("nk"), path("nt"));
    QVERIFY(back.kspace == raw.kspace);
    QVERIFY(back.traj == raw.traj);
    QCOMPARE(back.traj_dims, 2);
    // Without its trajectory the k-space is recognised as non-Cartesian and refused with a hint.
    try {
      read_raw_cfl(path("nk"));
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("--traj"), e.what());
    }
  }
  void imageFormatsByExtension() {
    Image2D img;
    img.nx = 6;
    img.ny = 4;
    img.fov_x_m = 0.12;
    img.fov_y_m = 0.08;
    for (int i = 0; i < 24; ++i) img.data.push_back({0.1f * i, -0.05f * i});
    write_image(path("i.cfl"), img);
    QVERIFY(read_image(path("i.cfl")).data == img.data);
    write_image(path("i.nii"), img);
    const std::string nii = read_file(path("i.nii"));
    QCOMPARE(nii.size(), std::size_t{352 + 24 * 4});
    QCOMPARE(nii.substr(344, 3), std::string("n+1"));
    float pixdim[3];
    std::memcpy(pixdim, nii.data() + 76, sizeof pixdim);
    QCOMPARE(pixdim[1], 20.f);  // 120 mm / 6 voxels
    QCOMPARE(pixdim[2], 20.f);
    const Image2D back = read_image(path("i.nii"));
    QCOMPARE(back.nx, 6);
    QCOMPARE(back.ny, 4);
    QVERIFY(std::abs(back.fov_x_m - 0.12) < 1e-6);
    const auto mag = img.magnitude();
    for (int i = 0; i < 24; ++i) QCOMPARE(back.data[static_cast<std::size_t>(i)].real(), mag[static_cast<std::size_t>(i)]);
    QVERIFY_THROWS_EXCEPTION(InputError, write_image(path("i.jpg"), img));
  }
  void pngMagnitudeWindowAndBitDepth() {
    // 4 x 2: row 0 (bottom when shown) 0, 1, 2, 3; row 1: 4, 5, 6, 7.
    std::vector<float> v = {0, 1, 2, 3, 4, 5, 6, 7};
    write_png_magnitude(path("m16.png"), v, 4, 2, 1.f, 5.f, 16);
    const PngPixels p = read_png(path("m16.png"));
    QCOMPARE(p.bit_depth, 16);
    QCOMPARE(p.channels, 1);
    QCOMPARE(p.width, 4);
    // Top displayed row is image row 1 (+y up): 4 -> 0.75 of the window, 5.. clipped to white.
    QCOMPARE(p.samples[0], static_cast<unsigned>(std::lround(65535 * 0.75)));
    QCOMPARE(p.samples[1], 65535u);
    QCOMPARE(p.samples[4], 0u);  // value 0, below the window
    QCOMPARE(p.samples[6], 16384u);  // bottom row: value 2 -> (2 - 1) / 4 of the window
    QCOMPARE(p.samples[7], 32768u);
    write_png_window_level(path("m8.png"), v, 4, 2, 3.5f, 7.f, 8);
    const PngPixels q = read_png(path("m8.png"));
    QCOMPARE(q.bit_depth, 8);
    QCOMPARE(q.samples[3], 255u);  // value 7 = top of the window [0, 7]
    QCOMPARE(q.samples[7], 109u);  // value 3 -> 3/7 of 255
    QCOMPARE(q.samples[4], 0u);
    QVERIFY_THROWS_EXCEPTION(InputError, write_png_magnitude(path("m12.png"), v, 4, 2, 0, 0, 12));
  }
  void errorMapHasDivergingColorsAndLabelledColorbar() {
    const int nx = 40, ny = 100;
    std::vector<float> e(static_cast<std::size_t>(nx) * ny, 0.f);
    e[0] = -0.5f;                                  // bottom-left when shown
    e[static_cast<std::size_t>(ny - 1) * nx] = 0.5f;  // top-left
    write_png_error_map(path("err.png"), e, nx, ny);
    const PngPixels p = read_png(path("err.png"));
    QCOMPARE(p.channels, 3);
    QCOMPARE(p.height, ny);
    QVERIFY(p.width > nx + 8);
    auto px = [&](int x, int row) {
      const std::size_t i = (static_cast<std::size_t>(row) * p.width + x) * 3;
      return std::array<unsigned, 3>{p.samples[i], p.samples[i + 1], p.samples[i + 2]};
    };
    QVERIFY((px(0, 0) == std::array<unsigned, 3>{180, 4, 38}));       // +max: warm end
    QVERIFY((px(0, ny - 1) == std::array<unsigned, 3>{59, 76, 192}));  // −max: cool end
    QVERIFY((px(5, 50) == std::array<unsigned, 3>{221, 221, 221}));    // zero: neutral grey
    QVERIFY((px(nx + 4, 0) == std::array<unsigned, 3>{180, 4, 38}));   // colorbar top
    QVERIFY((px(nx + 4, ny - 1) == std::array<unsigned, 3>{59, 76, 192}));
    // Labels: some black pixels right of the colorbar, and the scale in the PNG text.
    int black = 0;
    for (int row = 0; row < ny; ++row)
      for (int x = nx + 4 + 8; x < p.width; ++x) black += px(x, row) == std::array<unsigned, 3>{0, 0, 0};
    QVERIFY(black > 20);
    QCOMPARE(std::stof(text_of(p, "mrwb:error_max_abs")), 0.5f);
  }
};

QTEST_GUILESS_MAIN(TestIoCfl)
#include "test_io_cfl.moc"
