#pragma once
#include <string>
#include <vector>

// The bounds a Pulseq file is held to, stated once: the reader (pulseq_reader.cpp) checks every value
// against them and names them in its refusals, the imported-sequence simulation checks what only the
// scenario decides (core/pipeline/src/pulseq_simulation.cpp), and pulseq_limit_rows() lists them for
// `mrwb info --limits` and docs/input-limits.md.
namespace mrwb::seq {

namespace pulseq_limits {

// Longest shape accepted: 2^22 samples (4.2 s at the 1 us RF raster, 42 s at a 10 us gradient raster;
// real pulses and readout gradients have thousands), so that a damaged count cannot exhaust memory.
// At least one sample: the Pulseq writers never store an empty shape, and every RF / gradient event that
// refers to one needs its samples (last value, peak, duration).
inline constexpr int kMaxShapeSamples = 1 << 22;
// Shape samples all blocks together play, counted per block (blocks share a shape's samples, but the diagram
// and the conversion to the simulator's program walk them block by block): 2^24.
inline constexpr long long kMaxModelSamples = 1LL << 24;
// Shape samples of all [SHAPES] together, as expanded: a run-length pair "0 0 4194302" of 12 bytes expands to
// 32 MB, so a small file of many such shapes asked for gigabytes. The blocks of an accepted file play at most
// kMaxModelSamples, every shape they use at least once, so this refuses nothing else but unused bulk.
inline constexpr long long kMaxShapeLibrarySamples = 1LL << 24;
// Rows of [BLOCKS], counted while the file is split into lines, before any block is read: the block model
// keeps 528 bytes a block (its optional events), so 2^20 blocks hold at most 0.55 GB. The simulator plays
// at most kMaxSequenceAdcSamples ADC samples; 2^20 blocks are 32 blocks for each of 2^15 ADCs of 16 samples.
inline constexpr int kMaxBlocks = 1 << 20;
// Samples of one ADC: ISMRMRD stores an acquisition's number_of_samples in 16 bits.
inline constexpr int kMaxAdcSamples = 65535;
// ADC samples of the whole sequence (repeats included): the conversion to the simulator's program keeps
// per sample its k and, for readouts that are not uniform, an event (about 120 bytes a sample). An imported
// sequence is simulated as one 2-D slice (SLC and PAR refused): 2^19 samples hold a 724 x 724 image, or
// two SET segments of 512 x 512, and keep the conversion of the worst case (every readout on a ramp) under
// 0.1 GB and 1 s even under AddressSanitizer, the fuzzers' bar for a hang.
inline constexpr long long kMaxSequenceAdcSamples = 1LL << 19;
// Rasters in [DEFINITIONS] (Pulseq: AdcRasterTime 100 ns, RadiofrequencyRasterTime 1 us, gradient and block
// raster 10 us on Siemens, 4 us on GE): anything outside 1 ns .. 1 ms is not a scanner's raster.
inline constexpr double kMinRaster_s = 1e-9, kMaxRaster_s = 1e-3;
// An ADC samples at most once per ADC raster ([DEFINITIONS] AdcRasterTime, itself >= kMinRaster_s): a dwell
// below it (1e-12 s was read) is no receiver's.
// Longest event and longest whole sequence accepted: a day. Keeps every time finite and every loop over
// the sequence (diagram, conversion) bounded.
inline constexpr double kMaxDuration_s = 86400;
// Field of view in [DEFINITIONS] (Pulseq: metres): a scanner's bore is well below this.
inline constexpr double kMaxFov_m = 10;
// Label counters (LABELSET / LABELINC) map to ISMRMRD encoding counters (uint16); LIN indexes k-space.
inline constexpr int kMaxLabel = 65535;
// k-space lines an ADC may land on (LIN, or the ADC's index without LIN labels): ISMRMRD's matrix size is
// 16-bit, so at most 65535 lines, LIN 0..65534.
inline constexpr int kMaxLines = 65535;
// SET values played at an ADC: every value is a raw-data file of its own (<out>_set<k>). Real sequences use
// a handful (phase-contrast encodings, echoes); 64 keeps a file from scattering thousands of outputs.
inline constexpr int kMaxSetSegments = 64;
// k-space samples the ADCs lay out per coil (SET segments x lines x samples per ADC), allocated before the
// simulation: 2^24 (128 MB of complex floats per coil) holds a 4096 x 4096 k-space.
inline constexpr long long kMaxLaidOutSamples = 1LL << 24;
// Physical values of the events (Pulseq 1.4 units). Finite is not enough: 1e300 Hz of RF gives NaN spins.
// The amplitude limits hold for the values as played: amplitude x every shape sample (an RF amplitude of 37 Hz
// on a magnitude sample of 50000 is 1.85 MHz), and 2 pi x every RF phase shape sample for the phase limit.
// RF peak amplitude |B1| x gamma: 1e5 Hz is 2.35 mT, far above any scanner's RF (about 25 uT).
inline constexpr double kMaxRfAmplitude_Hz = 1e5;
// Gradient amplitude: 1e9 Hz/m is 23.5 T/m, ten times the strongest preclinical gradient sets.
inline constexpr double kMaxGradient_Hz_per_m = 1e9;
// RF / ADC frequency offsets: 1e7 Hz is beyond any receiver bandwidth and slice offset.
inline constexpr double kMaxFrequency_Hz = 1e7;
// Offsets in ppm of the Larmor frequency (1.5): chemical shifts are a few ppm; 1e4 ppm is 1 %.
inline constexpr double kMaxPpm = 1e4;
// Phase offsets [rad]: an angle; writers wrap it (RF spoiling mod 2 pi), so 1e6 rad only guards precision.
inline constexpr double kMaxPhase_rad = 1e6;
// Main field in [DEFINITIONS] (T): above the strongest MR magnets (28.2 T).
inline constexpr double kMaxB0_T = 30;

// Ids (blocks, events, shapes, extensions) are decimal integers 0..kMaxId, each defined once; block
// durations are whole numbers of BlockDurationRaster (Pulseq 1.4 and later).
inline constexpr long long kMaxId = 2147483647;
// RF use (Pulseq 1.5 [RF] use, mr.getSupportedRfUse): excitation, refocusing, inversion, saturation,
// preparation, other, undefined.
inline constexpr const char* kRfUses = "erispou";
// Labels of LABELSET / LABELINC (mr.getSupportedLabels, with ACQ of the 1.5 interpreters).
inline constexpr const char* kPulseqLabels[] = {"SLC", "SEG", "REP",   "AVG", "SET",   "ECO",   "PHS",   "LIN",
                                                "PAR", "ACQ", "NAV",   "REV", "SMS",   "REF",   "IMA",   "NOISE",
                                                "PMC", "NOROT", "NOPOS", "NOSCL", "ONCE", "TRID"};
// Extensions read: LABELSET and LABELINC. These change what is played, and the simulator does not play them,
// so a file that has them is refused rather than simulated without them: ROTATIONS (gradient axes
// rotated per block), DELAYS (soft delays: block durations set at the scanner), TRIGGERS (waits for and
// emits physiological triggers), RF_SHIMS (per-channel RF amplitudes and phases). Any other extension
// is refused when [DEFINITIONS] RequiredExtensions lists it, and ignored with a warning otherwise.
inline constexpr const char* kRefusedExtensions[] = {"ROTATIONS", "DELAYS", "TRIGGERS", "RF_SHIMS"};

// Raw data an imported sequence may lay out over all the scenario's coils: 4 GiB, as the scenario's phantom.
inline constexpr double kMaxImportedRawBytes = 4.0 * 1024 * 1024 * 1024;

}  // namespace pulseq_limits

// The lists above as refusals and the limits table name them: "SLC, SEG, ...", "ROTATIONS, DELAYS, ...".
std::string pulseq_label_list();
std::string refused_extension_list();

struct PulseqLimit {
  std::string what, allowed, why;
};
// The bounds above as rows (what is bounded, the allowed range with its unit, why).
std::vector<PulseqLimit> pulseq_limit_rows();

}  // namespace mrwb::seq
