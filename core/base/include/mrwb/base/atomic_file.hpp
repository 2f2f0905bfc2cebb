#pragma once
// Write-to-temporary-then-rename, so a failed or cancelled write never leaves a partial output file.
#include <filesystem>
#include <string>

namespace mrwb {

class AtomicOutput {
 public:
  explicit AtomicOutput(const std::string& target);
  ~AtomicOutput();  // removes the temporary unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  const std::string& temp_path() const { return temp_; }
  void commit();  // renames the temporary onto the target

 private:
  std::string target_, temp_;
  bool committed_ = false;
};

// Throws InputError if the folder of `path` does not exist or is not writable.
void require_output_folder(const std::string& path);

}  // namespace mrwb
