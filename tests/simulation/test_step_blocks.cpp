// The CUDA step kernel's blocks by rounds of resident blocks (mrwb_gpu/simulation/step_blocks.hpp): host arithmetic,
// run on any machine. Figures of an H200 at 4 cells a thread: 396 blocks of 256 threads a round.
#include <QtTest>

#include "mrwb_gpu/simulation/step_blocks.hpp"

using namespace mrwb::gpu;

namespace {
constexpr std::size_t k_h200_slots = 396;
constexpr int k_threads = 256;

// Every rank of [0, count) in exactly one block, no block beyond `count` but the last, each span within its kind.
void expect_cover(const StepBlocks& b, std::size_t count, int C) {
  std::size_t covered = 0;
  for (int k = 0; k < b.blocks; ++k) {
    const int span = k < b.tail_from ? b.span : b.tail_span;
    QVERIFY(span >= 32 && span <= k_threads * C && span % 32 == 0);
    covered += static_cast<std::size_t>(span);
  }
  const int last = b.blocks - 1 < b.tail_from ? b.span : b.tail_span;
  QVERIFY(covered >= count);
  QVERIFY(count == 0 || covered - count < static_cast<std::size_t>(last));
}
}  // namespace

class TestStepBlocks : public QObject {
  Q_OBJECT
 private slots:
  // Within one round the cells spread evenly over every slot (the liver slab's 349,596 fluid cells: 896 a block).
  void oneRoundSpreadsOverEverySlot() {
    const StepBlocks b = step_blocks(349'596, 4, k_h200_slots, k_threads, true);
    QCOMPARE(b.span, 896);
    QCOMPARE(b.blocks, 391);
    QCOMPARE(b.tail_from, INT_MAX);
    expect_cover(b, 349'596, 4);
  }

  // A launch of no ranks (a rank whose own planes hold no fluid cells, at a step that steps no halo plane) still gets
  // a span and one block, not a division by zero.
  void noRanksGetOneBlock() {
    const StepBlocks b = step_blocks(0, 4, k_h200_slots, k_threads, true);
    QCOMPARE(b.span, 32);
    QCOMPARE(b.blocks, 1);
  }

  // 0.834 M cells are 2.06 rounds of 1024-cell blocks: three rounds of 3 cells a thread cost less than three of 4
  // (the third nearly empty); 2.443 M (6.03 rounds): six rounds of full blocks and a light seventh, where allowed;
  // 2.346 M (5.79 rounds) and 2.80 M (6.91): full blocks as before.
  void roundsChooseTheBlocks() {
    const StepBlocks a = step_blocks(834'065, 4, k_h200_slots, k_threads, true);
    QCOMPARE(a.span, 768);
    QCOMPARE(a.tail_from, INT_MAX);
    expect_cover(a, 834'065, 4);
    const StepBlocks light = step_blocks(2'443'184, 4, k_h200_slots, k_threads, true);
    QCOMPARE(light.span, 1024);
    QCOMPARE(light.tail_from, 6 * 396);
    QCOMPARE(light.tail_span, 32);  // 10,160 cells over 396 blocks
    expect_cover(light, 2'443'184, 4);
    const StepBlocks rotated = step_blocks(2'443'184, 4, k_h200_slots, k_threads, false);
    QCOMPARE(rotated.span, 1024);
    QCOMPARE(rotated.tail_from, INT_MAX);
    QCOMPARE(rotated.blocks, 2386);
    for (std::size_t count : {std::size_t{2'346'274}, std::size_t{2'800'331}}) {
      const StepBlocks b = step_blocks(count, 4, k_h200_slots, k_threads, true);
      QCOMPARE(b.span, 1024);
      QCOMPARE(b.tail_from, INT_MAX);
    }
  }

  // The A/B settings: full blocks; full blocks beyond one round and no light round; a forced span; a light round
  // forced on a partial last round.
  void optionsKeepTheOldBlocks() {
    StepBlockOptions full;
    full.balance = 0;
    QCOMPARE(step_blocks(349'596, 4, k_h200_slots, k_threads, true, full).span, 1024);
    StepBlockOptions before;
    before.balance = 1;
    QCOMPARE(step_blocks(349'596, 4, k_h200_slots, k_threads, true, before).span, 896);
    const StepBlocks b = step_blocks(2'443'184, 4, k_h200_slots, k_threads, true, before);
    QCOMPARE(b.span, 1024);
    QCOMPARE(b.tail_from, INT_MAX);
    StepBlockOptions forced;
    forced.span = 700;
    QCOMPARE(step_blocks(834'065, 4, k_h200_slots, k_threads, true, forced).span, 672);
    forced.span = 5000;
    QCOMPARE(step_blocks(834'065, 2, k_h200_slots, k_threads, true, forced).span, 512);
    StepBlockOptions light;
    light.light_round = 2;
    const StepBlocks t = step_blocks(2880, 1, 3, k_threads, true, light);  // the gpu test's rounds of 3 blocks
    QCOMPARE(t.span, 256);
    QCOMPARE(t.tail_from, 9);
    QCOMPARE(t.tail_span, 192);
    QCOMPARE(t.blocks, 12);
    expect_cover(t, 2880, 1);
  }
};

QTEST_APPLESS_MAIN(TestStepBlocks)
#include "test_step_blocks.moc"
