#pragma once
#include <string>

namespace mrwb {

// A number as messages and tables state it: 6 significant digits, %g style ("0.001", "8.64e+10").
std::string number_text(double v);

}  // namespace mrwb
