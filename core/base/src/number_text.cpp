#include "mrwb/base/number_text.hpp"

#include <sstream>

namespace mrwb {

std::string number_text(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string fixed_number_text(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace mrwb
