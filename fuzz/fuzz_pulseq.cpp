// Pulseq .seq (core/sequence/src/pulseq_reader.cpp): the bytes as a .seq file's text, read as
// `mrwb sequence --in X.seq` reads it, then what that command does with it: the limit check of
// --max-grad / --max-slew, the conversion behind --info (and `mrwb simulate --seq`), the trajectory as
// played (non-Cartesian --seq) and the diagram of --plot.
#include "fuzz_support.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mrwb;
  const std::string source = "fuzz.seq";
  const std::string text(fuzz::bytes(data, size));
  seq::BlockSequence s;
  if (!fuzz::accepts(source, [&] { s = seq::parse_pulseq(text, source); })) return 0;
  fuzz::accepts(source, [&] { seq::check_limits(s, source); });
  seq::ProgramConversion c;
  if (fuzz::accepts(source, [&] { c = seq::to_sequence_program(s); })) {
    (void)s.duration_s();
    (void)s.adc_samples();
    fuzz::accepts(source, [&] { (void)seq::played_trajectory(c, s.fov_m, 2, source); });
  }
  fuzz::accepts(source, [&] { (void)seq::sequence_diagram(s); });
  return 0;
}
