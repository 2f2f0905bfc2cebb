#pragma once
// Hostile Pulseq 1.4 / 1.5 texts (found by fuzzing, and by a review of what the reader read without a word):
// each must be refused on reading with one line that names the file line, the section or field and the
// allowed range. Shared by the reader test (test_pulseq) and the CLI tests (test_cli_sequence_errors,
// test_cli_hostile_input).
#include <QByteArray>
#include <QList>
#include <QStringList>

namespace mrwb_test {

struct HostileSeq {
  const char* name;
  QByteArray text;
  QStringList expect;     // substrings of the error (after the file name)
  bool played = false;    // the crash showed when played by `mrwb simulate --seq`
};

// The four rasters of hostile_head, lines 7..10.
inline QByteArray hostile_rasters() {
  return "AdcRasterTime 1e-07\nBlockDurationRaster 1e-05\nGradientRasterTime 1e-05\nRadiofrequencyRasterTime 1e-06\n";
}
// Lines 1..11; [BLOCKS] and the rest follow from line 12. `minor`: Pulseq 1.4 or 1.5.
inline QByteArray hostile_head(const QByteArray& definitions = {}, int minor = 4) {
  const QByteArray d = definitions.isEmpty() ? hostile_rasters() : definitions;
  return "[VERSION]\nmajor 1\nminor " + QByteArray::number(minor) + "\nrevision 0\n\n[DEFINITIONS]\n" + d + "\n";
}

inline QList<HostileSeq> hostile_seqs() {
  const QByteArray h = hostile_head();
  return {
      // A shape of zero samples played by a gradient / an RF (crashed on the empty waveform).
      {"zero-sample gradient shape",
       h + "[BLOCKS]\n1 10 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 0\n",
       {":19:", "[SHAPES] shape_id 1", "num_samples 0", "allowed: 1..4194304"}},
      {"zero-sample RF shape",
       h + "[BLOCKS]\n1 100 1 0 0 0 0 0\n\n[RF]\n1 100 1 1 0 0 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 0\n",
       {":19:", "[SHAPES] shape_id 1", "num_samples 0", "allowed: 1..4194304"}},
      // Negative label values index k-space lines below 0 when played.
      {"negative LABELSET",
       h + "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\nextension LABELSET 1\n1 -5 LIN\n",
       {":21:", "[EXTENSIONS] LABELSET value -5", "allowed: 0..65535"}, true},
      {"LABELINC below zero",
       h + "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\nextension LABELINC 1\n1 -1 LIN\n",
       {":13:", "label LIN becomes -1", "allowed: 0..65535"}, true},
      // Absurd durations (the diagram looped for hours over them).
      {"block durations 0 under events",
       h + "[BLOCKS]\n1 0 0 1 0 0 0 0\n2 0 0 1 0 0 0 0\n\n[TRAP]\n1 1000 10 100 10 0\n",
       {":13:", "block 1 duration 0 us is shorter than its events", "allowed: >="}},
      {"trapezoid flat time 1e12 us",
       h + "[BLOCKS]\n1 0 0 1 0 0 0 0\n\n[TRAP]\n1 1000 10 1e12 10 0\n",
       {":16:", "[TRAP] flat time 1e12 us", "allowed: 0..8.64e+10 us"}},
      {"ADC dwell 1e12 ns",
       h + "[BLOCKS]\n1 0 0 0 0 0 1 0\n\n[ADC]\n1 100 1e12 0 0 0\n",
       {":16:", "[ADC] dwell 1e+12 ns", "num x dwell <= 8.64e+13 ns"}},
      {"gradient time shape 1e12",
       h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 2 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n0\n1\n\n"
           "shape_id 2\nnum_samples 2\n0\n1e12\n",
       {":16:", "gradient time shape sample 2", "allowed: non-decreasing"}},
      {"total duration beyond a day",
       h + "[BLOCKS]\n1 5000000000 0 0 0 0 0 0\n2 5000000000 0 0 0 0 0 0\n",
       {":14:", "total duration <= 86400 s"}},
      {"raster 1e999",
       hostile_head("GradientRasterTime 1e999\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n",
       {":7:", "[DEFINITIONS] GradientRasterTime", "allowed: 1e-09..0.001 s"}},
      {"raster 1e-300",
       hostile_head("BlockDurationRaster 1e-300\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n",
       {":7:", "[DEFINITIONS] BlockDurationRaster", "allowed: 1e-09..0.001 s"}},
      // A FOV that is no number became 0 m, a negative one was kept.
      {"FOV not a number",
       hostile_head("FOV abc def ghi\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n",
       {":7:", "[DEFINITIONS] FOV value 1 'abc'", "allowed: 0..10 m"}},
      {"negative FOV",
       hostile_head("FOV -1 -1 -1\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n",
       {":7:", "[DEFINITIONS] FOV value 1 '-1'", "allowed: 0..10 m"}},
  };
}

// What a review found read without a word (one case per class of input).
inline QList<HostileSeq> reviewed_seqs() {
  const QByteArray h = hostile_head(), h15 = hostile_head({}, 5);
  const QByteArray rf_block = "[BLOCKS]\n1 100 1 0 0 0 0 0\n\n[RF]\n";  // lines 12..15, the RF row at 16
  const QByteArray shapes = "\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n1\n1\n\nshape_id 2\nnum_samples 2\n0\n0\n";
  const QByteArray ext_block = "[BLOCKS]\n1 100 0 0 0 0 0 1\n\n[EXTENSIONS]\n1 1 1 0\n";  // extension line at 17
  const QByteArray adc_label = "[BLOCKS]\n1 100 0 0 0 0 1 1\n\n[ADC]\n1 64 10000 0 0 0\n\n[EXTENSIONS]\n1 1 1 0\n";
  QList<HostileSeq> out = {
      // The amplitude limits hold for amplitude x shape sample, as played.
      {"RF amplitude 37 Hz x shape sample 50000",
       h + rf_block + "1 37 1 2 0 0 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n50000\n50000\n\nshape_id 2\nnum_samples 2\n0\n0\n",
       {":16:", "[RF] amplitude 37 Hz of RF 1 x mag_id shape 1 sample 1 (50000) plays 1.85e+06 Hz",
        "allowed: -100000..100000 Hz as played"}, true},
      {"gradient amplitude x shape sample",
       h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1e6 1 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n5000\n5000\n",
       {":16:", "[GRADIENTS] amplitude 1e+06 Hz/m of gradient 1 x shape_id shape 1", "plays 5e+09 Hz/m",
        "allowed: -1e+09..1e+09 Hz/m as played"}, true},
      {"RF phase shape sample 1e300",
       h + rf_block + "1 100 1 2 0 0 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n1\n1\n\nshape_id 2\nnum_samples 2\n1e300\n1e300\n",
       {":16:", "[RF] phase of RF 1: 2 pi x phase_id shape 2", "allowed: -1e+06..1e+06 rad as played"}, true},
      // Pulseq 1.5's use is one of mr.getSupportedRfUse's letters.
      {"RF use x", h15 + rf_block + "1 100 1 2 0 1 0 0 0 0 0 x" + shapes,
       {":16:", "[RF] use 'x' of RF 1", "allowed: e, r, i, s, p, o, u"}},
      {"RF use E", h15 + rf_block + "1 100 1 2 0 1 0 0 0 0 0 E" + shapes, {":16:", "[RF] use 'E'", "allowed: e, r, i"}},
      {"RF use 1", h15 + rf_block + "1 100 1 2 0 1 0 0 0 0 0 1" + shapes, {":16:", "[RF] use '1'", "allowed: e, r, i"}},
      {"RF use excitation", h15 + rf_block + "1 100 1 2 0 1 0 0 0 0 0 excitation" + shapes,
       {":16:", "[RF] use 'excitation'", "allowed: e, r, i"}},
      // Shapes: every reference defined (a row no block plays too), every id once.
      {"undefined phase shape",
       h + "[BLOCKS]\n1 100 0 0 0 0 0 0\n\n[RF]\n1 100 1 7 0 0 0 0" + shapes,
       {":16:", "[RF] phase_id 7 is not defined in [SHAPES]", "allowed: a shape_id of [SHAPES]"}},
      {"duplicate shape id",
       h + rf_block + "1 100 1 1 0 0 0 0\n\n[SHAPES]\nshape_id 1\nnum_samples 2\n1\n1\n\nshape_id 1\nnum_samples 3\n1\n0\n0\n",
       {":24:", "[SHAPES] shape_id 1 is defined twice, first at line 19", "allowed: each shape_id once"}},
      {"duplicate RF id", h + rf_block + "1 100 1 2 0 0 0 0\n1 50 1 2 0 0 0 0" + shapes,
       {":17:", "[RF] id 1 is defined twice", "allowed: each id once"}},
      {"gradient id in [GRADIENTS] and [TRAP]",
       h + "[BLOCKS]\n1 100 0 1 0 0 0 0\n\n[GRADIENTS]\n1 1000 1 0 0\n\n[TRAP]\n1 1000 10 100 10 0" + shapes,
       {":16:", "[GRADIENTS] id 1 is also a [TRAP] id", "allowed: each gradient id once"}},
      // The centre (1.5) lies within the pulse: 2 samples of 1 us.
      {"RF centre past the pulse", h15 + rf_block + "1 100 1 2 0 5000 0 0 0 0 0 e" + shapes,
       {":16:", "[RF] center 5000 us of RF 1 is past the pulse's end", "allowed: 0..2 us, the pulse's duration"}},
      // Extensions: RequiredExtensions holds only what is read, labels are Pulseq's, and the extensions
      // that change what is played are refused.
      {"RequiredExtensions FOO",
       hostile_head(hostile_rasters() + "RequiredExtensions LABELSET FOO\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n",
       {":11:", "[DEFINITIONS] RequiredExtensions 'FOO'", "not supported (supported: LABELSET, LABELINC)"}},
      {"label FOO", h + adc_label + "extension LABELSET 1\n1 3 FOO\n",
       {":21:", "[EXTENSIONS] LABELSET label 'FOO' is not a Pulseq label", "allowed: SLC, SEG"}, true},
      {"extension ROTATIONS", h + ext_block + "extension ROTATIONS 1\n1 0.707107 0 0 0.707107\n",
       {":17:", "[EXTENSIONS] extension ROTATIONS is not supported", "supported: LABELSET, LABELINC"}, true},
      {"extension TRIGGERS", h + ext_block + "extension TRIGGERS 1\n1 2 1 0 100\n",
       {":17:", "[EXTENSIONS] extension TRIGGERS is not supported", "supported: LABELSET, LABELINC"}, true},
      {"extension DELAYS (soft delays)", h + ext_block + "extension DELAYS 1\n1 1 0 1 TE\n",
       {":17:", "[EXTENSIONS] extension DELAYS is not supported", "supported: LABELSET, LABELINC"}, true},
      {"extension RF_SHIMS", h + ext_block + "extension RF_SHIMS 1\n1 2 1 1 0 1 0\n",
       {":17:", "[EXTENSIONS] extension RF_SHIMS is not supported", "supported: LABELSET, LABELINC"}, true},
      {"[DELAYS] in 1.4", h + "[BLOCKS]\n1 100 0 0 0 0 0 0\n\n[DELAYS]\n1 100\n",
       {":15:", "[DELAYS] is a Pulseq 1.2 / 1.3 section", "allowed: block durations"}},
      // Numbers: ids are decimal integers, durations whole block rasters, a dwell at least the ADC raster.
      {"event id 0x10", h + "[BLOCKS]\n1 100 0x10 0 0 0 0 0\n",
       {":13:", "[BLOCKS] rf '0x10' is not an id", "allowed: a decimal integer 0..2147483647"}},
      {"block id 1e1", h + "[BLOCKS]\n1e1 100 0 0 0 0 0 0\n", {":13:", "[BLOCKS] id '1e1' is not an id", "allowed: a decimal integer"}},
      {"RF id 0x1", h + rf_block + "0x1 100 1 2 0 0 0 0" + shapes, {":16:", "[RF] id '0x1' is not an id", "allowed: a decimal integer"}},
      {"ADC dwell 1e-12 s", h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 0.001 0 0 0\n",
       {":16:", "[ADC] dwell 0.001 ns of ADC 1 is out of range", "allowed: >= 100 ns, the AdcRasterTime"}, true},
      {"fractional block duration", h + "[BLOCKS]\n1 10.5 0 0 0 0 0 0\n",
       {":13:", "[BLOCKS] duration '10.5' is not a whole number of block rasters", "allowed: a decimal integer >= 0"}},
      {"hexadecimal number", h + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 0x1p14 0 0 0\n",
       {":16:", "[ADC] dwell '0x1p14' is not a number", "allowed: a decimal number"}},
      {"ADC phase shape (1.5)", h15 + "[BLOCKS]\n1 100 0 0 0 0 1 0\n\n[ADC]\n1 64 10000 0 0 0 0 0 3\n",
       {":16:", "[ADC] phase_id 3 of ADC 1", "allowed: 0"}},
      {"definition twice", hostile_head(hostile_rasters() + "AdcRasterTime 2e-07\n") + "[BLOCKS]\n1 10 0 0 0 0 0 0\n",
       {":11:", "[DEFINITIONS] AdcRasterTime is defined twice", "allowed: each definition once"}},
  };
  // A value of megabytes is shown cut, not echoed.
  out.append({"a 5 MB value", h + "[BLOCKS]\n1 " + QByteArray(5000000, 'x') + " 0 0 0 0 0 0\n",
              {":13:", "[BLOCKS] duration 'xxxxxxxxxx", "... (5000000 characters)", "allowed: a decimal integer >= 0"}});
  return out;
}

// Both lists, for the suites that run every case.
inline QList<HostileSeq> all_hostile_seqs() { return hostile_seqs() + reviewed_seqs(); }

}  // namespace mrwb_test
