#include "mrwb/sequence/pulseq_limits.hpp"

#include "mrwb/base/number_text.hpp"

namespace mrwb::seq {

namespace {
template <class List>
std::string joined(const List& list) {
  std::string out;
  for (const char* x : list) out += (out.empty() ? "" : ", ") + std::string(x);
  return out;
}
}  // namespace

std::string pulseq_label_list() { return joined(pulseq_limits::kPulseqLabels); }
std::string refused_extension_list() { return joined(pulseq_limits::kRefusedExtensions); }

std::vector<PulseqLimit> pulseq_limit_rows() {
  using namespace pulseq_limits;
  const std::string day = number_text(kMaxDuration_s) + " s";
  return {
      {"samples of one shape ([SHAPES] num_samples)", "1 .. " + std::to_string(kMaxShapeSamples),
       "a damaged count cannot exhaust memory"},
      {"shape samples of all [SHAPES] together, as expanded", "<= " + std::to_string(kMaxShapeLibrarySamples),
       "a run of 12 bytes expands to 32 MB"},
      {"blocks ([BLOCKS] rows)", "<= " + std::to_string(kMaxBlocks),
       "counted before any block is read; the block model keeps 528 bytes a block"},
      {"ids (blocks, events, shapes, extensions)", "decimal integers 0 .. " + std::to_string(kMaxId) + ", each defined once",
       "no hexadecimal, fractions or exponents; a second definition replaced the first"},
      {"block durations (1.4 and later)", "whole numbers of BlockDurationRaster, >= 0", "Pulseq 1.4 counts them in block rasters"},
      {"samples of one ADC ([ADC] num)", "1 .. " + std::to_string(kMaxAdcSamples), "ISMRMRD's 16-bit number_of_samples"},
      {"ADC samples of the whole sequence, repeats included", "<= " + std::to_string(kMaxSequenceAdcSamples),
       "the simulator's program keeps up to about 120 bytes a sample"},
      {"shape samples of all blocks together", "<= " + std::to_string(kMaxModelSamples),
       "the diagram and the conversion walk them block by block"},
      {"raster times ([DEFINITIONS] *RasterTime)", number_text(kMinRaster_s) + " .. " + number_text(kMaxRaster_s) + " s", "a scanner's rasters lie between"},
      {"one event, one block, the whole sequence", "0 .. " + day + " (delays, rise / flat / fall times >= 0)",
       "every time finite, every loop over the sequence bounded"},
      {"[DEFINITIONS] FOV", "0 .. " + number_text(kMaxFov_m) + " m per axis (> 0 for a non-Cartesian trajectory)", "a length"},
      {"[DEFINITIONS] B0", "(0, " + number_text(kMaxB0_T) + "] T", "above the strongest MR magnets"},
      {"ADC dwell ([ADC] dwell)", ">= AdcRasterTime (default 100 ns)", "an ADC samples at most once per ADC raster"},
      {"RF amplitude, and amplitude x every magnitude shape sample as played",
       "-" + number_text(kMaxRfAmplitude_Hz) + " .. " + number_text(kMaxRfAmplitude_Hz) + " Hz", "2.35 mT; scanners reach about 25 uT"},
      {"gradient amplitude (trapezoids and shapes), and amplitude x every shape sample as played",
       "-" + number_text(kMaxGradient_Hz_per_m) + " .. " + number_text(kMaxGradient_Hz_per_m) + " Hz/m", "23.5 T/m"},
      {"RF centre (1.5 [RF] center)", "0 .. the pulse's duration", "the pulse's reference for TE lies within it"},
      {"RF use (1.5 [RF] use)", "one of e, r, i, s, p, o, u", "Pulseq's RF uses"},
      {"RF / ADC frequency offsets", "-" + number_text(kMaxFrequency_Hz) + " .. " + number_text(kMaxFrequency_Hz) + " Hz", "beyond any receiver bandwidth"},
      {"RF / ADC offsets in ppm", "-" + number_text(kMaxPpm) + " .. " + number_text(kMaxPpm) + " ppm", "1 % of the Larmor frequency"},
      {"RF / ADC phase offsets; 2 pi x every RF phase shape sample", "-" + number_text(kMaxPhase_rad) + " .. " + number_text(kMaxPhase_rad) + " rad", "an angle; only precision is guarded"},
      {"LABELSET values; LABELINC steps; every counter as played", "0 .. " + std::to_string(kMaxLabel) + "; -" +
           std::to_string(kMaxLabel) + " .. " + std::to_string(kMaxLabel) + "; 0 .. " + std::to_string(kMaxLabel),
       "ISMRMRD's 16-bit encoding counters"},
      {"extensions ([EXTENSIONS], [DEFINITIONS] RequiredExtensions)",
       "LABELSET, LABELINC with Pulseq's labels (" + pulseq_label_list() + "); others only when not required; never " +
           refused_extension_list() + "; [DELAYS] only before 1.4",
       "the simulator does not play rotations, soft delays, triggers or RF shims, so a file that has them is refused"},
      {"LIN at an ADC (or the ADC's index without LIN)", "0 .. " + std::to_string(kMaxLines - 1),
       "ISMRMRD's matrix size is 16-bit"},
      {"SET at an ADC", "0 .. " + std::to_string(kMaxSetSegments - 1), "each SET value is a raw-data file of its own"},
      {"k-space samples laid out per coil (SET segments x lines x ADC samples)", "<= " + std::to_string(kMaxLaidOutSamples),
       "allocated before the simulation: 128 MiB of complex floats a coil"},
      {"`mrwb simulate --seq`: SLC and PAR at the ADCs", "0", "an imported sequence is simulated as one 2-D slice"},
      {"`mrwb simulate --seq`: raw data of all the scenario's coils",
       "<= " + std::to_string(static_cast<long long>(kMaxImportedRawBytes)) + " bytes", "the scenario's memory budget"},
  };
}

}  // namespace mrwb::seq
