#pragma once
// How faithfully the simulator plays a sequence's blocks (the scenario's "sequence.fidelity"): one
// conversion (seq::to_sequence_program) with these choices, not a second builder per fidelity.
#include "mrwb/base/enum_names.hpp"

namespace mrwb {

// RF: "hard" plays each pulse as one instant rotation at its centre (the event model of Jurczuk et al.
// 2016); "shaped" as hard-pulse steps of 100 us along its envelope (relaxation, off-resonance and the
// slice-select gradient act within the pulse; multi-slice: finer, so that each pulse excites its own
// slice); "auto" the choice each type is validated with: hard for spoiled GE (any trajectory), spin echo
// and phase contrast, shaped for bSSFP, time of flight and every multi-slice or 3-D slab scan.
enum class RfFidelity { Auto, Hard, Shaped };
inline constexpr EnumNames<RfFidelity, 3> k_rf_fidelity_names{{
    {RfFidelity::Auto, "auto"},
    {RfFidelity::Hard, "hard"},
    {RfFidelity::Shaped, "shaped"},
}};
constexpr std::string_view to_string(RfFidelity f) { return enum_name(k_rf_fidelity_names, f); }

// Gradients: "moments" applies each interval's moment between RF and ADC instants at once (exact for
// still spins); "waveform" cuts intervals into 20 us pieces with their own moments, so moving spins see
// when a gradient acts (its first moment), as the ramped waveform does; "auto": waveform for phase
// contrast (its velocity phase is the bipolar's first moment), moments otherwise.
enum class GradientFidelity { Auto, Moments, Waveform };
inline constexpr EnumNames<GradientFidelity, 3> k_gradient_fidelity_names{{
    {GradientFidelity::Auto, "auto"},
    {GradientFidelity::Moments, "moments"},
    {GradientFidelity::Waveform, "waveform"},
}};
constexpr std::string_view to_string(GradientFidelity f) { return enum_name(k_gradient_fidelity_names, f); }

// Spoiling of spoiled GE, spin echo and time of flight: "ideal" sets Mxy = 0 before every excitation (a cell
// cannot dephase within itself: spoiler moments of whole turns per cell do nothing on the grid);
// "gradients" plays the spoiler gradients and, where the builder has it, 117° RF spoiling as designed, on one
// magnetization per cell; "states" plays the same with the dephasing within each cell carried as configuration
// states (Weigel 2015; docs/intravoxel.md): spoilers and crushers dephase, stimulated echoes form (CPU engine,
// still phantoms). bSSFP is never spoiled.
enum class SpoilingFidelity { Ideal, Gradients, States };
inline constexpr EnumNames<SpoilingFidelity, 3> k_spoiling_fidelity_names{{
    {SpoilingFidelity::Ideal, "ideal"},
    {SpoilingFidelity::Gradients, "gradients"},
    {SpoilingFidelity::States, "states"},
}};
constexpr std::string_view to_string(SpoilingFidelity f) { return enum_name(k_spoiling_fidelity_names, f); }

struct SequenceFidelity {
  RfFidelity rf = RfFidelity::Auto;
  GradientFidelity gradients = GradientFidelity::Auto;
  SpoilingFidelity spoiling = SpoilingFidelity::Ideal;
  bool operator==(const SequenceFidelity&) const = default;
};

}  // namespace mrwb
