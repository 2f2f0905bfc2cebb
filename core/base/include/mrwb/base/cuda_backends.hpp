#pragma once
// Where the CUDA backends come from. A program built with CUDA finds them in a module beside it
// (libmrwb_cuda.so; installed in lib/mrwb/), loaded the first time a command asks for `auto` or `cuda`,
// so that a command that stays on the CPU never maps the CUDA libraries (cuFFT, cuBLAS, cuSOLVER, ...:
// about 280 MB of resident memory and 0.1-0.2 s at start). Programs that link gpu/ themselves (the tests,
// mrwb-bench) call gpu::register_backends() directly and never load the module.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace mrwb {

// The device facts the module hands over with its backends (the CLI and the GUI show them).
struct CudaDeviceHooks {
  std::function<bool()> available;           // a device is there and usable
  std::function<std::string()> description;  // "NVIDIA H200, 139.8 GiB, sm_90, 132 SMs" or why there is none
  // Makes device 0's context (the first call's cost, paid early). Nothing more: a library started on this
  // thread (a cuBLAS handle, a cuFFT plan) works on the legacy stream, which broke the simulation engine's
  // graph capture on the command's thread ("operation failed due to a previous error during capture").
  std::function<void()> start_context;
};

// Called by gpu::register_backends(): the CUDA backends are registered in this process.
void note_cuda_backends_registered(CudaDeviceHooks hooks);

// Loads the module and registers its backends, once; a second caller waits for the first. Does nothing
// when the backends are already here, with MRWB_CUDA=0, without an NVIDIA driver (/dev/nvidiactl), or when
// the program has no module beside it. MRWB_CUDA_MODULE=path loads that file, driver or not.
void load_cuda_backends();

// True once the CUDA backends are registered (after load_cuda_backends() or gpu::register_backends()).
bool cuda_backends_registered();
// Why the CUDA backends are not here ("" when they are): "this build has no CUDA backend", "no NVIDIA
// driver here (/dev/nvidiactl)", "MRWB_CUDA=0", or the loader's own message for a module that failed.
std::string cuda_backends_missing_reason();
// A device is usable (loads the module first).
bool cuda_device_available();
// The device, or why there is none (loads the module first).
std::string cuda_device_description();

// What CudaStart's thread has done so far (`--verbose` prints it): when it began, loaded the module and made
// the context; a step not (yet) done is nullopt.
struct CudaStartTimes {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> began, module_loaded, context_made;
};
CudaStartTimes cuda_start_times();

// Loads the module and makes the device's context on a thread of its own, so that a command reading its
// inputs meanwhile finds both done (the first CUDA call elsewhere waits for the loader, then for the
// context). Starts no thread when there is no module to load. Joined on destruction.
class CudaStart {
 public:
  CudaStart();
  ~CudaStart();
  CudaStart(const CudaStart&) = delete;
  CudaStart& operator=(const CudaStart&) = delete;

 private:
  std::thread thread_;
};

// Returns once a CudaStart's thread, if one runs, has finished. A fork() while that thread is inside the
// loader or the allocator (dlopen of the CUDA libraries, the driver's start) leaves the child waiting on a
// lock no thread of its own holds: io's HDF5 probe (hdf5_isolation.hpp) waits here before it forks. Under
// clang 14's AddressSanitizer even the CPU-only start's few allocations hung such children.
void wait_for_cuda_start();

}  // namespace mrwb
