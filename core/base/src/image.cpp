#include "mrwb/base/image.hpp"

namespace mrwb {

std::vector<float> Image2D::magnitude() const {
  std::vector<float> m(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) m[i] = std::abs(data[i]);
  return m;
}

}  // namespace mrwb
