#pragma once
// A scenario's sequence as the GUI shows it (diagram, k-space trajectory), and the checks of a
// non-Cartesian scenario.
#include <string>
#include <string_view>

#include "mrwb/scenario/scenario.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb {

// validate_noncart_sequence (noncart_design.hpp) and recon.method gridding | cg. One-line InputError
// naming the field.
void validate_noncart_scenario(const Scenario& s, const std::string& source);
// recon.method for the sequence's trajectory: fft | grappa (Cartesian), gridding | cg (the others). `method`
// is the name as written, so the JSON reader refuses an unknown name with the same line. InputError.
void check_recon_method(std::string_view method, const SequenceSpec& q, const std::string& source);

}  // namespace mrwb

namespace mrwb::seq {

// For the GUI. The diagram (RF |B1| [uT], Gx, Gy, Gz [mT/m], ADC [0/1] against time [s]) of the
// scenario's sequence from the excitation of the first acquired line (after the dummy scans) for
// `t_max_s` (<= 0: one TR).
SequenceDiagram sequence_diagram(const Scenario& scenario, double t_max_s = 0);
// The k-space positions of every ADC sample of the scenario's sequence, integrated from its gradients
// (cycles per FOV, BART convention [readout][sample][dims], dims = 2: kx, ky), in acquisition order: the
// trajectory the simulator plays, for every trajectory type.
noncart::Trajectory scenario_trajectory(const Scenario& scenario);

}  // namespace mrwb::seq
