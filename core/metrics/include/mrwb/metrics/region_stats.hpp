#pragma once
// Statistics of a rectangular region of an image: what a region of interest reports in the views and what
// a parameter sweep plots. SNR here is the region's mean over its standard deviation (a uniform region's
// signal over its noise).
#include <vector>

namespace mrwb {

struct RegionStats {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the region as used: pixels [x0, x1) x [y0, y1), clipped to the image
  long pixels = 0;
  double mean = 0, sd = 0;             // sd: population standard deviation
  double snr() const { return sd > 0 ? mean / sd : 0.0; }
};

// values: nx*ny row-major (row 0 at the bottom, as Image2D). The region is clipped to the image; an empty
// one gives pixels = 0 and zeros.
RegionStats region_stats(const std::vector<float>& values, int nx, int ny, int x0, int y0, int x1, int y1);

}  // namespace mrwb
