#pragma once
// The halo exchange of GPU ranks that share one host, played by the step kernels themselves: each rank maps its
// neighbours' two state buffers (CUDA IPC), and the step after which an exchange runs stores its boundary
// planes' cells into the neighbours' halo ranges as well as into its own buffer, over NVLink. Handshakes through
// flags in device memory, numbered by the step (from the step counter in device memory, so a graph replayed
// many times numbers each anew); for the exchange after step k, number v = k + 1:
//   1. ready: a rank that has started step k is done with the buffer step k writes (its step k − 1, the last to
//      read those halo cells, is over): block 0 of step k writes v into the neighbours' flags for it, and the
//      blocks that store traffic wait, their cells computed, until this rank's flags from the neighbours reach v;
//   2. the storing blocks write their cells into the neighbours' buffers;
//   3. done: the last block storing to a neighbour writes v into that neighbour's other flag (each side counted
//      apart, so the side whose traffic is stored first is told first); in step k + 1 only the blocks whose ranks
//      read halo cells (within the transport's reach of a halo, or in it) wait for them.
// The steps order their blocks for it (stencil_step): a step that stores traffic runs its storing blocks first, so
// done comes early; a step that reads a fresh halo runs its waiting blocks last, so they find it there.
// No kernel or copy of its own: the exchange's latency hides behind the step's other blocks, and every step
// keeps its programmatic overlap with the one before. (An exchange kernel of peer stores between the steps was
// 2-4 % slower on 4 H200s; the copy engines between handshake kernels left 62.6 % strong-scaling efficiency
// where this reaches 71.4 %, docs/benchmarks.md.)
// Neighbours with no traffic either way (a rank whose planes hold no time-stepped cell) skip each other.
#include <cuda_runtime.h>

#include <array>
#include <memory>

#include "mrwb/base/rank_comm.hpp"
#include "nccl_halo.hpp"

namespace mrwb::gpu {

// What a step kernel needs to play an exchange. Side 0 is the lower neighbour, side 1
// the upper; a null pointer: nothing that way.
struct StepExchange {
  bool push = false;     // this step's result is exchanged: its send ranges go to the neighbours too
  bool receive = false;  // this step reads a fresh halo: its blocks that read halo cells wait for done
  float* to[2] = {};     // the neighbour's buffer of the parity this step writes, at where the traffic lands
  int to_stride[2] = {};  // the neighbour's nf (its arrays' stride)
  int send_begin[2] = {}, send_end[2] = {};
  int* ready_to[2] = {};  // sides this rank receives from: "you may write" (v = the step's number + 1)
  const int* ready_from[2] = {};  // sides this rank sends to
  int* done_to[2] = {};           // sides this rank sends to: "written" (v = the step's number + 1)
  const int* done_from[2] = {};   // sides this rank receives from
  unsigned* blocks_done = nullptr;  // [side] blocks of this launch that have stored to it (0 between launches)
  int push_blocks[2] = {};          // [side] blocks of this launch whose ranks meet its send range
  int wait_lo = 0, wait_hi = 0;     // receive: blocks with ranks below wait_lo or from wait_hi on wait
};

class IpcHalo {
 public:
  // Collective (every rank of `host` at once), on the current device, after this rank allocated its two state
  // buffers (three arrays of nf floats each, base pointers of cudaMalloc allocations; null with nf = 0 and
  // empty ranges: a rank with nothing to exchange): nullptr on every rank when the ranks are not all on one
  // host, a neighbour with traffic is on a GPU this one cannot reach by peer access (or on the same GPU), or a
  // mapping fails.
  static std::unique_ptr<IpcHalo> open(RankComm& host, std::array<float*, 2> state, int nf, const FluidHaloRanges& r,
                                       cudaStream_t stream);
  // Waits for `stream` and, unless unwinding an exception, for every rank (a neighbour may still be writing
  // into this rank's buffers), then unmaps the neighbours' buffers.
  ~IpcHalo();
  IpcHalo(const IpcHalo&) = delete;
  IpcHalo& operator=(const IpcHalo&) = delete;
  // The pointers and send ranges of a step that writes state buffer `parity` (0 or 1), with push and receive set
  // as given; the caller sets push_blocks and the wait ranges (they depend on its launch).
  StepExchange step(int parity, bool push, bool receive) const;

 private:
  struct Impl;
  explicit IpcHalo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mrwb::gpu
