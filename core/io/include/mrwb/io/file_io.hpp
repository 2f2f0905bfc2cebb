#pragma once
// Files: ISMRMRD raw data and images (libismrmrd), BART .cfl/.hdr arrays, NIfTI-1 images, PNG (libpng).
// Every write goes to a temporary file beside the target and is renamed into place, so a failure never
// leaves a partial output. Every read checks sizes against the file before allocating, and answers a
// bad file with one InputError line naming the file and the field.
#include <complex>
#include <string>
#include <vector>

#include "mrwb/base/image.hpp"
#include "mrwb/base/raw_data.hpp"

namespace mrwb {

// ---- ISMRMRD raw data -------------------------------------------------------------------------------
// Which 2-D dataset of a file with several slices / repetitions / contrasts to read (ISMRMRD idx
// counters, 0-based). A RawData holds one of them; slice -1 reads every slice into one multi-slice
// RawData (raw.slices; kz partitions are always read whole), as `mrwb recon` does by default.
struct RawSelection {
  int slice = 0, repetition = 0, contrast = 0;
};
// What a raw-data file holds, so that the CLI can say which dataset it reconstructs.
struct RawFileSummary {
  int slices = 1, repetitions = 1, contrasts = 1;
  int acquisitions = 0;        // all, noise included
  int noise_acquisitions = 0;  // ACQ_IS_NOISE_MEASUREMENT
  int calibration_lines = 0;   // in the selection: ACQ_IS_PARALLEL_CALIBRATION[_AND_IMAGING]
  std::string trajectory;      // ISMRMRD trajectory type ("cartesian", "radial", ...)
};

void write_raw_ismrmrd(const std::string& path, const RawData& raw);
// Reads the selected dataset. Readout oversampling stays in the data (nx = encoded matrix); the recon
// space is recorded in recon_nx/recon_fov_*; asymmetric readouts are placed on the encoded grid by their
// center_sample; noise acquisitions fill raw.noise, scaled to the data's dwell time and the header's
// relativeReceiverNoiseBandwidth (noise_bandwidth_scale); calibration lines are flagged in line_flags.
RawData read_raw_ismrmrd(const std::string& path, const RawSelection& selection, RawFileSummary* summary = nullptr);
RawData read_raw_ismrmrd(const std::string& path);  // the first slice, repetition and contrast

// ---- BART .cfl/.hdr ---------------------------------------------------------------------------------
// A BART array: dims[0] varies fastest (column-major), complex float data. BART's dimension order:
// 0 READ, 1 PHS1, 2 PHS2, 3 COIL, 4 MAPS, 5 TE, 6 COEFF, 7 COEFF2, 8 ITER, 9 CSHIFT, 10 TIME, 11 TIME2,
// 12 LEVEL, 13 SLICE, 14 AVG, 15 BATCH.
struct CflArray {
  std::vector<long> dims;
  std::vector<std::complex<float>> data;
  std::size_t size() const;
};
// path: "name", "name.cfl" or "name.hdr" (both files are read / written).
CflArray read_cfl(const std::string& path);
// The files that paths stand for, as an OutputTransaction compares inputs and outputs: a BART array's .cfl and
// .hdr for "name.cfl" or "name.hdr"; any other path itself (empty paths left out).
std::vector<std::string> files_of(const std::vector<std::string>& paths);
void write_cfl(const std::string& path, const CflArray& array);
// k-space [READ, PHS1, 1, COIL] (Cartesian) or [1, samples, lines, COIL] with a trajectory
// [3, samples, lines] in cycles per FOV (as `bart traj` writes it). selection picks BART's SLICE (13),
// TIME (10) and TE (5) dimensions.
RawData read_raw_cfl(const std::string& kspace_path, const std::string& traj_path = "",
                     const RawSelection& selection = {});
void write_raw_cfl(const std::string& kspace_path, const std::string& traj_path, const RawData& raw);
void write_image_cfl(const std::string& path, const Image2D& image);  // [x, y] complex
Image2D read_image_cfl(const std::string& path);

// ---- NIfTI-1 ----------------------------------------------------------------------------------------
// Single-file .nii, float32 magnitude, voxel size FOV/N in mm (1 mm where the FOV is unknown), image
// centre at the origin.
void write_nifti(const std::string& path, const Image2D& image);
Image2D read_nifti(const std::string& path);  // 2-D (nz = 1) uint8/int16/int32/float32/float64/complex64

// ---- ISMRMRD images ---------------------------------------------------------------------------------
void write_image_ismrmrd(const std::string& path, const Image2D& image);
// One complex ISMRMRD image of nx × ny × nz voxels (x fastest), field of view in mm; `data` holds
// nx·ny·nz values. The writer behind write_image_ismrmrd and the 3-D volume output.
void write_complex_image_ismrmrd(const std::string& path, int nx, int ny, int nz, const float fov_mm[3],
                                 const std::complex<float>* data);
Image2D read_image_ismrmrd(const std::string& path);

// ---- PNG --------------------------------------------------------------------------------------------
// Magnitude as grey PNG, 8 or 16 bits; window [lo, hi] (hi <= lo: 0 .. max). Row 0 (y = −FOV/2) at
// the bottom.
void write_png_magnitude(const std::string& path, const std::vector<float>& magnitude, int nx, int ny,
                         float lo = 0, float hi = 0, int bit_depth = 8);
// Window from centre (level) and width, as viewers state it: [level − width/2, level + width/2].
inline void write_png_window_level(const std::string& path, const std::vector<float>& magnitude, int nx, int ny,
                                   float level, float width, int bit_depth = 8) {
  write_png_magnitude(path, magnitude, nx, ny, level - width / 2, level + width / 2, bit_depth);
}
// Signed error map with a perceptual diverging colormap (Moreland cool-warm), symmetric around 0
// (max_abs <= 0: auto), and a colorbar on the right with ticks at −max, 0, +max; the scale is also
// stored as PNG text ("mrwb:error_max_abs").
void write_png_error_map(const std::string& path, const std::vector<float>& error, int nx, int ny,
                         float max_abs = 0);
// A decoded PNG (for tests and viewers): samples row-major from the top row, `channels` per pixel.
struct PngPixels {
  int width = 0, height = 0, channels = 0, bit_depth = 0;
  std::vector<unsigned> samples;
  std::vector<std::pair<std::string, std::string>> text;
};
PngPixels read_png(const std::string& path);

// ---- By extension -----------------------------------------------------------------------------------
// Raw data from .h5 (ISMRMRD) or .cfl (BART k-space, with traj_path for non-Cartesian data). When
// description is given it receives one line saying what was read and which slice/repetition/contrast.
RawData read_raw(const std::string& path, const std::string& traj_path = "", const RawSelection& selection = {},
                 std::string* description = nullptr);
// How a magnitude PNG is rendered: 8 or 16 bits; window width and centre (level) in image units,
// width <= 0: the full range 0 .. max.
struct PngOptions {
  int bit_depth = 8;
  float window = 0, level = 0;
};
// .h5 (ISMRMRD image), .cfl (BART), .nii (NIfTI-1 magnitude) or .png (magnitude, rendered as png says).
void write_image(const std::string& path, const Image2D& image, const PngOptions& png = {});
// .h5, .cfl/.hdr, .nii. Throws InputError naming the file on a bad or missing file.
Image2D read_image(const std::string& path);

}  // namespace mrwb
