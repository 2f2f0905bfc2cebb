#pragma once
// One numeric field of a scenario by its file key ("sequence.flip_angle_deg", units as in the file), for
// parameter sweeps: set through the scenario's JSON and read back by the scenario reader, so a value out of
// range is refused exactly as in a file (InputError naming the field and the allowed range).
#include <string>

#include "mrwb/scenario/scenario.hpp"

namespace mrwb {

// `source` names the input in a refusal (e.g. "sweep").
Scenario scenario_with_field(const Scenario& s, const std::string& field, double value, const std::string& source);
// The field's value; InputError when the scenario's JSON has no such numeric field.
double scenario_field_value(const Scenario& s, const std::string& field);

}  // namespace mrwb
