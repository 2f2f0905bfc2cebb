#include "mrwb/tissue.hpp"

#include <array>
#include <cmath>

#include "mrwb/errors.hpp"

namespace mrwb {
namespace {

// Sources (numbers in brackets below refer to this list):
// [S]  Stanisz GJ, Odrobina EE, Pun J, et al. "T1, T2 relaxation and magnetization transfer in tissue at
//      3T", Magn Reson Med 2005;54:507-512, Table 1 (1.5 T and 3 T columns).
// [B]  de Bazelaire CMJ, Duhamel GD, Rofsky NM, Alsop DC. "MR imaging relaxation times of abdominal and
//      pelvic tissues measured in vivo at 3.0 T: preliminary results", Radiology 2004;230:652-659,
//      Table (1.5 T and 3 T): subcutaneous fat 1.5 T T1 343 ms, T2 58 ms; 3 T T1 382 ms, T2 68 ms.
// [L]  Lu H, Nagae-Poetscher LM, Golay X, et al. "Routine clinical brain MRI sequences for use at 3.0
//      Tesla", J Magn Reson Imaging 2005;22:13-22 (CSF T1 at 1.5 T and 3 T).
// [C]  Chavhan GB, Babyn PS, Thomas B, et al. "Principles, techniques, and applications of T2*-based
//      MR imaging and its special applications", RadioGraphics 2009;29:1433-1449 (T2* of tissues and
//      its field dependence, T2* roughly halving from 1.5 T to 3 T in iron-free tissue).
// [Z]  Zhao JM, Clingman CS, Närväinen MJ, et al. "Oxygenation and hematocrit dependence of transverse
//      relaxation rates of blood at 3T", Magn Reson Med 2007;58:592-597 (arterial blood T2, T2*).
// [I]  ICRP Publication 23, Reference Man, 1975 (water content by mass: muscle 79 %, liver 71 %,
//      adipose tissue 15 % water; fat protons are counted as in [H]).
// [H]  Herscovitch P, Raichle ME, J Cereb Blood Flow Metab 1985;5:65-69: whole blood 0.87 mL water/mL,
//      CSF ~1.0.
// PD of fat is the MR-visible proton density of adipose tissue relative to water, 0.9 (fat protons
// included; the water fraction alone would be 0.15 [I]).
// T2* values are apparent in-vivo values from [C] (fat, muscle, liver, CSF) and [Z] (blood); they depend
// on voxel size and shimming and are given only as typical figures.
// "background" is air/nothing: no signal.
const std::array<TissueProperties, 6> k_tissues_1p5T = {{
    {"muscle", 0.79, 1.008, 0.044, 0.031},        // T1, T2 [S]; PD [I]; T2* [C]
    {"blood", 0.87, 1.441, 0.290, 0.200},         // T1, T2 [S]; PD [H]; T2* [Z] (arterial)
    {"liver", 0.71, 0.576, 0.046, 0.028},         // T1, T2 [S]; PD [I]; T2* [C]
    {"fat", 0.90, 0.343, 0.058, 0.040},           // T1, T2 [B]; T2* [C]
    {"csf", 1.00, 4.070, 2.000, 1.000},           // T1 [L]; T2, T2* [C]; PD [H]
    {"background", 0.0, 0.0, 0.0, 0.0},           // no signal
}};
const std::array<TissueProperties, 6> k_tissues_3T = {{
    {"muscle", 0.79, 1.412, 0.050, 0.020},        // T1, T2 [S]; T2* [C]
    {"blood", 0.87, 1.932, 0.275, 0.100},         // T1, T2 [S]; T2* [Z] (arterial)
    {"liver", 0.71, 0.812, 0.042, 0.018},         // T1, T2 [S]; T2* [C]
    {"fat", 0.90, 0.382, 0.068, 0.030},           // T1, T2 [B]; T2* [C]
    {"csf", 1.00, 4.163, 1.800, 0.800},           // T1 [L]; T2, T2* [C]
    {"background", 0.0, 0.0, 0.0, 0.0},
}};

template <std::size_t N>
const TissueProperties& find(const std::array<TissueProperties, N>& table, std::string_view name,
                             std::string_view where, const char* field) {
  for (const auto& t : table)
    if (t.name == name) return t;
  std::string allowed;
  for (const auto& t : table) allowed += (allowed.empty() ? "" : ", ") + t.name;
  throw InputError(std::string(where) + ": unknown tissue '" + std::string(name) + "' at " + field +
                   " (allowed: " + allowed + ")");
}

}  // namespace

const TissueProperties& tissue_1p5T(std::string_view name, std::string_view where) {
  return find(k_tissues_1p5T, name, where, "1.5 T");
}

const TissueProperties& tissue_3T(std::string_view name, std::string_view where) {
  return find(k_tissues_3T, name, where, "3 T");
}

const TissueProperties& tissue_at(double field_T, std::string_view name, std::string_view where) {
  if (std::abs(field_T - 1.5) < 1e-9) return tissue_1p5T(name, where);
  if (std::abs(field_T - 3.0) < 1e-9) return tissue_3T(name, where);
  throw InputError(std::string(where) + ": field strength " + std::to_string(field_T) +
                   " T has no tissue table (allowed: 1.5, 3)");
}

std::vector<std::string> tissue_names_1p5T() {
  std::vector<std::string> names;
  for (const auto& t : k_tissues_1p5T) names.push_back(t.name);
  return names;
}

}  // namespace mrwb
