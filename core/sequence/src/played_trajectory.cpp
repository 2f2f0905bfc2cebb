// The trajectory a block sequence plays: the k of its ADC samples, from the conversion's exact gradient
// integrals, in the cycles-per-FOV convention of the non-Cartesian reconstruction.
#include <algorithm>
#include <string>

#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

namespace mrwb::seq {

noncart::Trajectory played_trajectory(const ProgramConversion& c, const double (&fov_m)[3], int dims,
                                      const std::string& source) {
  const std::string what = (source.empty() ? "" : source + ": ") + "non-Cartesian sequence: ";
  noncart::Trajectory t;
  t.dims = dims;
  t.readouts = c.adc_count;
  t.samples = c.adc_samples.empty() ? 0 : c.adc_samples.front();
  for (int n : c.adc_samples)
    if (n != t.samples)
      throw InputError(what + "ADCs of " + std::to_string(n) + " and " + std::to_string(t.samples) +
                       " samples (allowed: the same sample count in every ADC)");
  std::vector<int> seen(static_cast<std::size_t>(t.readouts), 0);
  for (int line : c.adc_line)
    if (line >= 0 && line < t.readouts) ++seen[static_cast<std::size_t>(line)];
  if (std::any_of(seen.begin(), seen.end(), [](int n) { return n != 1; }))
    throw InputError(what + "its " + std::to_string(c.adc_count) +
                     " ADCs need distinct LIN labels 0 .. ADCs - 1 (allowed: each line once, or no LIN labels)");
  t.k.assign(t.count() * dims, 0.f);
  for (int a = 0; a < c.adc_count; ++a)
    for (int i = 0; i < t.samples; ++i) {
      const std::size_t from = static_cast<std::size_t>(a) * t.samples + i;
      float* k = t.k.data() + (static_cast<std::size_t>(c.adc_line[a]) * t.samples + i) * dims;
      k[0] = static_cast<float>(c.kx[from] * fov_m[0]);
      k[1] = static_cast<float>(c.ky[from] * fov_m[1]);
      if (dims == 3) k[2] = static_cast<float>(c.kz[from] * fov_m[2]);
    }
  return t;
}

}  // namespace mrwb::seq
