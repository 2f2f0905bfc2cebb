#pragma once
// Progress of a simulation, reported once per TR by every engine.
#include <vector>

#include "mrwb/sequence/sequence_program.hpp"

namespace mrwb {

// Progress once per TR, dummy TRs included: marks[e] = TRs completed when event e has been played
// (simulated time / TR, rounded down; readouts played when the program has no TR); the last mark is
// the total. Every engine reports progress(marks[e] / total) each time the mark increases.
std::vector<int> tr_progress_marks(const SequenceProgram& program);

}  // namespace mrwb
