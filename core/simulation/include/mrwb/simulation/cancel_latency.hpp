#pragma once
// How fast an engine honours a cancel (the bench's figure, checked generously by the tests).
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

// Runs `engine` on a thread, cancels it `delay_s` after the start and returns the seconds from cancel()
// to the engine's return (−1 when the run ended before the cancel): the figure behind "cancel within
// 100 ms", measured by `mrwb bench` and checked generously by the tests.
double cancel_latency_s(SimulationEngine& engine, const CellPhantom& phantom, const SequenceProgram& program,
                        double delay_s);

}  // namespace mrwb
