#pragma once
// How a simulation runs, as the scenario's "simulation" object and `mrwb simulate --model / --flow-transport`
// spell it (docs/flow_transport.md). Here, below every domain, so the scenario and the engines share one type.
#include <optional>
#include <string_view>

#include "mrwb/base/enum_names.hpp"

namespace mrwb {

// The two simulation models: Eulerian cells (Jurczuk et al. 2016), magnetization transported between fixed
// cells, or Lagrangian spin tracking (spins carried by the flow).
enum class SimulationModel { Eulerian, Lagrangian };

// How an Eulerian engine moves magnetization between cells: the donor cell on the magnetization in the
// gradient frame (exact for the phase the gradients write), the same with a flux-limited second-order
// correction (transport_limited_ops.hpp: sharper inflow fronts and magnitude), or the donor cell on the
// lab-frame magnetization as Jurczuk et al. 2016 Eq. 1 (diffuses that phase as (k·cell)²; kept for comparison).
enum class FlowTransport { GradientFrame, DonorCell, GradientFrameLimited };

// Whether the transport runs in the gradient frame, and whether it adds the limited second-order flux.
constexpr bool in_gradient_frame(FlowTransport t) { return t != FlowTransport::DonorCell; }
constexpr bool second_order(FlowTransport t) { return t == FlowTransport::GradientFrameLimited; }

// Spins per fluid cell along each axis of the Lagrangian model (2-D: its square per cell, 3-D: its cube).
// 3 keeps a run near the Eulerian engine's cost; its sampling noise is ~1 % of the blood signal at the
// presets (docs/flow_transport.md), and a reference run takes more.
inline constexpr int k_default_spins_per_axis = 3;
inline constexpr int k_max_spins_per_axis = 16;

inline constexpr EnumNames<SimulationModel, 2> k_simulation_model_names{{
    {SimulationModel::Eulerian, "eulerian"},
    {SimulationModel::Lagrangian, "lagrangian"},
}};
inline constexpr EnumNames<FlowTransport, 3> k_flow_transport_names{{
    {FlowTransport::GradientFrame, "gradient_frame"},
    {FlowTransport::GradientFrameLimited, "gradient_frame_limited"},
    {FlowTransport::DonorCell, "donor_cell"},
}};
constexpr std::string_view to_string(SimulationModel m) { return enum_name(k_simulation_model_names, m); }
constexpr std::string_view to_string(FlowTransport t) { return enum_name(k_flow_transport_names, t); }
constexpr std::optional<SimulationModel> parse_simulation_model(std::string_view name) {
  return enum_from_name(k_simulation_model_names, name);
}
constexpr std::optional<FlowTransport> parse_flow_transport(std::string_view name) {
  return enum_from_name(k_flow_transport_names, name);
}

}  // namespace mrwb
