// The CUDA step kernel's blocks by rounds of resident blocks (mrwb_gpu/simulation/step_blocks.hpp): host arithmetic,
// run on any machine. Figures of an H200 at 4 cells a thread: 396 blocks of 256 threads a round.
#include <QTest>

#include <algorithm>
#include <vector>

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
// Every rank of [act_lo, act_hi) in exactly one block of the layout, each block within threads · C ranks and none
// wholly above act_hi.
void expect_layout_covers(std::vector<RankRange> l, int act_lo, int act_hi, int C) {
  QVERIFY(!l.empty());
  std::sort(l.begin(), l.end(), [](RankRange a, RankRange b) { return a.lo < b.lo; });
  QVERIFY(l.front().lo <= act_lo && l.front().lo > act_lo - 32);
  for (std::size_t b = 0; b < l.size(); ++b) {
    QVERIFY(l[b].hi > l[b].lo && l[b].hi - l[b].lo <= k_threads * C);
    if (b > 0) QCOMPARE(l[b].lo, l[b - 1].hi);
  }
  QVERIFY(l.back().hi >= act_hi);
  QVERIFY(l.size() == 1 || l.back().lo < act_hi);
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

// Each launch's blocks in the order its exchange asks, the light last round (where there is one) launched last.
class TestStepLayout : public QObject {
  Q_OBJECT
 private slots:
  // A step without exchange: the blocks of step_blocks in rank order, the light round on the highest ranks.
  void plainStepsRunInRankOrder() {
    const int act_lo = 7, act_hi = 7 + 2'443'184;
    const StepLayout layout = step_layout(0, act_lo, act_hi, 4, k_h200_slots, k_threads, {});
    const std::vector<RankRange>& l = layout.blocks;
    expect_layout_covers(l, act_lo, act_hi, 4);
    const StepBlocks b = step_blocks(act_hi, 4, k_h200_slots, k_threads, true);
    QCOMPARE(static_cast<int>(l.size()), b.blocks);
    for (std::size_t k = 1; k < l.size(); ++k) QCOMPARE(l[k].lo, l[k - 1].hi);
    QCOMPARE(l[b.tail_from].hi - l[b.tail_from].lo, b.tail_span);
    QCOMPARE(layout.light, b.blocks - b.tail_from);
  }

  // A step that reads a fresh halo (2.443 M ranks, a middle rank of the weak case): the light round launched last
  // holds the lowest ranks (the lower halo's readers); the full blocks start past the lower readers, the upper end
  // last among them.
  void receiveStepsRunTheWaitingBlocksLast() {
    const int act_hi = 2'443'184, wait_lo = 30'000;
    StepOrder order;
    order.role = StepRole::Receive;
    order.last_below = wait_lo;
    const StepLayout layout = step_layout(0, 0, act_hi, 4, k_h200_slots, k_threads, order);
    const std::vector<RankRange>& l = layout.blocks;
    expect_layout_covers(l, 0, act_hi, 4);
    const StepBlocks b = step_blocks(act_hi, 4, k_h200_slots, k_threads, true);
    QCOMPARE(static_cast<int>(l.size()), b.blocks);
    const std::size_t full = static_cast<std::size_t>(b.tail_from);
    for (std::size_t k = 0; k < l.size(); ++k) QCOMPARE(l[k].hi - l[k].lo, k < full ? 1024 : b.tail_span);
    QCOMPARE(l[full].lo, 0);  // the light round from the lowest rank
    const int light_end = l.back().hi;
    QVERIFY(light_end < wait_lo);  // 10,160 ranks: the lower readers beyond them are full blocks, run last of those
    QVERIFY(l.front().lo >= wait_lo);
    QVERIFY(l[full - 1].lo < wait_lo && l[full - 1].hi > light_end);
    // No full block that waits runs before one that does not.
    bool waited = false;
    for (std::size_t k = 0; k < full; ++k) {
      const bool waits = l[k].lo < wait_lo;
      QVERIFY(!waited || waits);
      waited = waited || waits;
    }
  }

  // A step that stores traffic: the blocks meeting the upper send range first, then the lower end's; the light
  // round, launched last, on the middle ranks.
  void pushStepsRunTheStoringBlocksFirst() {
    const int act_hi = 2'443'184, send_from = act_hi - 20'000;
    StepOrder order;
    order.role = StepRole::Push;
    order.first_from = send_from;
    order.first_to = act_hi;
    const StepLayout layout = step_layout(0, 0, act_hi, 4, k_h200_slots, k_threads, order);
    const std::vector<RankRange>& l = layout.blocks;
    expect_layout_covers(l, 0, act_hi, 4);
    const StepBlocks b = step_blocks(act_hi, 4, k_h200_slots, k_threads, true);
    const std::size_t full = static_cast<std::size_t>(b.tail_from);
    QCOMPARE(l.size(), full + 318);  // 10,160 ranks in blocks of 32
    QCOMPARE(layout.light, 318);
    QVERIFY(l.front().hi > send_from);
    int storing = 0;
    while (l[storing].hi > send_from) ++storing;
    QCOMPARE(storing, 20);  // 20,000 ranks in 1024-rank blocks, one of them offset by the light round's 10,160
    QCOMPARE(l[storing].lo, 0);  // then the lower end
    for (std::size_t k = full; k < l.size(); ++k) {
      QVERIFY(l[k].lo > act_hi / 3 && l[k].hi < 2 * act_hi / 3);
      QCOMPARE(l[k].hi - l[k].lo, 32);
    }
  }

  // Without a light round (2.346 M ranks, 5.79 rounds of full blocks): the full blocks rotated as before.
  void fullBlocksRotateAsBefore() {
    const int act_hi = 2'346'274;
    StepOrder receive;
    receive.role = StepRole::Receive;
    receive.last_below = 5000;
    const StepLayout layout = step_layout(0, 0, act_hi, 4, k_h200_slots, k_threads, receive);
    const std::vector<RankRange>& r = layout.blocks;
    expect_layout_covers(r, 0, act_hi, 4);
    QCOMPARE(r.front().lo, 5 * 1024);
    QCOMPARE(r.back().lo, 4 * 1024);
    StepOrder none;
    none.role = StepRole::Receive;  // no lower neighbour: nothing waits below
    QCOMPARE(step_layout(0, 0, act_hi, 4, k_h200_slots, k_threads, none).blocks.front().lo, 0);
    QCOMPARE(layout.light, 0);
  }

  // MRWB_STEP_TAIL=3: the light round only on steps in rank order (as before the exchange's steps had one).
  void lightRoundOnlyInRankOrderOnRequest() {
    StepBlockOptions before;
    before.light_round = 3;
    StepOrder push;
    push.role = StepRole::Push;
    push.first_from = 2'440'000;
    push.first_to = 2'443'184;
    const StepLayout layout = step_layout(0, 0, 2'443'184, 4, k_h200_slots, k_threads, push, before);
    const std::vector<RankRange>& l = layout.blocks;
    QCOMPARE(l.size(), std::size_t{2386});
    QCOMPARE(l.front().lo, 2382 * 1024);  // the four blocks meeting [2,440,000, 2,443,184) first
    QCOMPARE(layout.light, 0);
    const StepLayout plain = step_layout(0, 0, 2'443'184, 4, k_h200_slots, k_threads, {}, before);
    QCOMPARE(plain.blocks.size(), std::size_t{6 * 396 + 318});
    QCOMPARE(plain.light, 318);
  }

  // A launch of no ranks: one block.
  void noRanksOneBlock() {
    StepOrder push;
    push.role = StepRole::Push;
    const StepLayout layout = step_layout(64, 70, 70, 4, k_h200_slots, k_threads, push);
    const std::vector<RankRange>& l = layout.blocks;
    QCOMPARE(l.size(), std::size_t{1});
    QCOMPARE(l[0].lo, 64);
  }
};

int main(int argc, char** argv) {
  TestStepBlocks blocks;
  TestStepLayout layout;
  return QTest::qExec(&blocks, argc, argv) | QTest::qExec(&layout, argc, argv);
}
#include "test_step_blocks.moc"
