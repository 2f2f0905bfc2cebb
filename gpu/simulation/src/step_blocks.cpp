// The step kernel's blocks by rounds of resident blocks (mrwb_gpu/simulation/step_blocks.hpp).
#include "mrwb_gpu/simulation/step_blocks.hpp"

#include <algorithm>

namespace mrwb::gpu {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
std::size_t round_up_32(std::size_t a) { return ceil_div(a, 32) * 32; }

// Uniform blocks of `span` ranks: their rounds' cost.
double uniform_cost(std::size_t count, std::size_t span, std::size_t slots, int threads) {
  const std::size_t rounds = ceil_div(ceil_div(count, span), slots);
  return static_cast<double>(rounds) * (static_cast<double>(ceil_div(span, threads)) + k_round_fixed_cells);
}

}  // namespace

StepBlocks step_blocks(std::size_t count, int C, std::size_t slots, int threads, bool light_allowed, const StepBlockOptions& o) {
  slots = std::max<std::size_t>(1, slots);
  const std::size_t full = static_cast<std::size_t>(threads) * static_cast<std::size_t>(C);
  StepBlocks b;
  b.span = static_cast<int>(full);
  if (o.span > 0) {
    b.span = std::clamp(o.span / 32 * 32, 32, static_cast<int>(full));
  } else if (o.balance != 0) {
    if (count <= slots * full) {
      // One round: at least 32, so that a launch of no ranks (a rank's halo-only step) still has a block's span.
      b.span = static_cast<int>(std::clamp<std::size_t>(round_up_32(ceil_div(count, slots)), 32, full));
    } else if (o.balance != 1) {
      // Fewer cells a thread (c < C) only where that saves more than the margin.
      for (int c = C - 1; c >= 1; --c) {
        const std::size_t span = static_cast<std::size_t>(threads) * static_cast<std::size_t>(c);
        if (uniform_cost(count, span, slots, threads) <
            (1 - k_round_margin) * uniform_cost(count, static_cast<std::size_t>(b.span), slots, threads))
          b.span = static_cast<int>(span);
      }
    }
  }
  b.blocks = static_cast<int>(std::max<std::size_t>(1, ceil_div(count, static_cast<std::size_t>(b.span))));
  if (!light_allowed || o.light_round == 0 || o.balance <= 1 || o.span > 0 || count <= slots * full) return b;
  const std::size_t rounds = count / (slots * full), rest = count - rounds * slots * full;
  if (rest == 0) return b;
  const std::size_t tail = round_up_32(ceil_div(rest, slots));
  const double light = static_cast<double>(rounds) * (C + k_round_fixed_cells) +
                       static_cast<double>(ceil_div(tail, threads)) + k_round_fixed_cells;
  if (!(light < (1 - k_round_margin) * uniform_cost(count, static_cast<std::size_t>(b.span), slots, threads)) &&
      o.light_round != 2)
    return b;
  b.span = static_cast<int>(full);
  b.tail_from = static_cast<int>(rounds * slots);
  b.tail_span = static_cast<int>(tail);
  b.blocks = b.tail_from + static_cast<int>(ceil_div(rest, tail));
  return b;
}

StepLayout step_layout(int first, int act_lo, int act_hi, int C, std::size_t slots, int threads, const StepOrder& order,
                       const StepBlockOptions& o) {
  const std::size_t count = act_hi > first ? static_cast<std::size_t>(act_hi - first) : 0;
  const bool light_allowed = o.light_round != 3 || order.role == StepRole::Plain;
  const StepBlocks sb = step_blocks(count, C, std::max<std::size_t>(1, slots), threads, light_allowed, o);
  std::vector<RankRange> full, light;
  if (sb.tail_from == INT_MAX) {
    for (int b = 0; b < sb.blocks; ++b) full.push_back({first + b * sb.span, first + (b + 1) * sb.span});
  } else {
    // tail_from full blocks hold tail_from · span ranks; the rest, rounded up to a warp, go to the light blocks.
    const int rest = static_cast<int>(count) - sb.tail_from * sb.span;
    const int light_len = static_cast<int>(round_up_32(static_cast<std::size_t>(rest)));
    const int below = order.role == StepRole::Receive ? 0 : order.role == StepRole::Push ? sb.tail_from / 2 : sb.tail_from;
    int lo = first;
    for (int b = 0; b < below; ++b, lo += sb.span) full.push_back({lo, lo + sb.span});
    for (int t = 0; t < light_len; t += sb.tail_span) light.push_back({lo + t, lo + std::min(t + sb.tail_span, light_len)});
    lo += light_len;
    for (; lo < act_hi; lo += sb.span) full.push_back({lo, lo + sb.span});
  }
  // The full blocks rotated as the exchange asks: a Receive step's first block past the lower readers, a Push
  // step's first at the run of blocks meeting the upper send range that ends the list.
  auto active = [&](RankRange r) { return RankRange{std::max(r.lo, act_lo), std::min(r.hi, act_hi)}; };
  const int n = static_cast<int>(full.size());
  int rotate = 0;
  if (order.role == StepRole::Receive) {
    for (; rotate < n; ++rotate) {
      const RankRange a = active(full[rotate]);
      if (!(a.lo < a.hi && a.lo < order.last_below)) break;
    }
  } else if (order.role == StepRole::Push) {
    int stores = 0;
    for (; stores < n; ++stores) {
      const RankRange a = active(full[n - 1 - stores]);
      if (!(a.lo < a.hi && a.lo < order.first_to && order.first_from < a.hi)) break;
    }
    rotate = n - stores;
  }
  if (n > 0) std::rotate(full.begin(), full.begin() + rotate % n, full.end());
  StepLayout l{std::move(full), static_cast<int>(light.size())};
  l.blocks.insert(l.blocks.end(), light.begin(), light.end());
  return l;
}

}  // namespace mrwb::gpu
