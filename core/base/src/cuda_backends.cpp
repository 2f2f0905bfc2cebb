#include "mrwb/base/cuda_backends.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <condition_variable>
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
  bool start_running = false;  // a CudaStart's thread is at work
  std::condition_variable start_finished;
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

// The context after the module, not beside it: starting the driver's context through libcuda on a second
// thread while the module loaded was tried, and the context was ready no sooner (0.34 - 0.37 s after the
// start on an H200). No thread when there is nothing to load (a CPU-only build, no driver, MRWB_CUDA=0).
CudaStart::CudaStart() {
  if (module_to_load().empty()) return;
  {
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.start_running = true;
  }
  thread_ = std::thread([] {
    note_start_step(&CudaStartTimes::began);
    const CudaDeviceHooks h = loaded_hooks();
    note_start_step(&CudaStartTimes::module_loaded);
    if (h.start_context) {
      h.start_context();
      note_start_step(&CudaStartTimes::context_made);
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    s.start_running = false;
    s.start_finished.notify_all();
  });
}

void wait_for_cuda_start() {
  State& s = state();
  std::unique_lock lock(s.mutex);
  s.start_finished.wait(lock, [&s] { return !s.start_running; });
}

CudaStart::~CudaStart() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace mrwb
