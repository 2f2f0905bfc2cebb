// The ranges of the scenario's fields and the Pulseq reader's bounds are stated once
// (scenario_ranges.cpp, pulseq_limits.hpp): the reader refuses by them, `mrwb info --limits` prints them,
// and docs/input-limits.md holds that print. Each of the three is checked against the table here.
#include <QProcess>
#include <QTest>

#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>

#include "files.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_ranges.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/pulseq_limits.hpp"

using namespace mrwb;

namespace {

const char* k_begin = "<!-- mrwb info --limits: begin -->\n";
const char* k_end = "<!-- mrwb info --limits: end -->";

// A small valid scenario with one numeric field set to `value` (a JSON number).
std::string scenario_with(const std::string& field, const std::string& value) {
  const auto dot = field.find('.');
  const std::string section = field.substr(0, dot), key = field.substr(dot + 1);
  std::string sections = R"("phantom": {"preset": "straight_vessel")";
  if (!(section == "phantom" && key == "cells_per_voxel")) sections += R"(, "cells_per_voxel": 1)";
  std::string sequence = R"("sequence": {"type": "spoiled_gre")";
  for (const auto& [k, v] : {std::pair<std::string, std::string>{"matrix", "32"}, {"dummy_scans", "1"}})
    if (!(section == "sequence" && key == k)) sequence += ", \"" + k + "\": " + v;
  std::string rest;
  if (section == "phantom") sections += ", \"" + key + "\": " + value;
  sections += "}";
  if (section == "sequence") sequence += ", \"" + key + "\": " + value;
  sequence += "}";
  if (section != "phantom" && section != "sequence")
    rest = ", \"" + section + "\": {\"" + key + "\": " + value + "}";
  return R"({"format": "mrwb-scenario", "version": 1, )" + sections + ", " + sequence + rest + "}";
}

std::string number(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

}  // namespace

class TestInputLimits : public QObject {
  Q_OBJECT
 private slots:
  // The page is the print: regenerate it with `mrwb info --limits` when a range changes.
  void docsPageIsThePrint() {
    const char* src = std::getenv("MRWB_SOURCE_DIR");
    QVERIFY(src);
    const std::string page = mrwb::test::read_file(std::string(src) + "/docs/input-limits.md");
    const auto b = page.find(k_begin), e = page.find(k_end);
    QVERIFY2(b != std::string::npos && e != std::string::npos && b < e, "docs/input-limits.md lacks its markers");
    const std::string printed = page.substr(b + std::string(k_begin).size(), e - b - std::string(k_begin).size());
    QCOMPARE(QString::fromStdString(printed), QString::fromStdString(input_limits_markdown()));
  }

  // `mrwb info --limits` prints the same table.
  void cliPrintsTheTable() {
    QProcess p;
    p.start(MRWB_CLI_PATH, {"info", "--limits"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()), QString::fromStdString(input_limits_markdown()));
  }

  // Every fixed range is the one the reader holds a file to: a value just outside each end is refused with
  // the range in the message, for every field of the table (checked fields only: a range stated but never
  // checked, or checked by another range, fails here).
  void readerRefusesJustOutsideEveryRange() {
    int checked = 0;
    for (const FieldRange& f : scenario_field_ranges()) {
      const std::string field(f.field);
      if (field == "phantom.tree.organ_semi_axes_m") continue;  // a list of the vessel_tree preset (below)
      const double span = f.range.hi - f.range.lo;
      const double below = f.integer ? f.range.lo - (f.range.lo_open ? 0 : 1) : f.range.lo - 1e-3 * span;
      const double above = f.integer ? f.range.hi + (f.range.hi_open ? 0 : 1) : f.range.hi + 1e-3 * span;
      for (const double v : {below, above}) {
        std::string json = scenario_with(field, number(v));
        if (field == "sequence.venc_m_per_s") {  // checked for phase contrast only
          json.replace(json.find(R"("type": "spoiled_gre")"), 21, R"("type": "phase_contrast")");
        }
        std::string message;
        try {
          scenario_from_json_text(json, "s.json");
        } catch (const InputError& e) {
          message = e.what();
        }
        const std::string expect = "s.json: " + field + " = ";
        QVERIFY2(message.rfind(expect, 0) == 0, (field + " = " + number(v) + " was not refused by its range: '" + message + "'").c_str());
        // The refusal states the table's range.
        QVERIFY2(message.find(seq::text(f.range)) != std::string::npos, (field + ": '" + message + "' lacks " + seq::text(f.range)).c_str());
        ++checked;
      }
    }
    QVERIFY(checked >= 80);
  }

  // A Pulseq bound as the reader states it in its refusal: the shape sample count, one over the bound.
  void pulseqReaderUsesTheStatedBound() {
    const int over = seq::pulseq_limits::kMaxShapeSamples + 1;
    const std::string text = "[VERSION]\nmajor 1\nminor 4\nrevision 0\n\n[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 0 0\n\n"
                             "[SHAPES]\nshape_id 1\nnum_samples " + std::to_string(over) + "\n0\n0\n" + std::to_string(over - 2) + "\n";
    std::string message;
    try {
      seq::parse_pulseq(text, "x.seq");
    } catch (const InputError& e) {
      message = e.what();
    }
    QVERIFY2(message.find("allowed: 1.." + std::to_string(seq::pulseq_limits::kMaxShapeSamples)) != std::string::npos, message.c_str());
    QVERIFY(input_limits_markdown().find("1 .. " + std::to_string(seq::pulseq_limits::kMaxShapeSamples)) != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestInputLimits)
#include "test_input_limits.moc"
