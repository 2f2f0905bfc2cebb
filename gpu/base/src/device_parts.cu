#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "mrwb/base/errors.hpp"
#include "mrwb_gpu/base/cuda_check.hpp"
#include "mrwb_gpu/base/device_parts.hpp"

namespace mrwb::gpu {

int resolve_gpu_parts(int requested, const char* option) {
  if (requested < 0 || requested > 64)
    throw InputError(std::string(option) + " " + std::to_string(requested) +
                     ": out of range (allowed: 0 for every visible GPU, or 1 to 64)");
  if (requested > 0) return requested;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) return 1;
  return n;
}

void run_device_parts(int parts, const std::function<void(int, int)>& f) {
  int count = 0, home = 0;
  cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  cuda_check(cudaGetDevice(&home), "cudaGetDevice");
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
  auto run = [&](int p) {
    try {
      const int device = (home + p) % count;
      cuda_check(cudaSetDevice(device), "cudaSetDevice");
      f(p, device);
    } catch (...) {
      errors[static_cast<std::size_t>(p)] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (int p = 1; p < parts; ++p) threads.emplace_back(run, p);
  run(0);
  for (auto& t : threads) t.join();
  cuda_check(cudaSetDevice(home), "cudaSetDevice");
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace mrwb::gpu
