#pragma once
// The blocks of one launch of the CUDA engine's step kernel (stencil_step): how many fluid cells (ranks) each block
// takes. A step is launched in rounds of the device's resident blocks (`slots`), and a round lasts about as long as
// its busiest warp, so a nearly empty last round costs nearly a whole one. Host arithmetic only (no CUDA), so that it
// is tested on any machine.
#include <climits>
#include <cstddef>
#include <vector>

namespace mrwb::gpu {

// A round's fixed cost in cells a thread: c cells a thread over R rounds cost R · (c + k_round_fixed_cells). Fitted on
// one H200 to a slab's 0.834 M fluid cells stepped with spans of 1024 (3 rounds of 4 cells a thread: 3.58 s of
// kernels), 768 (3 of 3: 3.09 s), 512 (5 of 2: 3.33 s), 384 (6 of 2: 3.86 s) and 256 (9 of 1: 3.78 s), within 5 %.
constexpr double k_round_fixed_cells = 0.7;
// Another layout only where the fit saves more than this, its error.
constexpr double k_round_margin = 0.05;

// A/B and test settings (the engine reads them from MRWB_STEP_BALANCE, MRWB_STEP_SPAN and MRWB_STEP_TAIL).
struct StepBlockOptions {
  int balance = 2;      // 0: full blocks; 1: cells spread within one round, else full blocks, no light round (as
                        // before rounds were weighed); 2: by the rounds' cost
  int span = 0;         // > 0: blocks of that span (a multiple of 32 within [32, threads · C]), no light round
  int light_round = 1;  // 0: never; 1: where it saves; 2: wherever the last round of full blocks is partial; 3: where
                        // it saves and the step's blocks run in rank order (as before step_layout ordered them)
};

// The sizes of a launch's blocks: tail_from blocks of `span` ranks, then blocks of `tail_span` (a light last round),
// `blocks` in all; step_layout places them on the ranks and orders them.
struct StepBlocks {
  int span = 0;
  int tail_from = INT_MAX;
  int tail_span = 0;
  int blocks = 1;
};

// The blocks for `count` ranks (count >= 0) of a kernel of `threads` threads a block taking at most C cells a thread,
// `slots` of whose blocks the device holds at once. Within one round the cells spread evenly over every slot (a
// multiple of 32), so each SM holds about the same number; beyond one round, fewer cells a thread where the rounds'
// cost falls by more than k_round_margin, and where `light_allowed` (its blocks can be launched last) a light last
// round: the cells past the last round of full blocks spread over a round of blocks taking fewer cells a thread.
// On one H200 (396 slots at C = 4): the liver slab's 349,596 cells take 391 blocks of 896 instead of 342 of 1024;
// 0.834 M cells (2.06 rounds of 1024-cell blocks) three rounds of 768, 3.07 s of kernels against 3.62 s; 2.443 M
// (6.03 rounds) six rounds of 1024 and 10,160 cells in blocks of 32, 8.09-8.24 s against 8.41-8.55 s.
StepBlocks step_blocks(std::size_t count, int C, std::size_t slots, int threads, bool light_allowed,
                       const StepBlockOptions& options = {});

// The ranks [lo, hi) of one block of a launch.
struct RankRange {
  int lo, hi;
};

// What a step's halo exchange asks of the order in which its blocks start (ipc_halo.hpp): a step that reads a fresh
// halo (Receive) runs last the blocks that wait for it, those with ranks below `last_below` (the lower halo's
// readers; INT_MIN: none) and, before them, the upper end; a step that stores traffic (Push) runs first the blocks
// whose ranks meet [first_from, first_to) (the upper send range), then the lower end's. Blocks start about in launch
// order, and a step's grid is several rounds of them on a large rank: no waiting block holds a slot while others
// could run, and the neighbours' done comes early in the step rather than with its last round.
enum class StepRole { Plain, Receive, Push };
struct StepOrder {
  StepRole role = StepRole::Plain;
  int last_below = INT_MIN;
  int first_from = INT_MAX, first_to = INT_MAX;
};

// The blocks of a launch in launch order, the last `light` of them its light last round (0: none).
struct StepLayout {
  std::vector<RankRange> blocks;
  int light = 0;
};

// The blocks of a launch stepping the ranks [act_lo, act_hi) (from `first`, act_lo rounded down to 32), in launch
// order: their sizes from step_blocks, the light last round's blocks (where there is one) launched last whatever
// the order the exchange asks, so that they make up the last round. They hold the lowest ranks on a Receive step
// (the lower halo's readers, which run last anyway), the middle ranks on a Push step (away from both send
// ranges), the highest on a Plain one; the full blocks around them ordered as `order` asks.
StepLayout step_layout(int first, int act_lo, int act_hi, int C, std::size_t slots, int threads,
                                   const StepOrder& order, const StepBlockOptions& options = {});

}  // namespace mrwb::gpu
