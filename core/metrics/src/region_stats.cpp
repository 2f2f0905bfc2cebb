#include "mrwb/metrics/region_stats.hpp"

#include <algorithm>
#include <cmath>

namespace mrwb {

RegionStats region_stats(const std::vector<float>& values, int nx, int ny, int x0, int y0, int x1, int y1) {
  RegionStats r;
  r.x0 = std::clamp(std::min(x0, x1), 0, nx);
  r.x1 = std::clamp(std::max(x0, x1), 0, nx);
  r.y0 = std::clamp(std::min(y0, y1), 0, ny);
  r.y1 = std::clamp(std::max(y0, y1), 0, ny);
  if (values.size() != static_cast<std::size_t>(nx) * ny) return r;
  double sum = 0, sum2 = 0;
  for (int y = r.y0; y < r.y1; ++y)
    for (int x = r.x0; x < r.x1; ++x) {
      const double v = values[static_cast<std::size_t>(y) * nx + x];
      sum += v;
      sum2 += v * v;
    }
  r.pixels = static_cast<long>(r.x1 - r.x0) * (r.y1 - r.y0);
  if (r.pixels == 0) return r;
  r.mean = sum / r.pixels;
  r.sd = std::sqrt(std::max(0.0, sum2 / r.pixels - r.mean * r.mean));
  return r;
}

}  // namespace mrwb
