#pragma once
#include <string>

// The ranges of the sequence parameters a user sets, stated once: the scenario reader checks a file's
// values against them (and names them in its message), and the sequence builders hold their own callers
// to the same ranges, so a value the reader accepts is one the builder can build.
namespace mrwb::seq {

struct ParamRange {
  double lo;
  bool lo_open;  // true: lo itself is not allowed
  double hi;
  bool hi_open;
  const char* unit;  // "" for counts
  constexpr bool contains(double v) const { return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi); }
};

namespace limits {
inline constexpr ParamRange fov_m{0.01, false, 1.0, false, "m"};
inline constexpr ParamRange matrix{8, false, 1024, false, ""};  // and even
inline constexpr ParamRange flip_angle_deg{0, true, 180, false, "deg"};
inline constexpr ParamRange bandwidth_Hz_per_pixel{50, false, 5000, false, "Hz"};
inline constexpr ParamRange dummy_scans{0, false, 10000, false, ""};
}  // namespace limits

// "[lo, hi] unit" (a parenthesis for an open end), as the refusals state it.
std::string text(const ParamRange& r);

}  // namespace mrwb::seq
