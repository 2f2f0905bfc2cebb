#include "nccl_halo.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <span>
#include <string>

#include "mrwb/base/errors.hpp"

#ifdef MRWB_HAVE_NCCL
#include <nccl.h>
#endif

namespace mrwb::gpu {

#ifdef MRWB_HAVE_NCCL
namespace {
void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string("NCCL ") + what + ": " + ncclGetErrorString(r));
}
}  // namespace

struct NcclHalo::Impl {
  ncclComm_t comm = nullptr;
  int rank = 0, size = 1;
};

NcclHalo::NcclHalo(RankComm& host) : impl_(std::make_unique<Impl>()) {
  impl_->rank = host.rank();
  impl_->size = host.size();
  ncclUniqueId id{};
  if (impl_->rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  host.broadcast_bytes(std::as_writable_bytes(std::span<char>(id.internal, sizeof id.internal)), 0);
  nccl_check(ncclCommInitRank(&impl_->comm, impl_->size, id, impl_->rank), "ncclCommInitRank");
}

NcclHalo::~NcclHalo() {
  if (impl_->comm) ncclCommDestroy(impl_->comm);
}

void NcclHalo::enqueue(float* state, int nf, const FluidHaloRanges& r, cudaStream_t stream) {
  const std::size_t n = static_cast<std::size_t>(nf);
  const int lower = impl_->rank - 1, upper = impl_->rank + 1;
  nccl_check(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < 3; ++k) {
    float* m = state + k * n;
    // A range is empty towards a missing neighbour, and a send is as long as the receive it lands in.
    if (lower >= 0) {
      if (r.send_lower_end > r.send_lower_begin)
        nccl_check(ncclSend(m + r.send_lower_begin, r.send_lower_end - r.send_lower_begin, ncclFloat, lower, impl_->comm, stream),
                   "ncclSend");
      if (r.recv_lower_end > 0) nccl_check(ncclRecv(m, r.recv_lower_end, ncclFloat, lower, impl_->comm, stream), "ncclRecv");
    }
    if (upper < impl_->size) {
      if (r.send_upper_end > r.send_upper_begin)
        nccl_check(ncclSend(m + r.send_upper_begin, r.send_upper_end - r.send_upper_begin, ncclFloat, upper, impl_->comm, stream),
                   "ncclSend");
      if (nf > r.recv_upper_begin)
        nccl_check(ncclRecv(m + r.recv_upper_begin, nf - r.recv_upper_begin, ncclFloat, upper, impl_->comm, stream), "ncclRecv");
    }
  }
  nccl_check(ncclGroupEnd(), "ncclGroupEnd");
}
#else
struct NcclHalo::Impl {};
NcclHalo::NcclHalo(RankComm&) {
  throw InputError("--ranks: GPU ranks exchange their halos through NCCL, which this build lacks (allowed: --backend cpu)");
}
NcclHalo::~NcclHalo() = default;
void NcclHalo::enqueue(float*, int, const FluidHaloRanges&, cudaStream_t) {}
#endif

}  // namespace mrwb::gpu
