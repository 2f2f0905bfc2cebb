// `mrwb flow` and `mrwb phantom --list` end to end: the shipped files are listed, bad input gives one line
// and exit 2 with no .vti written, and the LBM reports its lattice against its physical Reynolds number.
#include <QFileInfo>
#include <QTest>

#include "files.hpp"
#include "process_runner.hpp"

#include <QTemporaryDir>

#include "mrwb/scenario/scenario.hpp"

using namespace mrwb;

namespace {

using mrwb_test::Run;
using mrwb_test::run_mrwb;
// The straight-tube preset on a small grid (64 x 64 cells of 0.5 mm): fast enough for a CPU LBM.
Scenario small_tube() {
  Scenario s = scenario_preset("straight_tube");
  s.sequence.matrix = 32;
  s.sequence.fov_m = 0.032;
  s.phantom.disc_radius_m = 0.015;
  s.phantom.tree.length_m = 0.04;
  return s;
}
}  // namespace

class TestFlowCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path(const QString& name) const { return dir_.filePath(name); }
  // Writes `s` as JSON text without validation (bad values must reach the CLI).
  QString write(const QString& name, const std::string& text) const {
    mrwb::test::write_file(path(name), QByteArray::fromStdString(text));
    return path(name);
  }

 private slots:
  void listNamesTheShippedFiles() {
    const Run r = run_mrwb({"phantom", "--list"});
    QCOMPARE(r.code, 0);
    for (const char* n : {"straight_tube", "stenosis_50", "stenosis_75", "bifurcation", "multi_bifurcation",
                          "aneurysm_saccular", "aneurysm_fusiform", "liver_tree"})
      QVERIFY2(r.out.contains(QString("phantoms/%1.json]").arg(n)), qPrintable(r.out));
  }

  void badInputExitsTwoWithOneLineAndNoField_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("expect");
    QTest::newRow("radius <= 0") << "radius" << "radius_m";
    QTest::newRow("child wider than parent") << "ratio" << "radius_ratio";
    QTest::newRow("|u| > 1") << "speed" << "breaks |u| <= 1";
    QTest::newRow("unknown collision") << "collision" << "flow.lbm_collision";
  }
  void badInputExitsTwoWithOneLineAndNoField() {
    QFETCH(QString, what);
    QFETCH(QString, expect);
    Scenario s = small_tube();
    std::string text = scenario_to_json_text(s);
    auto replace = [&](const std::string& from, const std::string& to) {
      const auto at = text.find(from);
      QVERIFY2(at != std::string::npos, from.c_str());
      text.replace(at, from.size(), to);
    };
    if (what == "radius") replace("\"radius_m\": 0.004", "\"radius_m\": -0.001");
    if (what == "ratio") {
      s.phantom.tree.generator = "bifurcation";
      text = scenario_to_json_text(s);
      replace("\"radius_ratio\": 1.0", "\"radius_ratio\": 1.5");
    }
    if (what == "speed") {
      replace("\"inlet_flow_m3_per_s\": 2e-06", "\"inlet_flow_m3_per_s\": 0.0009");
      replace("\"time_step_s\": 0.0", "\"time_step_s\": 0.009");
    }
    if (what == "collision") replace("\"lbm_collision\": \"bgk\"", "\"lbm_collision\": \"trt\"");
    const QString scenario = write(what + ".json", text);
    const Run r = run_mrwb({"flow", "--scenario", scenario, "--solver", "poiseuille", "--out", path(what + ".vti"), "--quiet"});
    QCOMPARE(r.code, 2);
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY2(r.err.contains(expect), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(path(what + ".vti")));
  }

  // The LBM run states the collision, tau and both Reynolds numbers. This tube (Re ~ 190) needs
  // tau = 0.512: both collisions hold tau at its floor 0.55 (Re lattice 48) and report "lower".
  void lbmReportsLatticeAndPhysicalReynolds_data() {
    QTest::addColumn<QString>("collision");
    QTest::addColumn<QString>("verdict");
    QTest::newRow("bgk") << "bgk" << "bgk tau 0.55,";
    QTest::newRow("mrt") << "mrt" << "mrt tau 0.55,";
  }
  void lbmReportsLatticeAndPhysicalReynolds() {
    QFETCH(QString, collision);
    QFETCH(QString, verdict);
    Scenario s = small_tube();
    s.flow.lbm_collision = collision.toStdString();
    s.flow.lbm_max_steps = 400;
    s.backend = Backend::Cpu;
    const QString scenario = write("lbm_" + collision + ".json", scenario_to_json_text(s));
    const Run r = run_mrwb({"flow", "--scenario", scenario, "--solver", "lbm", "--backend", "cpu", "--out",
                            path("lbm_" + collision + ".vti")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(QFileInfo::exists(path("lbm_" + collision + ".vti")));
    QVERIFY2(r.err.contains(verdict) && r.err.contains("Re physical") && r.err.contains("Re lattice") &&
                 r.err.contains("(lower:"),
             qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestFlowCli)
#include "test_flow_cli.moc"
