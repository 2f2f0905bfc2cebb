// Pulseq .seq (core/sequence/src/pulseq_reader.cpp): the bytes as a .seq file's text, read as
// `mrwb sequence --in X.seq` reads it, then what that command does with it: the limit check of
// --max-grad / --max-slew, the conversion behind --info (and `mrwb simulate --seq`), the trajectory as
// played (non-Cartesian --seq) and the diagram of --plot.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fuzz_support.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"

namespace {

// The reader shows a value of the file cut to 40 characters: a refusal of more than this echoes the input.
constexpr std::size_t kMaxRefusalChars = 1000;

// fuzz::accepts, and a refusal of readable length.
template <class F>
bool accepts(const std::string& source, F&& stage) {
  return mrwb::fuzz::accepts(source, [&] {
    try {
      stage();
    } catch (const mrwb::InputError& e) {
      const std::size_t n = std::strlen(e.what());
      if (n > kMaxRefusalChars) {
        std::fprintf(stderr, "fuzz: refusal message of %zu characters (allowed: <= %zu): %.200s...\n", n,
                     kMaxRefusalChars, e.what());
        std::abort();
      }
      throw;
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mrwb;
  const std::string source = "fuzz.seq";
  const std::string text(fuzz::bytes(data, size));
  seq::BlockSequence s;
  if (!accepts(source, [&] { s = seq::parse_pulseq(text, source); })) return 0;
  accepts(source, [&] { seq::check_limits(s, source); });
  seq::ProgramConversion c;
  if (accepts(source, [&] { c = seq::to_sequence_program(s); })) {
    (void)s.duration_s();
    (void)s.adc_samples();
    accepts(source, [&] { (void)seq::played_trajectory(c, s.fov_m, 2, source); });
  }
  accepts(source, [&] { (void)seq::sequence_diagram(s); });
  return 0;
}
