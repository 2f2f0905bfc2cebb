#pragma once
// Tissue relaxation and proton-density values at 1.5 T and 3 T. Every value is cited next to it in
// tissue.cpp.
#include <string>
#include <string_view>
#include <vector>

namespace mrwb {

struct TissueProperties {
  std::string name;
  double PD = 0;      // proton density relative to pure water (0..1)
  double T1_s = 0;    // longitudinal relaxation time [s]
  double T2_s = 0;    // transverse relaxation time [s]
  double T2star_s = 0;  // effective transverse relaxation time T2* [s] (T2* <= T2)
};

// Tissues known at 1.5 T. Throws InputError naming `where` for an unknown name.
const TissueProperties& tissue_1p5T(std::string_view name, std::string_view where = "tissue");
std::vector<std::string> tissue_names_1p5T();
// The same tissues at 3 T.
const TissueProperties& tissue_3T(std::string_view name, std::string_view where = "tissue");
// field_T must be 1.5 or 3 (InputError otherwise).
const TissueProperties& tissue_at(double field_T, std::string_view name, std::string_view where = "tissue");

}  // namespace mrwb
