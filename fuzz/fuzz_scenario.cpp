// Scenario JSON (core/scenario): the bytes as the text of a scenario file, read and validated as
// `mrwb simulate --scenario` / `mrwb flow --scenario` load it (load_scenario: JSON, every field and its
// range, the timing, the sequence built once by those checks).
#include "fuzz_support.hpp"
#include "mrwb/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source = "fuzz.json";
  const std::string text(mrwb::fuzz::bytes(data, size));
  mrwb::fuzz::accepts(source, [&] {
    mrwb::seq::BuiltSequence built;
    mrwb::scenario_from_json_text(text, source, &built);
  });
  return 0;
}
