#include "mrwb/base/cuda_backends.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <utility>

#include "mrwb/base/version.hpp"

namespace mrwb {
namespace {

constexpr const char* k_module_file = "libmrwb_cuda.so";
// The module's one entry point: registers every CUDA backend with core's registries (through
// gpu::register_backends(), which calls note_cuda_backends_registered). Returns nullptr, or why it refused.
constexpr const char* k_module_entry = "mrwb_cuda_module_register";
using ModuleEntry = const char* (*)(const char* program_version);

struct State {
  std::mutex mutex;
  CudaStartTimes start_times;
  bool registered = false;
  CudaDeviceHooks hooks;
  std::string missing = "this build has no CUDA backend";
};

State& state() {
  static State s;
  return s;
}

void set_missing(std::string why) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.registered) s.missing = std::move(why);
}

// The module beside the program (the build tree), then where cmake --install puts it.
std::filesystem::path find_module() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const std::filesystem::path dir = exe.parent_path();
  std::filesystem::path candidates[] = {dir / k_module_file,
#ifdef MRWB_INSTALLED_CUDA_MODULE
                                        dir / MRWB_INSTALLED_CUDA_MODULE
#endif
  };
  for (const auto& p : candidates)
    if (!p.empty() && std::filesystem::is_regular_file(p, ec)) return p;
  return {};
}

// The module this process would load, or empty with the reason set (nothing to load, or not here).
std::filesystem::path module_to_load() {
  if (cuda_backends_registered()) return {};  // linked in (the tests, mrwb-bench)
  const char* off = std::getenv("MRWB_CUDA");
  if (off && std::string_view(off) == "0") return set_missing("MRWB_CUDA=0"), std::filesystem::path{};
  if (const char* forced = std::getenv("MRWB_CUDA_MODULE"); forced && *forced) return forced;
  std::filesystem::path path = find_module();
  if (path.empty()) return {};  // a CPU-only build, or a program without the module beside it
  // Without the driver the CUDA runtime finds no device anyway; the libraries need not be mapped to say so.
  if (access("/dev/nvidiactl", F_OK) != 0) return set_missing("no NVIDIA driver here (/dev/nvidiactl)"), std::filesystem::path{};
  return path;
}

// The driver's start (cuInit, then device 0's primary context, about 0.2 s on an H200) through the driver
// library alone, so that it runs beside the module's loading (about 0.1 s); the runtime in the module then
// finds the primary context made. The reference is kept for the process's life. Failures are left to the
// runtime, which reports them.
void start_driver_context() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return;
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using Retain = int (*)(void**, int);
  const auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  const auto device_get = reinterpret_cast<DeviceGet>(dlsym(cuda, "cuDeviceGet"));
  const auto retain = reinterpret_cast<Retain>(dlsym(cuda, "cuDevicePrimaryCtxRetain"));
  int device = 0;
  void* context = nullptr;
  if (init && device_get && retain && init(0) == 0 && device_get(&device, 0) == 0) retain(&context, device);
}

void load_module() {
  const std::filesystem::path path = module_to_load();
  if (path.empty()) return;
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed: its code is registered
  if (!module) {
    const char* e = dlerror();
    return set_missing(path.string() + ": " + (e ? e : "cannot be loaded"));
  }
  const auto entry = reinterpret_cast<ModuleEntry>(dlsym(module, k_module_entry));
  if (!entry) return set_missing(path.string() + ": no " + k_module_entry + " (not a workbench CUDA module)");
  if (const char* refused = entry(version_string)) return set_missing(path.string() + ": " + refused);
}

}  // namespace

void note_cuda_backends_registered(CudaDeviceHooks hooks) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.registered = true;
  s.missing.clear();
  s.hooks = std::move(hooks);
}

void load_cuda_backends() {
  static std::once_flag once;
  std::call_once(once, load_module);
}

bool cuda_backends_registered() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.registered;
}

std::string cuda_backends_missing_reason() {
  load_cuda_backends();
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.missing;
}

namespace {
CudaDeviceHooks loaded_hooks() {
  load_cuda_backends();
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.hooks;
}
}  // namespace

bool cuda_device_available() {
  const CudaDeviceHooks h = loaded_hooks();
  return h.available && h.available();
}

std::string cuda_device_description() {
  const CudaDeviceHooks h = loaded_hooks();
  return h.description ? h.description() : cuda_backends_missing_reason();
}

namespace {
void note_start_step(std::optional<CudaStartTimes::Clock::time_point> CudaStartTimes::*step) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.start_times.*step = CudaStartTimes::Clock::now();
}
}  // namespace

CudaStartTimes cuda_start_times() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.start_times;
}

CudaStart::CudaStart()
    : thread_([] {
        note_start_step(&CudaStartTimes::began);
        std::thread driver;
        if (!module_to_load().empty()) driver = std::thread(start_driver_context);
        const CudaDeviceHooks h = loaded_hooks();
        note_start_step(&CudaStartTimes::module_loaded);
        if (driver.joinable()) driver.join();
        if (h.start_context) h.start_context();
        if (h.start_context) note_start_step(&CudaStartTimes::context_made);
      }) {}

CudaStart::~CudaStart() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace mrwb
