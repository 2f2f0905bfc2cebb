#pragma once
#include <span>
#include <string>
#include <string_view>

#include "mrwb/sequence/sequence_limits.hpp"

// The range of every numeric scenario field, stated once: the scenario reader holds a file's values to it
// and states it in its refusal, `mrwb info --limits` prints it, and docs/input-limits.md is that print
// (tests/scenario/test_input_limits.cpp keeps the page equal to the table).
namespace mrwb {

struct FieldRange {
  std::string_view field;  // as in the file: "sequence.TR_s"
  seq::ParamRange range;   // the fixed range
  std::string_view also;   // what else bounds it (another field, a default), "" if nothing
  bool integer = false;    // read as an integer (a fraction is refused before the range)
};

std::span<const FieldRange> scenario_field_ranges();
// The entry of `field`; std::logic_error if the table has none (a field checked but not stated).
const FieldRange& scenario_field_range(std::string_view field);

// Every input limit as Markdown: the scenario's fields, then the Pulseq reader's bounds.
std::string input_limits_markdown();

}  // namespace mrwb
