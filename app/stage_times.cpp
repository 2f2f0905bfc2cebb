#include "stage_times.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "mrwb/base/cuda_backends.hpp"

namespace mrwb::cli {
namespace {

// Seconds since this process started: field 22 of /proc/self/stat (clock ticks after boot) against the
// boot-time clock; 0 where either cannot be read.
double seconds_since_process_start() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string f;
  for (int i = 3; i < 22 && fields >> f; ++i) {
  }
  unsigned long long ticks = 0;
  timespec now{};
  const long hz = sysconf(_SC_CLK_TCK);
  if (!(fields >> ticks) || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  const double s = now.tv_sec + now.tv_nsec * 1e-9 - static_cast<double>(ticks) / hz;
  return s > 0 ? s : 0;
}

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f s", s);
  return b;
}

}  // namespace

StageTimes::StageTimes(bool enabled) : enabled_(enabled), last_(Clock::now()) {
  process_start_ = last_;
  if (!enabled_) return;
  const double start = seconds_since_process_start();
  process_start_ = last_ - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(start));
  stages_.emplace_back("start", start);
}

void StageTimes::mark(const std::string& stage) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  stages_.emplace_back(stage, std::chrono::duration<double>(now - last_).count());
  last_ = now;
}

std::string StageTimes::line() const {
  const auto since = [this](Clock::time_point t) { return std::chrono::duration<double>(t - process_start_).count(); };
  std::string out = "times:";
  for (std::size_t i = 0; i < stages_.size(); ++i)
    out += (i ? ", " : " ") + stages_[i].first + " " + seconds(stages_[i].second);
  out += "; total " + seconds(since(last_));
  const CudaStartTimes c = cuda_start_times();
  if (c.began && c.module_loaded) {
    out += "; cuda on its own thread: module " + seconds(std::chrono::duration<double>(*c.module_loaded - *c.began).count());
    if (c.context_made)
      out += ", context " + seconds(std::chrono::duration<double>(*c.context_made - *c.module_loaded).count()) +
             ", ready at " + seconds(since(*c.context_made));
  }
  return out;
}

void StageTimes::print() const {
  if (enabled_) std::cerr << line() << "\n";
}

}  // namespace mrwb::cli
