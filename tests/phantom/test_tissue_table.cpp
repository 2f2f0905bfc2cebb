// The closed-form cells' tissue as a table of distinct values with a 16-bit entry per cell
// (mrwb/phantom/tissue_table.hpp), what the CUDA engine uploads and reads: every cell's value is reproduced bit
// for bit (fluid cells of a moving phantom and cells with PD = 0 read PD = 0), a smooth off-resonance
// map falls back to one value per cell, and the entry limit is exact.
#include <QTest>

#include <cstring>

#include "fluid_test_support.hpp"
#include "mrwb/phantom/tissue_table.hpp"

using namespace mrwb;
using namespace mrwb::fluid_test;

namespace {

TissueValue value_of(const TissueTable& t, std::size_t i) { return t.entry.empty() ? t.values[i] : t.values[t.entry[i]]; }

bool same_bits(const TissueValue& a, const TissueValue& b) { return std::memcmp(a.data(), b.data(), sizeof a) == 0; }

// Cells whose table value differs from what the closed-form kernels must read.
std::size_t mismatches(const CellPhantom& ph, bool moving, const TissueTable& t) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < ph.size(); ++i) {
    const bool skipped = ph.PD[i] == 0.f || (moving && ph.type[i] == k_fluid);
    const TissueValue want = skipped ? TissueValue{0.f, 0.f, 0.f, 0.f}
                                     : TissueValue{ph.PD[i], ph.T1_s[i], ph.T2_s[i], ph.dB_T[i]};
    bad += !same_bits(value_of(t, i), want);
  }
  return bad;
}

}  // namespace

class TestTissueTable : public QObject {
  Q_OBJECT
 private slots:
  // A tube of blood (five ΔB values) in stationary tissue, with a background border of PD = 0.
  void fewTissuesMakeATable() {
    CellPhantom ph = tube_2d(40, 16);
    for (std::size_t i = 0; i < ph.size(); ++i)
      if (ph.type[i] != k_fluid) ph.PD[i] = 0.7f;  // stationary tissue
    for (int ix = 0; ix < ph.nx; ++ix) ph.PD[ix] = 0.f;  // a row of background
    for (bool moving : {true, false}) {
      const TissueTable t = closed_form_tissue(ph, moving);
      QCOMPARE(t.entry.size(), ph.size());
      // Moving: stationary tissue and "skip" (blood and PD = 0); still: the five blood values besides.
      QCOMPARE(t.values.size(), moving ? std::size_t{2} : std::size_t{7});
      QCOMPARE(mismatches(ph, moving, t), std::size_t{0});
    }
  }

  // A smooth ΔB map over 90,000 cells: more distinct values than 16 bits address, one value per cell.
  void smoothOffResonanceKeepsPerCellValues() {
    CellPhantom ph = uniform_phantom(300, 300, 1e-3, 0.8f, 0.9f, 0.06f, CellType::Stationary);
    for (std::size_t i = 0; i < ph.size(); ++i) ph.dB_T[i] = static_cast<float>(1e-9 * static_cast<double>(i));
    const TissueTable t = closed_form_tissue(ph, false);
    QVERIFY(t.entry.empty());
    QCOMPARE(t.values.size(), ph.size());
    QCOMPARE(mismatches(ph, false, t), std::size_t{0});
  }

  // A parallel pass: four ranges that meet their tissues in different orders, merged into one table.
  void rangesMergeIntoOneTable() {
    CellPhantom ph = uniform_phantom(400, 400, 1e-3, 0.8f, 0.9f, 0.06f, CellType::Stationary);
    for (std::size_t i = 0; i < ph.size(); ++i) {
      const std::size_t band = i * 7 / ph.size();  // seven bands: ranges start inside different ones
      ph.T2_s[i] = 0.01f * static_cast<float>(7 - band);
      ph.PD[i] = band == 3 ? 0.f : 0.8f;
    }
    TissueTable t;
    auto value = [&](std::size_t i) { return TissueValue{ph.PD[i], ph.T1_s[i], ph.T2_s[i], ph.dB_T[i]}; };
    QVERIFY(distinct_values(ph.size(), value, t, k_max_tissue_entries, 4));
    QCOMPARE(t.values.size(), std::size_t{7});
    for (std::size_t i = 0; i < ph.size(); ++i)
      if (!same_bits(t.values[t.entry[i]], value(i))) QFAIL(qPrintable(QString("cell %1 has the wrong entry").arg(i)));
    TissueTable over;  // seven distinct values overall, at most three in any range: the merge refuses
    QVERIFY(!distinct_values(ph.size(), value, over, 6, 4));
    QVERIFY(over.entry.empty() && over.values.empty());
  }

  // The limit is exact: n distinct values fit a table of n entries, not one of n − 1.
  void entryLimitIsExact() {
    CellPhantom ph = tube_2d(40, 16);
    const std::size_t distinct = closed_form_tissue(ph, false).values.size();
    const TissueTable fits = closed_form_tissue(ph, false, distinct);
    QCOMPARE(fits.entry.size(), ph.size());
    const TissueTable over = closed_form_tissue(ph, false, distinct - 1);
    QVERIFY(over.entry.empty());
    QCOMPARE(over.values.size(), ph.size());
    QCOMPARE(mismatches(ph, false, over), std::size_t{0});
  }
};

QTEST_APPLESS_MAIN(TestTissueTable)
#include "test_tissue_table.moc"
