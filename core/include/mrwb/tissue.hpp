#pragma once
// Tissue relaxation and proton-density values. Sources are cited next to each value in tissue.cpp.
#include <string>
#include <string_view>
#include <vector>

namespace mrwb {

struct TissueProperties {
  std::string name;
  double PD = 0;    // proton density relative to pure water (0..1)
  double T1_s = 0;  // longitudinal relaxation time [s]
  double T2_s = 0;  // transverse relaxation time [s]
};

// Tissues known at 1.5 T. Throws InputError naming `where` for an unknown name.
const TissueProperties& tissue_1p5T(std::string_view name, std::string_view where = "tissue");
std::vector<std::string> tissue_names_1p5T();

}  // namespace mrwb
