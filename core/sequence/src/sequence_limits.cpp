#include "mrwb/sequence/sequence_limits.hpp"

#include <sstream>

namespace mrwb::seq {

std::string text(const ParamRange& r) {
  std::ostringstream os;
  os << (r.lo_open ? "(" : "[") << r.lo << ", " << r.hi << (r.hi_open ? ")" : "]");
  if (*r.unit) os << " " << r.unit;
  return os.str();
}

}  // namespace mrwb::seq
