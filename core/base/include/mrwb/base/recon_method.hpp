#pragma once
// The reconstruction methods, as `--method` and the scenario's recon.method spell them. Declared in base
// (not recon) because the scenario, a layer below recon, names its method too.
#include <optional>
#include <string_view>

#include "mrwb/base/enum_names.hpp"

namespace mrwb {

enum class ReconMethod { Fft, Grappa, Gridding, Cg, Sense, Cs };

inline constexpr EnumNames<ReconMethod, 6> k_recon_method_names{{
    {ReconMethod::Fft, "fft"},
    {ReconMethod::Grappa, "grappa"},
    {ReconMethod::Gridding, "gridding"},
    {ReconMethod::Cg, "cg"},
    {ReconMethod::Sense, "sense"},
    {ReconMethod::Cs, "cs"},
}};

constexpr std::string_view to_string(ReconMethod m) { return enum_name(k_recon_method_names, m); }
constexpr std::optional<ReconMethod> parse_recon_method(std::string_view name) {
  return enum_from_name(k_recon_method_names, name);
}

}  // namespace mrwb
