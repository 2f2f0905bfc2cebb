#pragma once
// The g-factor of any reconstruction by pseudo-multiple replicas (Robson et al. 2008, "Comprehensive
// quantification of signal-to-noise ratio and g-factor for image-based and k-space-based parallel imaging
// reconstructions", Magn Reson Med 60:895): the data are reconstructed `replicas` times with fresh white
// complex Gaussian noise of standard deviation sigma on every acquired sample; the per-pixel standard
// deviation of the magnitude, sigma_R(x), against that of a fully sampled acquisition with the same noise,
//   g(x) = sigma_R(x) / (sigma_1(x) · sqrt(R))        (their eq. 3, SNR_1 / (SNR_R · sqrt(R)) at equal signal),
// R the net acceleration: lines / lines acquired, the calibration lines counted (GRAPPA keeps them in its
// k-space; Robson et al. count GRAPPA's ACS lines the same way). SENSE's unfolding leaves lines off its comb unused, so its
// analytic g (sense.hpp, per comb R) equals this one on data without them.
// sigma_1 is analytic: a fully sampled Cartesian acquisition of nx · ny samples per coil reconstructed by the
// centred inverse DFT (1/N) and combined on the scale of every method here (root sum of squares, or the
// object times the maps' root sum of squares) has magnitude noise sigma / sqrt(2 · nx · ny) at high SNR,
// whatever the coils; `test_gfactor_replica` checks it at R = 1. White noise is assumed, as for SENSE's
// analytic g (sense.hpp): the replicas are reconstructed without the data's noise scan, so nothing
// prewhitens them.
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/metrics/recon_comparison.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb {

struct ReplicaGfactorOptions {
  int replicas = 64;        // 2 .. 10000; the estimate's relative standard error is about 1 / sqrt(2 · replicas)
  double noise_sigma = 0;   // per sample (complex, E|n|^2 = sigma^2); 0: 1e-3 x the RMS of the acquired samples
  unsigned seed = 1;
};

struct GfactorMap {
  int nx = 0, ny = 0;           // the reconstruction's image grid
  std::vector<float> g;         // [y][x]; 0 where the image's SNR is below k_min_snr (the noise is not Gaussian)
  std::vector<float> sigma_R;   // [y][x] magnitude noise of the reconstruction
  double sigma_1 = 0;           // magnitude noise of the fully sampled reference
  double R = 1;                 // net acceleration: ny / lines acquired
  int replicas = 0;
};

// g is reported where |image| >= k_min_snr · sigma_R: there the magnitude's noise is the projection of the
// complex noise on the signal's phase, Gaussian and linear in the noise (Gudbjartsson & Patz 1995).
constexpr double k_replica_min_snr = 10;

// raw: Cartesian, one slice (a slice of a volume: extract_slice). options: the method and its parameters, as
// for make_reconstructor (on the CPU backend the replicas run on every hardware thread, a reconstructor each).
// Throws InputError for replicas outside [2, 10000], noise_sigma < 0, non-Cartesian or volume data (one line,
// the allowed), Cancelled when cancelled (checked between replicas).
GfactorMap pseudo_replica_gfactor(const RawData& raw, const ReconOptions& options, const ReplicaGfactorOptions& replica,
                                  const ProgressFn& progress = {}, const CancelToken& cancel = {});

// The g-factor maps of a comparison's methods, beside their error maps (the Compare panel): SENSE's analytic map
// where it unfolds a regular comb, pseudo-multiple replicas of `replicas` for every other method. Entries that
// failed, volumes and non-Cartesian data get none (gfactor_source says why). requests: those the comparison ran,
// in its order. progress over every entry; Cancelled propagates.
void add_gfactor_maps(ReconComparison& comparison, const RawData& raw, const std::vector<ComparisonRequest>& requests,
                      int replicas, const ProgressFn& progress = {}, const CancelToken& cancel = {});

}  // namespace mrwb
