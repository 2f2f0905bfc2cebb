#pragma once
#include <string>

namespace mrwb {

// A number as messages and tables state it: 6 significant digits, %g style ("0.001", "8.64e+10").
std::string number_text(double v);

// A number as std::to_string writes it (%f, 6 decimals) less its trailing zeros and point: "0.5", "2",
// "0" for 1e-7. The recon and sequence messages that have always spoken in this form keep it.
std::string fixed_number_text(double v);

}  // namespace mrwb
