#include "ipc_halo.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "mrwb_gpu/base/cuda_check.hpp"

namespace mrwb::gpu {
namespace {

// Flags of a rank, written by its neighbours: ready and done, from the lower and from the upper one.
enum Flag { k_ready_from_lower = 0, k_ready_from_upper = 1, k_done_from_lower = 2, k_done_from_upper = 3, k_flags = 4 };

// Writes exchange number *counter + offset into the neighbours' flags. It runs after this rank's earlier work on
// the stream (kernels and copies) has finished; the fence orders that work's writes before the flags'.
__global__ void halo_signal(int* lower_flag, int* upper_flag, const int* counter, int offset) {
  const int v = *counter + offset;
  __threadfence_system();
  if (lower_flag) *reinterpret_cast<volatile int*>(lower_flag) = v;
  if (upper_flag) *reinterpret_cast<volatile int*>(upper_flag) = v;
}

// Waits until this rank's flags (nullptr: no such neighbour) reach exchange number *counter + offset.
__global__ void halo_wait(const int* from_lower, const int* from_upper, const int* counter, int offset) {
  const int v = *counter + offset;
  if (from_lower)
    while (*reinterpret_cast<const volatile int*>(from_lower) < v) __nanosleep(32);
  if (from_upper)
    while (*reinterpret_cast<const volatile int*>(from_upper) < v) __nanosleep(32);
  __threadfence_system();
}

// One neighbour's traffic for halo_push: the three arrays' [0, count) of `from` (arrays nf apart) into `to`
// (arrays to_stride apart, the neighbour's nf); count 0: none.
struct PushSide {
  float* to = nullptr;
  const float* from = nullptr;
  int count = 0, to_stride = 0;
};
struct PushArgs {
  PushSide side[2];          // to the lower and to the upper neighbour
  int from_stride = 0;       // this rank's nf
  int* ready_to[2] = {};     // the neighbours' flags this rank writes (null: no such neighbour)
  int* done_to[2] = {};
  const int* ready_from[2] = {};  // this rank's flags the neighbours write
  const int* done_from[2] = {};
  unsigned* blocks_done = nullptr;  // blocks of this launch that have stored their share (0 between launches)
  const int* counter = nullptr;
  int offset = 0;
};

// The whole exchange in one kernel: block 0 signals ready; every block waits for the neighbours' ready, stores its
// share of the traffic into their buffers, and fences; the last block to finish signals done and waits for the
// neighbours' done. Every block is resident at once (a few per SM at most), and a flag waited on is written by
// the other GPU, so no block waits on another of its own grid.
__global__ void halo_push(PushArgs a) {
  const int v = *a.counter + a.offset;
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) {
      __threadfence_system();  // this rank's steps (finished before this launch) before the flags
      for (int s = 0; s < 2; ++s)
        if (a.ready_to[s]) *reinterpret_cast<volatile int*>(a.ready_to[s]) = v;
    }
    for (int s = 0; s < 2; ++s)
      if (a.ready_from[s])
        while (*reinterpret_cast<const volatile int*>(a.ready_from[s]) < v) __nanosleep(32);
    __threadfence_system();
  }
  __syncthreads();
  const long n0 = 3L * a.side[0].count, total = n0 + 3L * a.side[1].count;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < total; i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int s = i < n0 ? 0 : 1;
    const long j = s == 0 ? i : i - n0, count = a.side[s].count;
    const long k = j / count, e = j - k * count;
    a.side[s].to[k * a.side[s].to_stride + e] = a.side[s].from[k * a.from_stride + e];
  }
  __threadfence_system();  // this thread's stores before the block's count
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(a.blocks_done, 1u) == gridDim.x - 1) {
    *a.blocks_done = 0;
    __threadfence_system();  // every block's stores before the flags
    for (int s = 0; s < 2; ++s)
      if (a.done_to[s]) *reinterpret_cast<volatile int*>(a.done_to[s]) = v;
    for (int s = 0; s < 2; ++s)
      if (a.done_from[s])
        while (*reinterpret_cast<const volatile int*>(a.done_from[s]) < v) __nanosleep(32);
    __threadfence_system();
  }
}

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
  DeviceBuffer<unsigned> blocks_done{1};
  bool copy_engines = false;
  int push_blocks = 1;
  std::array<float*, 2> mine{};
  int nf = 0;
  FluidHaloRanges r;
  // Per neighbour (0 lower, 1 upper): its mapped state buffers and flags, its array length, and where this
  // rank's traffic lands in each of its arrays. Null when the neighbour is missing.
  std::array<std::array<float*, 2>, 2> peer_state{};
  std::array<int*, 2> peer_flags{};
  std::array<int, 2> peer_nf{}, land{};
  std::array<cudaStream_t, 6> side{};  // the copies run side by side
  cudaEvent_t fork = nullptr;
  std::array<cudaEvent_t, 6> join{};

  ~Impl() {
    for (auto& s : peer_state)
      for (float* p : s)
        if (p) cudaIpcCloseMemHandle(p);
    for (int* p : peer_flags)
      if (p) cudaIpcCloseMemHandle(p);
    for (cudaStream_t s : side)
      if (s) cudaStreamDestroy(s);
    for (cudaEvent_t e : join)
      if (e) cudaEventDestroy(e);
    if (fork) cudaEventDestroy(fork);
  }
};

IpcHalo::IpcHalo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

IpcHalo::~IpcHalo() {
  cudaStreamSynchronize(impl_->stream);
  if (std::uncaught_exceptions() == 0) impl_->host->all_agree(true);
}

const char* IpcHalo::how() const { return impl_->copy_engines ? "by the copy engines" : "by peer stores"; }

std::unique_ptr<IpcHalo> IpcHalo::open(RankComm& host, std::array<float*, 2> state, int nf, const FluidHaloRanges& r,
                                       cudaStream_t stream, bool copy_engines) {
  auto impl = std::make_unique<Impl>();
  impl->host = &host;
  impl->stream = stream;
  impl->mine = state;
  impl->nf = nf;
  impl->r = r;
  impl->copy_engines = copy_engines;
  // Zeroed before any rank passes the agreements below, after which a neighbour may signal.
  cuda_check(cudaMemset(impl->flags.get(), 0, k_flags * sizeof(int)), "memset");
  cuda_check(cudaMemset(impl->blocks_done.get(), 0, sizeof(unsigned)), "memset");
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
  // Peer stores: about 4 elements a thread of 256 per block, at most 2 blocks an SM (all resident).
  int sms = 1;
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const long traffic = 3L * ((r.send_lower_end - r.send_lower_begin) + (r.send_upper_end - r.send_upper_begin));
  impl->push_blocks = static_cast<int>(std::clamp<long>((traffic + 1023) / 1024, 1, 2L * sms));
  for (auto& s : impl->side) cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  cuda_check(cudaEventCreateWithFlags(&impl->fork, cudaEventDisableTiming), "cudaEventCreate");
  for (auto& e : impl->join) cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  return std::unique_ptr<IpcHalo>(new IpcHalo(std::move(impl)));
}

void IpcHalo::enqueue(int parity, const int* counter, int offset, cudaStream_t stream) {
  Impl& m = *impl_;
  int* const flags = m.flags.get();
  const bool lower = m.peer_flags[0] != nullptr, upper = m.peer_flags[1] != nullptr;
  if (!m.copy_engines) {
    PushArgs a;
    for (int side = 0; side < 2; ++side) {
      if (!m.peer_flags[side]) continue;
      const int begin = side == 0 ? m.r.send_lower_begin : m.r.send_upper_begin;
      const int end = side == 0 ? m.r.send_lower_end : m.r.send_upper_end;
      if (end > begin) a.side[side] = {m.peer_state[side][parity] + m.land[side], m.mine[parity] + begin, end - begin, m.peer_nf[side]};
      // The lower neighbour's flags "from upper" are this rank's, and the upper one's "from lower".
      a.ready_to[side] = m.peer_flags[side] + (side == 0 ? k_ready_from_upper : k_ready_from_lower);
      a.done_to[side] = m.peer_flags[side] + (side == 0 ? k_done_from_upper : k_done_from_lower);
      a.ready_from[side] = flags + (side == 0 ? k_ready_from_lower : k_ready_from_upper);
      a.done_from[side] = flags + (side == 0 ? k_done_from_lower : k_done_from_upper);
    }
    a.from_stride = m.nf;
    a.blocks_done = m.blocks_done.get();
    a.counter = counter;
    a.offset = offset;
    halo_push<<<m.push_blocks, 256, 0, stream>>>(a);
    cuda_check(cudaGetLastError(), "halo push launch");
    return;
  }
  auto handshake = [&](Flag to_lower, Flag to_upper, Flag from_lower, Flag from_upper) {
    halo_signal<<<1, 1, 0, stream>>>(lower ? m.peer_flags[0] + to_lower : nullptr, upper ? m.peer_flags[1] + to_upper : nullptr,
                                     counter, offset);
    halo_wait<<<1, 1, 0, stream>>>(lower ? flags + from_lower : nullptr, upper ? flags + from_upper : nullptr, counter, offset);
  };
  // The lower neighbour's flags "from upper" are this rank's, and the upper one's "from lower".
  handshake(k_ready_from_upper, k_ready_from_lower, k_ready_from_lower, k_ready_from_upper);
  cuda_check(cudaEventRecord(m.fork, stream), "cudaEventRecord");
  const std::size_t n = static_cast<std::size_t>(m.nf);
  int copies = 0;
  for (int side = 0; side < 2; ++side) {
    if (!m.peer_flags[side]) continue;
    const int begin = side == 0 ? m.r.send_lower_begin : m.r.send_upper_begin;
    const int end = side == 0 ? m.r.send_lower_end : m.r.send_upper_end;
    if (end <= begin) continue;
    for (int k = 0; k < 3; ++k, ++copies) {
      cudaStream_t s = m.side[static_cast<std::size_t>(copies)];
      cuda_check(cudaStreamWaitEvent(s, m.fork, 0), "cudaStreamWaitEvent");
      float* to = m.peer_state[side][parity] + static_cast<std::size_t>(k) * static_cast<std::size_t>(m.peer_nf[side]) + m.land[side];
      const float* from = m.mine[parity] + static_cast<std::size_t>(k) * n + begin;
      cuda_check(cudaMemcpyAsync(to, from, static_cast<std::size_t>(end - begin) * sizeof(float), cudaMemcpyDefault, s),
                 "halo copy");
      cuda_check(cudaEventRecord(m.join[static_cast<std::size_t>(copies)], s), "cudaEventRecord");
      cuda_check(cudaStreamWaitEvent(stream, m.join[static_cast<std::size_t>(copies)], 0), "cudaStreamWaitEvent");
    }
  }
  handshake(k_done_from_upper, k_done_from_lower, k_done_from_lower, k_done_from_upper);
  cuda_check(cudaGetLastError(), "halo handshake launch");
}

}  // namespace mrwb::gpu
