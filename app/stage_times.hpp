#pragma once
// `--verbose`: where a command's time went, one line on stderr when it ends, e.g.
//   times: start 0.021 s, read 0.004 s, maps 0.212 s, recon 0.081 s, write 0.006 s; total 0.324 s;
//   cuda on its own thread: module 0.093 s, context 0.226 s, ready at 0.335 s
// "start" is the process's start up to the verb (loading the program and its libraries; the kernel counts
// it in 10 ms ticks); the cuda part is CudaStart's (base/cuda_backends.hpp), overlapping the stages.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace mrwb::cli {

class StageTimes {
 public:
  explicit StageTimes(bool enabled);
  // The time since the previous mark (or since the verb began) was `stage`'s.
  void mark(const std::string& stage);
  std::string line() const;
  // The line on stderr, when enabled.
  void print() const;

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point process_start_, last_;
  std::vector<std::pair<std::string, double>> stages_;
};

}  // namespace mrwb::cli
