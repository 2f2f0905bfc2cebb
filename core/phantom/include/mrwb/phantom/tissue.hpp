#pragma once
// Tissue relaxation, proton-density and diffusion values at 1.5 T and 3 T. Every value is cited next to it in
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
  // Apparent diffusion coefficient at 37 C [m^2/s] (1e-6 of the mm^2/s figures papers quote); one value at
  // both fields. Phantoms carry it per cell (CellPhantom::ADC_m2_per_s); the extended phase graph
  // (mrwb/simulation/extended_phase_graph.hpp) and the CPU engine's cell states diffuse with it.
  double ADC_m2_per_s = 0;
};

// An apparent diffusion coefficient with the study it comes from, including tissues the table has no
// relaxation values for (free water, grey and white matter): for teaching and for diffusion references.
struct DiffusionReference {
  const char* name;
  double ADC_m2_per_s;
  const char* source;  // authors, year, what was measured
};
// free_water, csf, blood, grey_matter, white_matter, muscle, liver, fat, in that order.
const std::vector<DiffusionReference>& diffusion_references();

// Tissues known at 1.5 T. Throws InputError naming `where` for an unknown name.
const TissueProperties& tissue_1p5T(std::string_view name, std::string_view where = "tissue");
std::vector<std::string> tissue_names_1p5T();
// The same tissues at 3 T.
const TissueProperties& tissue_3T(std::string_view name, std::string_view where = "tissue");
// field_T must be 1.5 or 3 (InputError otherwise).
const TissueProperties& tissue_at(double field_T, std::string_view name, std::string_view where = "tissue");

}  // namespace mrwb
