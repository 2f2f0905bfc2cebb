#pragma once
// Progress reporting and cooperative cancellation for long jobs (simulation, reconstruction).
#include <atomic>
#include <functional>
#include <memory>
#include <string_view>

#include "mrwb/base/errors.hpp"

namespace mrwb {

// fraction in [0, 1]; stage is a short label ("simulate", "recon").
using ProgressFn = std::function<void(double fraction, std::string_view stage)>;

// Shared flag: the UI thread sets it, the worker polls it at least every ~100 ms of work.
class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return flag_->load(std::memory_order_relaxed); }
  void throw_if_cancelled() const {
    if (cancelled()) throw Cancelled();
  }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

}  // namespace mrwb
