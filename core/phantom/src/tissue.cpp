#include "mrwb/phantom/tissue.hpp"

#include <array>
#include <cmath>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

// Sources. "verified" = the number was read in the cited text during the 2026-11 audit (docs/tissues.md);
// "NOT VERIFIED" = carried over from the first implementation, cited source not readable (abstract
// only or no access): kept as a typical figure until someone checks the table.
// [S]  Stanisz GJ, Odrobina EE, Pun J, et al. T1, T2 relaxation and magnetization transfer in tissue at
//      3T. Magn Reson Med 2005;54:507-512, Table 1 (in vitro, 37 C; mouse muscle and liver, human blood).
//      3 T values verified against the compilation in Radiat Oncol 2013;8:51 (doi 10.1186/1748-717X-8-51),
//      Table 1, which lists muscle 1412/50 ms, liver 812/42 ms, blood 1932/275 ms (T1/T2) from it;
//      1.5 T values NOT VERIFIED.
// [B]  de Bazelaire CMJ, Duhamel GD, Rofsky NM, Alsop DC. MR imaging relaxation times of abdominal and
//      pelvic tissues measured in vivo at 3.0 T: preliminary results. Radiology 2004;230:652-659.
//      Subcutaneous fat at 3 T, T1 382 ms, T2 68 ms: verified (abstract). 1.5 T values (T1 343, T2 58 ms,
//      from its table): NOT VERIFIED.
// [Lb] Lu H, Clingman C, Golay X, van Zijl PCM. Determining the longitudinal relaxation time (T1) of blood
//      at 3.0 Tesla. Magn Reson Med 2004 (doi 10.1002/mrm.20178): arterial blood (Y = 92 %) at Hct 0.42, 37 C,
//      T1 = 1664 ms: verified (abstract).
// [L]  Lu H, Nagae-Poetscher LM, Golay X, et al. Routine clinical brain MRI sequences for use at 3.0
//      Tesla. J Magn Reson Imaging 2005;22:13-22: CSF T1 at 1.5 T and 3 T, NOT VERIFIED (abstract gives
//      no CSF values).
// [O]  Obrzut M, Atamaniuk V, Glaser KJ, et al. Value of liver iron concentration in healthy volunteers
//      assessed by MRI. Sci Rep 2020;10:17887: liver R2* at 1.5 T 28.72 s^-1 (100 volunteers), so
//      T2* = 34.8 ms: verified (abstract).
// [A]  Acta Radiol, doi 10.1177/0284185117715285: hepatic T2*(1.5 T) is about twice T2*(3 T) (slope 2,
//      measured in iron-overloaded livers): used to derive liver T2* at 3 T from [O]; the factor for
//      normal liver is NOT VERIFIED. Consistent with the normal-liver thresholds T2* > 15.4 ms (1.5 T)
//      and > 8.4 ms (3 T) of PMC8528353, Table 7.
// [C]  Chavhan GB, Babyn PS, Thomas B, et al. Principles, techniques, and applications of T2*-based MR
//      imaging and its special applications. RadioGraphics 2009;29:1433-1449: T2* of muscle, fat and
//      CSF, and CSF T2, NOT VERIFIED (abstract only; no values read).
// [Z]  Zhao JM, Clingman CS, Narvainen MJ, Kauppinen RA, van Zijl PCM. Oxygenation and hematocrit
//      dependence of transverse relaxation rates of blood at 3T. Magn Reson Med 2007;58:592-597:
//      arterial blood T2*, NOT VERIFIED (abstract gives no values).
// [I]  ICRP Publication 23, Reference Man, 1975 (water content by mass: muscle 79 %, liver 71 %):
//      NOT VERIFIED.
// [H]  Herscovitch P, Raichle ME. J Cereb Blood Flow Metab 1985;5:65-69: whole blood 0.87 mL water/mL,
//      CSF ~1.0: NOT VERIFIED.
// Apparent diffusion coefficients (ADC), 37 C, in mm^2/s as published (the table holds m^2/s):
// [Hz] Holz M, Heil SR, Sacco A. Temperature-dependent self-diffusion coefficients of water and six selected
//      molecular liquids for calibration in accurate 1H NMR PFG measurements. Phys Chem Chem Phys 2000;2:4740.
//      Their fit D = D0 (T/Ts - 1)^gamma (D0 1.635e-8 m^2/s, Ts 215.05 K, gamma 2.063, read in a secondary
//      source; it gives their 2.299e-9 m^2/s at 25 C) at 310.15 K: 3.04e-3, kept as 3.0e-3. NOT VERIFIED in
//      the paper itself. CSF, about 99 % water, takes the same value (NOT VERIFIED as a CSF measurement).
// [F]  Funck C, Laun FB, Wetscherek A. Characterization of the diffusion coefficient of blood. Magn Reson
//      Med 2018;79:2752-2758: blood samples at body temperature, Db = 1.54e-3 suggested for flow-compensated
//      encoding (1.30e-3 monopolar): verified (abstract).
// [He] Helenius J, Soinne L, Perkio J, et al. Diffusion-weighted MR imaging in normal human brains in various
//      age groups. AJNR 2002;23:194-199: cortical grey matter 0.89e-3, deep grey 0.75e-3, white matter
//      0.70e-3 (b 0 and 1000, 1.5 T): verified (abstract).
// [M]  Muller MF, Prasad P, Siewert B, Nissenbaum MA, Raptopoulos V, Edelman RR. Abdominal diffusion mapping
//      with use of a whole-body echo-planar system. Radiology 1994: muscle 1.99e-3 (STEAM-EPI,
//      1.5 T, volunteers; perfusion-sensitive): verified (abstract). Muscle diffusion is anisotropic and
//      falls with the diffusion time (restricted by the fibres); the table keeps one in-vivo figure.
// [J]  Jafar MM, Parsai A, Miquel ME. Diffusion-weighted magnetic resonance imaging in cancer: reported apparent
//      diffusion coefficients, in-vitro and in-vivo reproducibility. World J Radiol 2016;8:21-49: median liver
//      parenchyma ADC of 28 studies 1.28e-3: verified (abstract).
// [St] Steidle G, Eibofner F, Schick F. Quantitative diffusion imaging of adipose tissue in the human lower leg
//      at 1.5 T. Magn Reson Med 2011 (doi 10.1002/mrm.22699): triglyceride diffusion two orders below
//      water; tibial bone marrow 1.81e-5 / 1.96e-5 / 1.96e-5 by direction, subcutaneous fat's smallest values
//      alike: 1.9e-5 kept: verified (abstract).
constexpr double k_mm2_per_s = 1e-6;  // m^2/s in one mm^2/s
constexpr double k_adc_free_water = 3.0e-3 * k_mm2_per_s, k_adc_csf = 3.0e-3 * k_mm2_per_s;
constexpr double k_adc_blood = 1.54e-3 * k_mm2_per_s, k_adc_grey = 0.89e-3 * k_mm2_per_s;
constexpr double k_adc_white = 0.70e-3 * k_mm2_per_s, k_adc_muscle = 1.99e-3 * k_mm2_per_s;
constexpr double k_adc_liver = 1.28e-3 * k_mm2_per_s, k_adc_fat = 1.9e-5 * k_mm2_per_s;
// PD of fat (0.9, fat protons included) is a model assumption, not taken from a source.
// T2* values depend on voxel size and shimming and are typical figures only. "background" is air.
const std::array<TissueProperties, 6> k_tissues_1p5T = {{
    {"muscle", 0.79, 1.008, 0.044, 0.031, k_adc_muscle},   // T1, T2 [S]; PD [I]; T2* [C]; ADC [M]
    {"blood", 0.87, 1.441, 0.290, 0.200, k_adc_blood},     // T1, T2 [S]; PD [H]; T2* [Z] (arterial); ADC [F]
    {"liver", 0.71, 0.576, 0.046, 0.0348, k_adc_liver},    // T1, T2 [S]; PD [I]; T2* [O]; ADC [J]
    {"fat", 0.90, 0.343, 0.058, 0.040, k_adc_fat},         // T1, T2 [B]; T2* [C]; ADC [St]
    {"csf", 1.00, 4.070, 2.000, 1.000, k_adc_csf},         // T1 [L]; T2, T2* [C]; PD [H]; ADC [Hz]
    {"background", 0.0, 0.0, 0.0, 0.0, 0.0},               // no signal
}};
const std::array<TissueProperties, 6> k_tissues_3T = {{
    {"muscle", 0.79, 1.412, 0.050, 0.020, k_adc_muscle},   // T1, T2 [S]; T2* [C]; ADC as at 1.5 T
    {"blood", 0.87, 1.664, 0.275, 0.100, k_adc_blood},     // T1 [Lb] (arterial); T2 [S]; T2* [Z] (arterial)
    {"liver", 0.71, 0.812, 0.042, 0.0174, k_adc_liver},    // T1, T2 [S]; T2* [O] / 2 [A]
    {"fat", 0.90, 0.382, 0.068, 0.030, k_adc_fat},         // T1, T2 [B]; T2* [C]
    {"csf", 1.00, 4.163, 1.800, 0.800, k_adc_csf},         // T1 [L]; T2, T2* [C]
    {"background", 0.0, 0.0, 0.0, 0.0, 0.0},
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

const std::vector<DiffusionReference>& diffusion_references() {
  static const std::vector<DiffusionReference> references = {
      {"free_water", k_adc_free_water, "Holz, Heil, Sacco 2000: self-diffusion of water, fit at 37 C"},
      {"csf", k_adc_csf, "as free water at 37 C (Holz, Heil, Sacco 2000)"},
      {"blood", k_adc_blood, "Funck, Laun, Wetscherek 2018: blood samples, flow-compensated encoding"},
      {"grey_matter", k_adc_grey, "Helenius et al. 2002: cortical grey matter, 1.5 T"},
      {"white_matter", k_adc_white, "Helenius et al. 2002: white matter, 1.5 T"},
      {"muscle", k_adc_muscle, "Muller et al. 1994: muscle in vivo, STEAM-EPI, 1.5 T"},
      {"liver", k_adc_liver, "Jafar, Parsai, Miquel 2016: median of 28 studies of liver parenchyma"},
      {"fat", k_adc_fat, "Steidle, Eibofner, Schick 2011: adipose tissue of the lower leg, 1.5 T"},
  };
  return references;
}

std::vector<std::string> tissue_names_1p5T() {
  std::vector<std::string> names;
  for (const auto& t : k_tissues_1p5T) names.push_back(t.name);
  return names;
}

}  // namespace mrwb
