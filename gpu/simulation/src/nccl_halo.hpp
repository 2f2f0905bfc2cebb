#pragma once
// The halo planes of the time-stepped fluid cells between neighbouring GPU ranks (rank_decomposition.hpp),
// through NCCL on the step's stream, so the exchange sits inside the step graphs with no host round trip.
// The fluid cells' state is compact (three arrays of nf floats: Mx, My, Mz) in grid order, so a slab's
// halo-plane cells are its first and last ranks and its own boundary planes' cells the ranks beside them:
// each piece of traffic is one contiguous range per array.
#include <cuda_runtime.h>

#include <memory>

#include "mrwb/base/rank_comm.hpp"

namespace mrwb::gpu {

struct FluidHaloRanges {
  int recv_lower_end = 0;                        // [0, recv_lower_end): the lower halo plane's cells
  int send_lower_begin = 0, send_lower_end = 0;  // the own first plane's, to rank − 1
  int send_upper_begin = 0, send_upper_end = 0;  // the own last plane's, to rank + 1
  int recv_upper_begin = 0;                      // [recv_upper_begin, nf): the upper halo plane's cells
};

class NcclHalo {
 public:
  // Collective (every rank of `host` at once), on the current device; the NCCL id goes out through
  // host.broadcast_bytes. Throws InputError when this build has no NCCL.
  explicit NcclHalo(RankComm& host);
  ~NcclHalo();
  NcclHalo(const NcclHalo&) = delete;
  NcclHalo& operator=(const NcclHalo&) = delete;
  // Queues this rank's traffic of `state` on `stream` (capturable into a CUDA graph): its boundary planes
  // out, the neighbours' into its halo ranges.
  void enqueue(float* state, int nf, const FluidHaloRanges& r, cudaStream_t stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mrwb::gpu
