#include "mrwb/tissue.hpp"

#include <array>

#include "mrwb/errors.hpp"

namespace mrwb {
namespace {

// Relaxation times at 1.5 T: Stanisz GJ, Odrobina EE, Pun J, et al. "T1, T2 relaxation and
// magnetization transfer in tissue at 3T", Magn Reson Med 2005;54:507-512, Table 1 (1.5 T column):
//   skeletal muscle T1 = 1008 ms, T2 = 44 ms; blood T1 = 1441 ms, T2 = 290 ms.
// Proton density relative to water, taken as the tissue's water content:
//   skeletal muscle 0.79 (ICRP Publication 23, Reference Man, 1975: 79 % water by mass);
//   whole blood 0.87 (Herscovitch P, Raichle ME, J Cereb Blood Flow Metab 1985;5:65-69: 0.87 mL water/mL).
const std::array<TissueProperties, 2> k_tissues_1p5T = {{
    {"muscle", 0.79, 1.008, 0.044},
    {"blood", 0.87, 1.441, 0.290},
}};

}  // namespace

const TissueProperties& tissue_1p5T(std::string_view name, std::string_view where) {
  for (const auto& t : k_tissues_1p5T)
    if (t.name == name) return t;
  std::string allowed;
  for (const auto& t : k_tissues_1p5T) allowed += (allowed.empty() ? "" : ", ") + t.name;
  throw InputError(std::string(where) + ": unknown tissue '" + std::string(name) + "' (allowed: " + allowed + ")");
}

std::vector<std::string> tissue_names_1p5T() {
  std::vector<std::string> names;
  for (const auto& t : k_tissues_1p5T) names.push_back(t.name);
  return names;
}

}  // namespace mrwb
