#pragma once
// A pulse sequence as timed blocks (the Pulseq model): each block holds at most one RF pulse, one
// gradient per axis, one ADC, label extensions, and lasts `duration_s`. Gradients are in Hz/m
// (gamma/2pi · G), RF in Hz (gamma/2pi · B1), so moments come out directly in cycles/m.
#include <complex>
#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/shape_samples.hpp"
#include "mrwb/sequence/trajectory.hpp"

namespace mrwb::seq {

constexpr double gamma_Hz_per_T = 42.577478518e6;  // 1H, gamma / 2pi

struct SystemLimits {
  double max_grad_Hz_per_m = 32e-3 * gamma_Hz_per_T;       // 32 mT/m
  double max_slew_Hz_per_m_per_s = 130 * gamma_Hz_per_T;   // 130 T/m/s
  double grad_raster_s = 10e-6;
  double rf_raster_s = 1e-6;
  double adc_raster_s = 100e-9;
  double block_raster_s = 10e-6;
  double rf_dead_time_s = 100e-6;   // before an RF pulse
  double rf_ringdown_s = 30e-6;     // after an RF pulse
  double adc_dead_time_s = 10e-6;
  double B0_T = 1.5;
};

// Shaped RF: complex envelope amplitude_Hz · mag[i] · exp(i 2pi phase[i]) (Pulseq shapes, mag in [0, 1],
// phase in cycles). Samples sit at raster centres (i + 0.5)·rf_raster after `delay_s`, held constant over
// each raster step; or, when `time` is given, at time[i]·rf_raster and linear in between.
struct RfPulse {
  double amplitude_Hz = 0;
  ShapeSamples mag, phase, time;  // shared by the blocks that play the pulse (shape_samples.hpp)
  double delay_s = 0;
  double center_s = 0;        // from the pulse start (after delay): the reference for TE
  double freq_Hz = 0, phase_rad = 0;
  double freq_ppm = 0, phase_ppm = 0;  // scaled by gamma·B0 (Pulseq 1.5)
  char use = 'u';             // e excitation, r refocusing, i inversion, s saturation, p preparation, o other, u undefined
  double duration_s(double rf_raster_s) const;  // from the pulse start, excluding delay
};

// One gradient axis: a trapezoid, or an arbitrary shape amplitude · waveform[i] at raster centres
// (i + 0.5)·grad_raster with `first`/`last` values [Hz/m] at the edges, or at time[i]·grad_raster
// (piecewise linear, "extended trapezoid").
struct Gradient {
  enum class Type { Trap, Arbitrary } type = Type::Trap;
  double amplitude_Hz_per_m = 0;
  double rise_s = 0, flat_s = 0, fall_s = 0;  // Trap
  ShapeSamples waveform, time;                 // Arbitrary (shared, shape_samples.hpp)
  double first_Hz_per_m = 0, last_Hz_per_m = 0;
  double delay_s = 0;
  double duration_s(double grad_raster_s) const;  // including delay
  double area_Hz_s_per_m(double grad_raster_s) const;
  // Corner points (t [s] from block start, G [Hz/m]); the gradient is linear between them, 0 outside.
  std::vector<std::pair<double, double>> points(double grad_raster_s) const;
};

struct Adc {
  int num_samples = 0;
  double dwell_s = 0, delay_s = 0;
  double freq_Hz = 0, phase_rad = 0;
  double freq_ppm = 0, phase_ppm = 0;
  // Sample i is taken at delay + (i + 0.5)·dwell (Pulseq convention).
  double sample_time_s(int i) const { return delay_s + (i + 0.5) * dwell_s; }
  double duration_s() const { return delay_s + num_samples * dwell_s; }
};

struct Label {
  bool increment = false;  // LABELINC; else LABELSET
  std::string name;        // LIN, SLC, REF, IMA, ...
  int value = 0;
};

struct Block {
  double duration_s = 0;
  std::optional<RfPulse> rf;
  std::optional<Gradient> gx, gy, gz;
  std::optional<Adc> adc;
  std::vector<Label> labels;
  // Longest event in the block (the block may be longer: a delay).
  double events_duration_s(const SystemLimits& sys) const;
};

struct BlockSequence {
  SystemLimits sys;
  std::string name;
  double fov_m[3] = {0, 0, 0};
  std::vector<std::pair<std::string, std::string>> extra_definitions;  // others, kept verbatim
  std::vector<Block> blocks;
  std::vector<std::string> warnings;  // e.g. unknown optional extensions met on reading

  double duration_s() const;
  long long adc_samples() const;
};

// Checks every gradient against the amplitude and slew limits and every event against the rasters.
// Throws InputError naming the block, axis, value and allowed range.
void check_limits(const BlockSequence& s, const std::string& source);

// Design helpers (Pulseq make_trapezoid / make_sinc_pulse equivalents).
// Shortest trapezoid of `area` [cycles/m] on the gradient raster within the limits.
Gradient make_trapezoid_area(double area_Hz_s_per_m, const SystemLimits& sys);
// Trapezoid with a given flat time and flat area (readout): ramps as short as the slew allows.
Gradient make_trapezoid_flat(double flat_area_Hz_s_per_m, double flat_s, const SystemLimits& sys);
// Trapezoid of `area` lasting exactly `duration_s` (raster multiple); InputError if impossible.
Gradient make_trapezoid_duration(double area_Hz_s_per_m, double duration_s, const SystemLimits& sys);
// Hann-windowed sinc of time-bandwidth `tbw`; with slice_thickness_m > 0 also the slice-select trapezoid
// and its rephaser (returned through `gz`, `gz_rephase`).
RfPulse make_sinc_pulse(double flip_rad, double duration_s, double tbw, double phase_rad, const SystemLimits& sys,
                        double slice_thickness_m = 0, Gradient* gz = nullptr, Gradient* gz_rephase = nullptr);
// Gaussian exp(-pi·(tbw/duration·t)²) (Pulseq makeGaussPulse without apodisation), slice select as above.
RfPulse make_gauss_pulse(double flip_rad, double duration_s, double tbw, double phase_rad, const SystemLimits& sys,
                         double slice_thickness_m = 0, Gradient* gz = nullptr, Gradient* gz_rephase = nullptr);
RfPulse make_block_pulse(double flip_rad, double duration_s, double phase_rad, const SystemLimits& sys);
// Piecewise-linear gradient through the corners (t [s] from the block start, on the gradient raster;
// G [Hz/m]), as a Pulseq extended trapezoid; corners at the same time are merged (first value kept).
Gradient make_extended_trapezoid(const std::vector<double>& t_s, const std::vector<double>& g_Hz_per_m,
                                 const SystemLimits& sys);
// Two adjacent trapezoid lobes of `lobe_s` each (one gradient of 2·lobe_s) whose areas bring the total
// zeroth moment to m0_target and the first moment, about the lobes' start, to m1_target, given what the
// rest of the waveform contributes (m0_fixed, m1_fixed about the same origin) [Hz/m·s, Hz/m·s²]. Flow
// compensation: m0_target = 0, m1_target = 0. nullopt when the lobes do not fit the limits in lobe_s.
std::optional<Gradient> make_moment_nulling_lobes(double m0_target, double m1_target, double m0_fixed, double m1_fixed,
                                                  double lobe_s, const SystemLimits& sys);
// Zeroth and first moment (about t = 0 of the block, shifted by `offset_s`) of `g` over [t_from, t_to] of
// its block: m0 += ∫G dt, m1 += ∫G·(t + offset_s) dt (exact for the piecewise-linear waveform).
void add_gradient_moments(const Gradient& g, double grad_raster_s, double t_from_s, double t_to_s, double offset_s,
                          double& m0, double& m1);
// Flip angle of a pulse: 2pi · |∫ B1 dt| [rad].
double rf_flip_rad(const RfPulse& rf, double rf_raster_s);

double round_up_to_raster(double t_s, double raster_s);

// ---- Block sequence -> simulator program (sequence_to_program.cpp) ----
struct ConversionOptions {
  // Hard-pulse step of shaped RF: 0 = every RF raster sample is its own instant rotation (exact to the
  // raster); larger steps group samples (B1 summed), for speed.
  double rf_step_s = 0;
  // Every pulse as one instant rotation at its centre by its whole B1 area (the instant RF of the event
  // model of Jurczuk et al. 2016): no relaxation, off-resonance or gradient action within the pulse.
  // Overrides rf_step_s.
  bool hard_rf = false;
  // Simulate in the frame of the RF phase: when a pulse's phase offset changes (RF spoiling, bSSFP's
  // 0/180° alternation) the spins are rotated about z by the change (two instant 180° pulses, exact) and
  // every later phase is taken relative to it, so samples come out already demodulated where the ADC
  // phase follows the RF phase (demod_phase_rad holds only the rest). For callers that do not demodulate.
  bool follow_rf_phase = false;
  // Ideal spoiling (Jurczuk et al. 2016): Mxy destroyed before every excitation (dummy TRs included), i.e. after the
  // previous readout. Stands in for spoiler gradients, whose moment a cell grid cannot resolve (2 cycles
  // per voxel alias to whole turns on its cells).
  bool ideal_spoiling = false;
  // Free intervals under a gradient longer than this are split into equal pieces, each with its exact
  // moment (0 = no limit: one Free event per interval between RF / ADC instants). Moving spins then see
  // when the gradient acts (its first moment, e.g. a bipolar's velocity phase), not only its total.
  double max_free_step_s = 0;
  // Play with cell states (SequenceProgram::cell_states): a zero-length Free marks every RF pulse's centre,
  // and Free intervals are cut at the gradients' corners (merged only where the gradient is the same), so each
  // is one ramp or one flat gradient for the states' diffusion.
  bool cell_states = false;
};

// Phases follow Pulseq's convention (its examples set freq_offset = G·position and compensate the
// slice-offset phase with phase_offset = −2pi·f·t_centre): a Pulseq RF has phase phi + 2pi·f·t (t from
// the pulse start) and excites position f/G; an ADC with offset f puts position f/G at the image centre.
// The simulator precesses clockwise (Mxy' = Mxy·exp(-i·theta), frequency γ̄G·r), the complex conjugate of
// Pulseq's picture, so every Pulseq phase enters negated: RF phase −(phi + shape phase + 2pi·f·t), and the
// receiver demodulates each sample by exp(-i·demod) with demod = −(phi + 2pi·f·t) (t from the ADC start).
struct ProgramConversion {
  SequenceProgram program;
  bool per_sample_readouts = false;  // true: one Readout event per ADC sample (program.nx = 1)
  int adc_count = 0;
  std::vector<int> adc_samples;               // per ADC
  std::vector<int> adc_line;                  // per ADC: LIN label (or the ADC index without labels)
  std::vector<std::uint8_t> adc_flags;        // per ADC: LineFlag bits from the REF / IMA labels
  std::vector<double> demod_phase_rad;        // per ADC sample (flat): receiver phase
  std::vector<double> sample_time_s;          // per ADC sample (flat)
  std::vector<double> kx, ky, kz;             // per ADC sample [cycles/m]: 0 at excitation, negated at refocusing
  int k0_adc = -1, k0_sample = -1;            // ADC and sample of the smallest |k|
  double TE_s = 0, TR_s = 0;                  // derived: excitation centre to k0; median excitation spacing
};

ProgramConversion to_sequence_program(const BlockSequence& s, const ConversionOptions& opt = {});
// The value of label `name` (SET, SLC, PAR, LIN, ...) in force at every ADC, in ADC order (0 where none was
// set; a label set on the ADC's block or earlier).
std::vector<int> adc_label_values(const BlockSequence& s, std::string_view name);
// The SET label at every ADC: the raw-data segment each ADC fills.
std::vector<int> adc_set_labels(const BlockSequence& s);
// ---- Builders (sequence_builders.cpp): validated parameters, minimum TE / TR computed ----
struct CartesianParams {
  SystemLimits sys;
  double fov_m = 0.256;
  int matrix = 64;                      // readout samples and phase-encode lines
  double TE_s = 0, TR_s = 0;            // 0: the minimum
  double flip_angle_deg = 15;
  double bandwidth_Hz_per_pixel = 500;
  double slice_thickness_m = 5e-3;
  double rf_duration_s = 1e-3;          // sinc, time-bandwidth 4
  int dummy_scans = 0;
  bool rf_spoiling = true;              // spoiled GRE: 117° quadratic RF phase, ADC phase follows
  int accel_R = 1;                      // keep every R-th phase-encode line ...
  int acs_lines = 0;                    // ... plus this many central lines, labelled REF (and IMA)
  std::string undersampling = "regular";  // "regular" | "random" | "poisson_disc" (undersampling_pattern.hpp)
  unsigned undersampling_seed = 1;
  bool separate_acs = false;            // the ACS lines as their own fully sampled block before the imaging
                                        // scan (labelled REF only; the imaging lines IMA only)
  double partial_fourier = 1;           // fraction of the phase-encode lines acquired, 0.5 .. 1: the lowest
                                        // ky lines are skipped, the centre and the upper half kept
  double venc_m_per_s = 1.0;            // phase contrast
  std::vector<int> venc_axes = {0};     // phase contrast: 0 x, 1 y, 2 z (1 to 3 distinct)
  int slices = 1;                       // 2-D spoiled GRE / time of flight: slices excited in turn per TR
  double slice_gap_m = 0;               // (label SLC), centred on z = 0, thickness + gap apart
  bool flow_compensation = true;        // time of flight: first moment nulled at TE on readout and slice axes
  int partitions = 1;                   // time of flight: 1 = 2-D slice; 2 .. 256 = 3-D slab of slice_thickness_m
                                        // with that many kz partitions (label PAR)
};

struct BuiltSequence {
  BlockSequence seq;
  double min_TE_s = 0, min_TR_s = 0;  // for these parameters
  double TE_s = 0, TR_s = 0;          // as built (TE on the block raster)
  std::string report;                 // one line per fact, for --info and logs
};

// Each throws InputError naming `source` and the field with its allowed range (TE below the minimum,
// gradients beyond the limits, ACS larger than the matrix, ...).
BuiltSequence build_spoiled_gre_blocks(const CartesianParams& p, const std::string& source = "sequence");
BuiltSequence build_spin_echo_blocks(const CartesianParams& p, const std::string& source = "sequence");
// Balanced SSFP: every gradient axis has zero net moment per TR, RF phase alternates 0/180° after an
// alpha/2 preparation; TE is the minimum (TE_s must be 0).
BuiltSequence build_bssfp_blocks(const CartesianParams& p, const std::string& source = "sequence");
// Phase contrast: spoiled GRE with a bipolar gradient before the prephaser; segment 0 is the reference
// (all axes −M1/2), segment d has axis d at +M1/2, so the first-moment step is 1/(2·VENC) [Hz/m·s²] and a
// velocity of VENC gives a phase difference of pi. Label SET = segment.
BuiltSequence build_phase_contrast_blocks(const CartesianParams& p, const std::string& source = "sequence");
// Time of flight: short-TR spoiled GRE (2-D slice or 3-D slab with kz partitions). With flow compensation
// a pair of lobes on x and z before the readout nulls the first gradient moment at TE (velocity phase 0
// for constant flow) and, in 3-D, gives the kz encoding; the TE delay sits before them.
BuiltSequence build_tof_blocks(const CartesianParams& p, const std::string& source = "sequence");
BuiltSequence build_blocks(SequenceType type, const CartesianParams& p, const std::string& source = "sequence");

// The builders' common parameter checks (FOV, matrix, flip, bandwidth, slice, RF, dummy scans, R, ACS, TE/TR >= 0).
void check_builder_params(const CartesianParams& p, const std::string& source);
// The phase-encode lines the Cartesian builders play, as raw data flags them (raw_data.hpp LineFlag per line of
// `matrix`): the regular comb with its ACS block (integrated or separate), partial Fourier, or the
// variable-density pattern of p.undersampling. Throws InputError as the builders do for invalid parameters.
std::vector<std::uint8_t> cartesian_line_flags(const CartesianParams& p, const std::string& source = "sequence");
// Parts the gradient-echo builders share. Slice-selective excitation: Hann sinc of time-bandwidth 4 with
// its slice-select trapezoid (RF after the dead time), and the slice rephaser to play after the block.
struct Excitation {
  Block block;
  Gradient gz_rephase;
  double rf_center_abs_s = 0;  // RF centre from the block start
};
Excitation make_slice_excitation(double flip_rad, double rf_duration_s, double slice_thickness_m, char use,
                                 const SystemLimits& sys);
// Readout along x: trapezoid + ADC of `matrix` samples at dwell 1/(bandwidth·matrix) (ADC raster); after a
// prephaser of `pre_area` sample matrix/2 sits at k = 0 and sample i at (i − matrix/2)·dk.
struct ReadoutPart {
  Block block;
  double dk = 0;        // 1 / FOV [cycles/m]
  double pre_area = 0;  // prephaser area [cycles/m]
  double ro_area = 0;   // area of the readout trapezoid
};
ReadoutPart make_readout_part(double fov_m, int matrix, double bandwidth_Hz_per_pixel, const SystemLimits& sys);

// ---- Diagram (sequence_diagram.cpp): RF, Gx, Gy, Gz, ADC against time, for the GUI and --plot ----
struct DiagramTrace {
  std::string name, unit;
  std::vector<double> t_s, value;  // polyline; steps are two points at the same time
};
struct SequenceDiagram {
  double t_begin_s = 0, t_end_s = 0;
  std::vector<DiagramTrace> traces;  // RF |B1| [uT], Gx, Gy, Gz [mT/m], ADC [0/1]
};
// The window [t_begin, t_end) of the sequence (t_end <= t_begin: the whole sequence).
SequenceDiagram sequence_diagram(const BlockSequence& s, double t_begin_s = 0, double t_end_s = 0);
// Stacked line plots as an RGB PNG (libpng), written atomically.
void write_diagram_png(const SequenceDiagram& d, const std::string& path, int width = 1200, int height = 900);

// Applies the receiver demodulation to simulated samples ([coil][flat ADC sample]).
void demodulate(const ProgramConversion& c, std::span<std::complex<float>> samples, int ncoils);

// The k of every ADC sample as played (integrated from the blocks' gradients) in cycles per FOV, k [cycles/m]
// times fov_m per axis: readout r is the ADC with LIN label r (or the r-th ADC without labels), dims 2
// (kz left out) or 3. InputError unless every ADC has the same sample count and every line 0 .. ADCs - 1
// appears once. `source` (the file, when known) begins the message.
noncart::Trajectory played_trajectory(const ProgramConversion& c, const double (&fov_m)[3], int dims,
                                      const std::string& source = "");

}  // namespace mrwb::seq
