#include "ipc_halo.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <span>
#include <vector>

#include "mrwb_gpu/base/cuda_check.hpp"

namespace mrwb::gpu {
namespace {

// Flags of a rank, written by its neighbours: ready and done, from the lower and from the upper one.
enum Flag { k_ready_from_lower = 0, k_ready_from_upper = 1, k_done_from_lower = 2, k_done_from_upper = 3, k_flags = 4 };

// What a rank tells the others: where it is, its buffers and flags, and where its neighbours' traffic lands.
struct Record {
  char host[64];
  char bus[32];
  cudaIpcMemHandle_t state[2];
  cudaIpcMemHandle_t flags;
  int nf;
  int recv_lower_end, recv_upper_begin;
};

// Whether this rank has traffic with its lower (side 0) or upper (side 1) neighbour, either way. The two agree:
// what one sends is what lands in the other's halo. Without traffic the two need no handshake either.
bool linked(const FluidHaloRanges& r, int nf, int side) {
  return side == 0 ? r.send_lower_end > r.send_lower_begin || r.recv_lower_end > 0
                   : r.send_upper_end > r.send_upper_begin || nf > r.recv_upper_begin;
}

}  // namespace

struct IpcHalo::Impl {
  RankComm* host = nullptr;
  cudaStream_t stream = nullptr;
  DeviceBuffer<int> flags{k_flags};
  DeviceBuffer<unsigned> blocks_done{2};
  int nf = 0;
  FluidHaloRanges r;
  // Per neighbour (0 lower, 1 upper): its mapped state buffers and flags, its array length, and where this
  // rank's traffic lands in each of its arrays. Null when the neighbour is missing.
  std::array<std::array<float*, 2>, 2> peer_state{};
  std::array<int*, 2> peer_flags{};
  std::array<int, 2> peer_nf{}, land{};

  ~Impl() {
    for (auto& s : peer_state)
      for (float* p : s)
        if (p) cudaIpcCloseMemHandle(p);
    for (int* p : peer_flags)
      if (p) cudaIpcCloseMemHandle(p);
  }
};

IpcHalo::IpcHalo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

IpcHalo::~IpcHalo() {
  cudaStreamSynchronize(impl_->stream);
  if (std::uncaught_exceptions() == 0) impl_->host->all_agree(true);
}

std::unique_ptr<IpcHalo> IpcHalo::open(RankComm& host, std::array<float*, 2> state, int nf, const FluidHaloRanges& r,
                                       cudaStream_t stream) {
  auto impl = std::make_unique<Impl>();
  impl->host = &host;
  impl->stream = stream;
  impl->nf = nf;
  impl->r = r;
  // Zeroed before any rank passes the agreements below, after which a neighbour may signal.
  cuda_check(cudaMemset(impl->flags.get(), 0, k_flags * sizeof(int)), "memset");
  cuda_check(cudaMemset(impl->blocks_done.get(), 0, 2 * sizeof(unsigned)), "memset");
  cuda_check(cudaDeviceSynchronize(), "memset");
  const int me = host.rank(), ranks = host.size();
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  Record mine{};
  gethostname(mine.host, sizeof mine.host - 1);
  cuda_check(cudaDeviceGetPCIBusId(mine.bus, sizeof mine.bus, device), "cudaDeviceGetPCIBusId");
  for (int p = 0; p < 2; ++p)
    if (state[p]) cuda_check(cudaIpcGetMemHandle(&mine.state[p], state[p]), "cudaIpcGetMemHandle");
  cuda_check(cudaIpcGetMemHandle(&mine.flags, impl->flags.get()), "cudaIpcGetMemHandle");
  mine.nf = nf;
  mine.recv_lower_end = r.recv_lower_end;
  mine.recv_upper_begin = r.recv_upper_begin;
  std::vector<Record> all(static_cast<std::size_t>(ranks));
  all[static_cast<std::size_t>(me)] = mine;
  for (int root = 0; root < ranks; ++root)
    host.broadcast_bytes(std::as_writable_bytes(std::span<Record>(&all[static_cast<std::size_t>(root)], 1)), root);

  bool ok = true;
  for (const Record& o : all) ok = ok && std::strncmp(o.host, mine.host, sizeof o.host) == 0;
  const int neighbour[2] = {me - 1, me + 1};
  for (int side = 0; side < 2 && ok; ++side) {
    const int n = neighbour[side];
    if (n < 0 || n >= ranks || !linked(r, nf, side)) continue;
    const Record& o = all[static_cast<std::size_t>(n)];
    int other = -1, can = 0;
    ok = cudaDeviceGetByPCIBusId(&other, o.bus) == cudaSuccess && other != device &&
         cudaDeviceCanAccessPeer(&can, device, other) == cudaSuccess && can == 1;
  }
  if (!host.all_agree(ok)) {
    cudaGetLastError();  // a refused query above is no error of the run
    return nullptr;
  }
  for (int side = 0; side < 2 && ok; ++side) {
    const int n = neighbour[side];
    if (n < 0 || n >= ranks || !linked(r, nf, side)) continue;
    const Record& o = all[static_cast<std::size_t>(n)];
    for (int p = 0; p < 2 && ok; ++p) {
      void* ptr = nullptr;
      ok = cudaIpcOpenMemHandle(&ptr, o.state[p], cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
      impl->peer_state[side][p] = static_cast<float*>(ptr);
    }
    void* f = nullptr;
    ok = ok && cudaIpcOpenMemHandle(&f, o.flags, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess;
    impl->peer_flags[side] = static_cast<int*>(f);
    impl->peer_nf[side] = o.nf;
    // Sent down, the traffic lands in the lower rank's upper halo; sent up, in the upper rank's lower one.
    impl->land[side] = side == 0 ? o.recv_upper_begin : 0;
  }
  if (!host.all_agree(ok)) {
    cudaGetLastError();
    return nullptr;  // Impl's destructor unmaps what was mapped
  }
  return std::unique_ptr<IpcHalo>(new IpcHalo(std::move(impl)));
}

StepExchange IpcHalo::step(int parity, bool push, bool receive) const {
  const Impl& m = *impl_;
  StepExchange x;
  x.push = push;
  x.receive = receive;
  x.blocks_done = m.blocks_done.get();
  int* const flags = m.flags.get();
  for (int side = 0; side < 2; ++side) {
    if (!m.peer_flags[side]) continue;
    const int begin = side == 0 ? m.r.send_lower_begin : m.r.send_upper_begin;
    const int end = side == 0 ? m.r.send_lower_end : m.r.send_upper_end;
    const bool sends = end > begin, receives = side == 0 ? m.r.recv_lower_end > 0 : m.nf > m.r.recv_upper_begin;
    // The lower neighbour's flags "from upper" are this rank's, and the upper one's "from lower".
    if (push && sends) {
      x.to[side] = m.peer_state[side][parity] + m.land[side];
      x.to_stride[side] = m.peer_nf[side];
      x.send_begin[side] = begin;
      x.send_end[side] = end;
      x.ready_from[side] = flags + (side == 0 ? k_ready_from_lower : k_ready_from_upper);
      x.done_to[side] = m.peer_flags[side] + (side == 0 ? k_done_from_upper : k_done_from_lower);
    }
    if (push && receives) x.ready_to[side] = m.peer_flags[side] + (side == 0 ? k_ready_from_upper : k_ready_from_lower);
    if (receive && receives) x.done_from[side] = flags + (side == 0 ? k_done_from_lower : k_done_from_upper);
  }
  return x;
}

}  // namespace mrwb::gpu
