#pragma once
// Hostile Pulseq 1.4 texts (found by fuzzing): each must be refused on reading with one line that names
// the file line, the section or field and the allowed range. Shared by the reader test (test_pulseq) and
// the CLI test (test_cli_sequence_errors).
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

// Lines 1..11; [BLOCKS] and the rest follow from line 12.
inline QByteArray hostile_head(const QByteArray& definitions = {}) {
  QByteArray d = definitions.isEmpty() ? QByteArray("AdcRasterTime 1e-07\nBlockDurationRaster 1e-05\n"
                                                    "GradientRasterTime 1e-05\nRadiofrequencyRasterTime 1e-06\n")
                                       : definitions;
  return "[VERSION]\nmajor 1\nminor 4\nrevision 0\n\n[DEFINITIONS]\n" + d + "\n";
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
       {":16:", "[ADC] dwell 1e12 ns", "allowed: > 0"}},
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

}  // namespace mrwb_test
