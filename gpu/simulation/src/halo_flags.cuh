#pragma once
// The flags GPU ranks on one host write into each other's device memory for their halo handshakes (ipc_halo.hpp):
// exchange numbers that only grow, so a flag is never reset and a graph replayed many times numbers each anew.

namespace mrwb::gpu {

// Writes exchange number v into a flag (this or another GPU's); the caller fences what must be seen before it.
__device__ __forceinline__ void set_flag(int* flag, int v) { *reinterpret_cast<volatile int*>(flag) = v; }

// Waits until a flag written by another GPU reaches v; the fence orders this thread's later loads and stores
// after what the writer fenced before the flag.
__device__ __forceinline__ void wait_flag(const int* flag, int v) {
  while (*reinterpret_cast<const volatile int*>(flag) < v) __nanosleep(32);
  __threadfence_system();
}

}  // namespace mrwb::gpu
