#include "mrwb/base/number_text.hpp"

#include <sstream>

namespace mrwb {

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

}  // namespace mrwb
