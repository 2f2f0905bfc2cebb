#include "mrwb/base/atomic_file.hpp"

#include <unistd.h>

#include <atomic>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace fs = std::filesystem;

AtomicOutput::AtomicOutput(const std::string& target) : target_(target) {
  require_output_folder(target);
  static std::atomic<int> counter{0};
  // Keep the extension last: some libraries pick the format from it.
  const fs::path p(target);
  temp_ = (p.parent_path() / ("." + p.stem().string() + ".tmp" + std::to_string(::getpid()) + "_" +
                              std::to_string(counter++) + p.extension().string()))
              .string();
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ec;
    fs::remove(temp_, ec);
  }
}

void AtomicOutput::commit() {
  std::error_code ec;
  fs::rename(temp_, target_, ec);
  if (ec) throw std::runtime_error(target_ + ": cannot write (" + ec.message() + ")");
  committed_ = true;
}

void require_output_folder(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent))
    throw InputError(path + ": output folder '" + parent.string() + "' does not exist");
  // Checked up front too, so a command refuses before its work rather than failing at the end.
  const fs::path folder = parent.empty() ? fs::path(".") : parent;
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw InputError(path + ": output folder '" + folder.string() + "' is not writable");
}

}  // namespace mrwb
