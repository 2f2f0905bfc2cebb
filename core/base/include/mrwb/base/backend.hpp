#pragma once
// Where a simulation or reconstruction runs, as `--backend` and the scenario's "backend" spell it.
// Auto: CUDA when registered and available, else the CPU (BackendRegistry::choose).
#include <optional>
#include <string_view>

#include "mrwb/base/enum_names.hpp"

namespace mrwb {

enum class Backend { Auto, Cpu, Cuda };

inline constexpr EnumNames<Backend, 3> k_backend_names{{
    {Backend::Auto, "auto"},
    {Backend::Cpu, "cpu"},
    {Backend::Cuda, "cuda"},
}};

constexpr std::string_view to_string(Backend b) { return enum_name(k_backend_names, b); }
constexpr std::optional<Backend> parse_backend(std::string_view name) { return enum_from_name(k_backend_names, name); }

}  // namespace mrwb
