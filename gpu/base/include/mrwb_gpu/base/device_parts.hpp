#pragma once
// Work split over the GPUs of one process (Stone et al. 2008 split F^H d over four GPUs by voxels): part p
// runs on device (home + p) mod count, `home` the calling thread's device, each part in its own host thread
// (part 0 on the calling thread, so its context and buffers stay usable there). More parts than devices
// share devices, which lets one GPU test the split. No CUDA type here.
#include <cstddef>
#include <functional>

namespace mrwb::gpu {

// The number of parts `requested` means: 0: every visible device; n >= 1: n. Throws InputError naming
// `option` and the allowed range for n < 0 or n > 64.
int resolve_gpu_parts(int requested, const char* option);
// Runs f(part, device) for every part, the device current in f's thread; waits for all, then rethrows the
// first part's exception, if any.
void run_device_parts(int parts, const std::function<void(int part, int device)>& f);
// A part's share of the work: range_begin (mrwb/base/parallel_ranges.hpp), the one equal split.

}  // namespace mrwb::gpu
