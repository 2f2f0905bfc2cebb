#pragma once
// Pulseq .seq files: read (versions 1.2 to 1.5) into and write (1.4, 1.5) from the block model.
// Sections: [VERSION] [DEFINITIONS] [BLOCKS] [RF] [GRADIENTS] [TRAP] [ADC] [DELAYS] (read; before 1.4 the
// blocks' delay events, which set their durations)
// [EXTENSIONS] (LABELSET / LABELINC; ROTATIONS, DELAYS, TRIGGERS, RF_SHIMS refused, as the simulator does not
// play them; others: refused when listed in RequiredExtensions, else a warning)
// [SHAPES] (run-length compressed derivative) [SIGNATURE] (md5, verified on read, written on write).
#include <string>
#include <vector>

#include "mrwb/sequence/sequence_blocks.hpp"

namespace mrwb::seq {

// Throws InputError "FILE:LINE: what (allowed ...)" for malformed input or a wrong signature.
BlockSequence read_pulseq(const std::string& path);
BlockSequence parse_pulseq(const std::string& text, const std::string& source);
// minor: 4 or 5. The text ends with the [SIGNATURE] section.
std::string pulseq_text(const BlockSequence& s, int minor = 5);
// Atomic (temporary file, then rename).
void write_pulseq(const BlockSequence& s, const std::string& path, int minor = 5);

// Pulseq shape compression: derivative, then runs of equal values stored as "v v count-2".
std::vector<double> compress_shape(const std::vector<double>& w);
// Throws InputError when `packed` does not expand to `num_samples` values.
std::vector<double> decompress_shape(const std::vector<double>& packed, int num_samples);
std::string md5_hex(const std::string& data);

}  // namespace mrwb::seq
