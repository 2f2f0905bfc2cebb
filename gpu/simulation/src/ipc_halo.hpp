#pragma once
// The halo exchange of GPU ranks that share one host: each rank maps its neighbours' two state buffers (CUDA
// IPC) and writes its boundary planes straight into their halo ranges, with two handshakes through flags in
// device memory, all on the step's stream and capturable into its graphs. Two ways to write:
//  - peer stores (the default): one kernel signals, waits, stores the three arrays' traffic into the neighbours'
//    buffers over NVLink from its threads, and does the second handshake in its last block. An exchange is one
//    graph node: with small traffic (slabs of y rows) the copy engines' nodes and the four handshake kernels
//    around them cost some 90-100 us an exchange on 4 H200s, whatever the bytes (docs/benchmarks.md);
//  - the copy engines (MRWB_HALO_TRANSPORT=copy): three device-to-device copies a neighbour (one per array, run
//    side by side) between handshake kernels, taking no SMs: on two H200s 39 us an exchange of 4.1 MB each way,
//    where NCCL's send and receive took 62 us.
// Neighbours with no traffic either way (a rank whose planes hold no time-stepped cell) skip each other.
//
// One exchange, its number v (the step after which it runs, from the step counter in device memory, so a
// graph replayed many times numbers each anew):
//   1. ready: this rank's steps have finished with its buffer (the neighbours may overwrite its halo): it
//      writes v into each neighbour's flag for it, and waits until its own flags from the neighbours reach v;
//   2. the writes into the neighbours' halo ranges;
//   3. done: the same handshake on two more flags; the next step reads the halo only after it.
#include <cuda_runtime.h>

#include <array>
#include <memory>

#include "mrwb/base/rank_comm.hpp"
#include "nccl_halo.hpp"

namespace mrwb::gpu {

class IpcHalo {
 public:
  // Collective (every rank of `host` at once), on the current device, after this rank allocated its two state
  // buffers (three arrays of nf floats each, base pointers of cudaMalloc allocations; null with nf = 0 and
  // empty ranges: a rank with nothing to exchange): nullptr on every rank when the ranks are not all on one
  // host, a neighbour with traffic is on a GPU this one cannot reach by peer access (or on the same GPU), or a
  // mapping fails.
  static std::unique_ptr<IpcHalo> open(RankComm& host, std::array<float*, 2> state, int nf, const FluidHaloRanges& r,
                                       cudaStream_t stream, bool copy_engines = false);
  // "by peer stores" or "by the copy engines".
  const char* how() const;
  // Waits for `stream` and, unless unwinding an exception, for every rank (a neighbour may still be writing
  // into this rank's buffers), then unmaps the neighbours' buffers.
  ~IpcHalo();
  IpcHalo(const IpcHalo&) = delete;
  IpcHalo& operator=(const IpcHalo&) = delete;
  // Queues exchange number *counter + offset on `stream` of state buffer `parity` (0 or 1).
  void enqueue(int parity, const int* counter, int offset, cudaStream_t stream);

 private:
  struct Impl;
  explicit IpcHalo(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mrwb::gpu
