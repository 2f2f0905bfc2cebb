// File round trips and malformed input: ISMRMRD raw data and images, scenario JSON, PNG.
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"
#include "mrwb/scenario.hpp"

using namespace mrwb;
namespace fs = std::filesystem;

namespace {

RawData sample_raw() {
  RawData r;
  r.nx = 24;
  r.ny = 16;
  r.ncoils = 2;
  r.fov_x_m = r.fov_y_m = 0.2;
  r.TR_s = 0.01;
  r.TE_s = 0.004;
  r.flip_angle_deg = 15;
  r.dwell_s = 1e-5;
  r.scenario_name = "roundtrip";
  r.kspace.resize(static_cast<std::size_t>(r.nx) * r.ny * r.ncoils);
  for (std::size_t i = 0; i < r.kspace.size(); ++i) r.kspace[i] = {std::sin(0.1f * i), std::cos(0.37f * i) * 1e-3f};
  return r;
}

std::string read_all(const std::string& p) {
  std::ifstream f(p);
  return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

class TestIo : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

 private slots:
  void ismrmrdRawRoundTripIsExact() {
    const RawData a = sample_raw();
    write_raw_ismrmrd(path("raw.h5"), a);
    const RawData b = read_raw_ismrmrd(path("raw.h5"));
    QCOMPARE(b.nx, a.nx);
    QCOMPARE(b.ny, a.ny);
    QCOMPARE(b.ncoils, a.ncoils);
    QVERIFY(b.kspace == a.kspace);
    QVERIFY(std::abs(b.fov_x_m - 0.2) < 1e-6);
    QVERIFY(std::abs(b.TE_s - 0.004) < 1e-7);
    QVERIFY(std::abs(b.flip_angle_deg - 15) < 1e-6);
    QCOMPARE(b.scenario_name, std::string("roundtrip"));
    // No temporary is left beside the output.
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir_.path().toStdString())) files += e.path().filename() == "raw.h5" ? 0 : e.path().extension() == ".h5";
    QCOMPARE(files, 0);
  }
  void ismrmrdImageRoundTripIsExact() {
    Image2D img;
    img.nx = 10;
    img.ny = 7;
    img.fov_x_m = 0.1;
    img.fov_y_m = 0.07;
    for (int i = 0; i < 70; ++i) img.data.push_back({0.01f * i, -0.5f * i});
    write_image(path("img.h5"), img);
    const Image2D back = read_image(path("img.h5"));
    QCOMPARE(back.nx, 10);
    QCOMPARE(back.ny, 7);
    QVERIFY(back.data == img.data);
  }
  void missingAndMalformedFilesAreInputErrors() {
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_ismrmrd(path("nope.h5")));
    { std::ofstream(path("junk.h5")) << "this is not HDF5"; }
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_ismrmrd(path("junk.h5")));
    QVERIFY_THROWS_EXCEPTION(InputError, read_image(path("junk.h5")));
    // Truncated HDF5: the first half of a valid file.
    write_raw_ismrmrd(path("full.h5"), sample_raw());
    const auto full = read_all(path("full.h5"));
    { std::ofstream(path("trunc.h5"), std::ios::binary) << full.substr(0, full.size() / 2); }
    QVERIFY_THROWS_EXCEPTION(InputError, read_raw_ismrmrd(path("trunc.h5")));
    // A raw-data file is not an image file.
    QVERIFY_THROWS_EXCEPTION(InputError, read_image(path("full.h5")));
  }
  void writesIntoMissingFolderFailWithoutOutput() {
    QVERIFY_THROWS_EXCEPTION(InputError, write_raw_ismrmrd(path("no/such/dir/raw.h5"), sample_raw()));
    QVERIFY(!fs::exists(path("no")));
  }
  void scenarioRoundTrip() {
    Scenario s = scenario_preset("default");
    s.sequence.TR_s = 0.0123;
    s.phantom.vessel_angle_deg = -12.5;
    save_scenario(s, path("s.json"));
    const Scenario b = load_scenario(path("s.json"));
    QCOMPARE(scenario_to_json_text(b), scenario_to_json_text(s));
  }
  void scenarioErrorsNameTheField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    const QString head = R"({"format": "mrwb-scenario", "version": 1, )";
    QTest::newRow("negative TR") << head + R"("sequence": {"TR_s": -0.01}})" << "sequence.TR_s = -0.01 is out of range: allowed (0, 10] s";
    QTest::newRow("TE >= TR") << head + R"("sequence": {"TR_s": 0.01, "TE_s": 0.01}})" << "sequence.TE_s = 0.01 is out of range";
    QTest::newRow("unknown field") << head + R"("sequence": {"TR_ms": 10}})" << "sequence.TR_ms is not a known field";
    QTest::newRow("unknown top field") << head + R"("colour": 1})" << "colour is not a known field";
    QTest::newRow("wrong type") << head + R"("sequence": {"matrix": "big"}})" << "sequence.matrix must be an integer";
    QTest::newRow("bad format") << R"({"format": "other", "version": 1})" << "format must be";
    QTest::newRow("no version") << R"({"format": "mrwb-scenario"})" << "version is missing";
    QTest::newRow("malformed") << R"({"format": "mrwb-scenario", )" << "not valid JSON";
    QTest::newRow("unknown tissue") << head + R"("phantom": {"vessel_tissue": "unobtainium"}})" << "unknown tissue 'unobtainium'";
    QTest::newRow("readout too long") << head + R"("sequence": {"TE_s": 0.001, "bandwidth_Hz_per_pixel": 100}})" << "sequence.TE_s = 0.001 is out of range: must exceed half the readout";
  }
  void scenarioErrorsNameTheField() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    try {
      scenario_from_json_text(json.toStdString(), "S.json");
      QFAIL("no error");
    } catch (const InputError& e) {
      const QString msg = e.what();
      QVERIFY2(msg.startsWith("S.json: "), qPrintable(msg));
      QVERIFY2(msg.contains(expected), qPrintable(msg));
      QVERIFY2(!msg.contains('\n'), qPrintable(msg));
    }
  }
  void pngFilesAreWritten() {
    std::vector<float> v(32 * 16);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 32) - 16.f;
    write_png_error_map(path("err.png"), v, 32, 16);
    write_png_magnitude(path("mag.png"), v, 32, 16);
    for (const char* f : {"err.png", "mag.png"}) {
      const auto bytes = read_all(path(f));
      QVERIFY(bytes.size() > 60);
      QCOMPARE(bytes.substr(1, 3), std::string("PNG"));
    }
  }
};

QTEST_GUILESS_MAIN(TestIo)
#include "test_io.moc"
