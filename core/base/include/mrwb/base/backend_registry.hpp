#pragma once
// Backends by (what, backend): `what` names the product (a reconstruction method, "engine", "volume"),
// `backend` the implementation (Backend::Cpu, Backend::Cuda). core registers Cpu; gpu/ registers Cuda in
// mrwb::gpu::register_backends(), which a program's CUDA module runs when it is first asked for
// (base/cuda_backends.hpp): choosing auto or cuda, or listing, loads it. The simulation engines (simulation/backend_registry.hpp), the
// reconstructors (recon/reconstructor.hpp) and the 3-D non-Cartesian volumes (recon/noncart_volume.hpp) each
// hold one BackendRegistry, so the `--backend auto | cpu | cuda` choice is written once (choose); each words
// the refusals as its own CLI message.
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/cuda_backends.hpp"
#include "mrwb/base/errors.hpp"

namespace mrwb {

template <class Factory>
struct BackendEntry {
  std::function<bool()> available;  // false: registered, not usable here (a CUDA build on a machine without a GPU)
  Factory make;                     // what makes the product: a function, or a struct of them
};

// An unknown name never gets here: it is refused where the text is parsed (parse_backend).
enum class BackendRefusal {
  Missing,      // `backend` is not registered for `what` (for auto: the cpu fallback)
  Unavailable,  // `backend` is registered but not available here
};
// The message of a refusal, thrown as InputError (the function may throw another error itself).
using BackendRefusalText = std::function<std::string(BackendRefusal why, Backend choice, Backend backend)>;

template <class Factory>
class BackendRegistry {
 public:
  using Entry = BackendEntry<Factory>;
  using Key = std::pair<std::string, Backend>;  // (what, backend)

  BackendRegistry() = default;
  explicit BackendRegistry(std::map<Key, Entry> builtin) : entries_(std::move(builtin)) {}

  // Adds or replaces (gpu/ registering twice keeps one entry).
  void add(const std::string& what, Backend backend, Entry e) {
    std::lock_guard lock(mutex_);
    entries_[{what, backend}] = std::move(e);
  }
  // A copy, so that the caller runs it without the lock (a device query, a reconstruction).
  std::optional<Entry> find(const std::string& what, Backend backend) const {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find({what, backend});
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  // The entries of `what`, by backend.
  std::vector<std::pair<Backend, Entry>> entries(const std::string& what) const {
    load_cuda_backends();
    std::lock_guard lock(mutex_);
    std::vector<std::pair<Backend, Entry>> out;
    for (const auto& [key, e] : entries_)
      if (key.first == what) out.emplace_back(key.second, e);
    return out;
  }

  // The `--backend` choice: auto takes cuda when it is registered and available, else cpu; cpu and cuda
  // take that backend. A missing or an unavailable backend: InputError(refuse(...)).
  Factory choose(const std::string& what, Backend choice, const BackendRefusalText& refuse) const {
    if (choice != Backend::Cpu) load_cuda_backends();
    if (choice == Backend::Auto)
      if (const auto cuda = find(what, Backend::Cuda); cuda && cuda->available()) return cuda->make;
    const Backend backend = choice == Backend::Auto ? Backend::Cpu : choice;
    const std::optional<Entry> e = find(what, backend);
    if (!e) throw InputError(refuse(BackendRefusal::Missing, choice, backend));
    if (!e->available()) throw InputError(refuse(BackendRefusal::Unavailable, choice, backend));
    return e->make;
  }

 private:
  mutable std::mutex mutex_;
  std::map<Key, Entry> entries_;
};

}  // namespace mrwb
