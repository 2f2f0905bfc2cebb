#pragma once
// The non-Cartesian pipelines on the CPU (Stone et al. 2008): raw data checked into samples and a grid,
// exact or gridded F^H d and Q, coil sensitivities, CG; gridding of every coil; the registry's
// Reconstructors (2-D images). 3-D volumes: noncart_volume.hpp.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mrwb/base/progress.hpp"
#include "mrwb/base/rank_comm.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/recon/gridding.hpp"
#include "mrwb/recon/noncart_cg.hpp"
#include "mrwb/recon/noncart_types.hpp"
#include "mrwb/recon/reconstructor.hpp"

namespace mrwb::noncart {

// Kaiser-Bessel settings of the NoncartParams (width, oversampling).
GriddingParams gridding_params(const NoncartParams& p);

// Coil sensitivities estimated from low-resolution coil images (central k-space |k| < n/8, Hann window):
// S_c = I_c / sqrt(sum |I_c|^2 + eps). coil_images: [coil][n^D].
std::vector<cfloat> estimate_sensitivities(const Grid& g, const std::vector<std::vector<cdouble>>& lowres);
// Sensitivities from low-resolution coil images of multi-coil samples (centre |k| < n/8, Hann taper,
// Pipe-Menon weights, Kaiser-Bessel gridding), then estimate_sensitivities.
std::vector<cfloat> estimate_sensitivities(const Grid& g, const Samples& s, const GriddingParams& p);

// The sensitivities the cg uses (CPU and CUDA): p.sensitivities when given (InputError unless coils x n^D
// values), else the estimate above for several coils, else none (one coil, S = 1).
std::vector<cfloat> cg_sensitivities(const Grid& g, const Samples& s, const NoncartParams& p);

// Whole CPU pipeline on Samples (also used by tests and the bench): exact or gridded F^H d and Q, then CG.
// comm: this rank's part of a run over ranks (noncart_ranks.hpp; every rank returns the whole image).
// threads: the exact sums' threads (0: hardware concurrency).
struct CgResult {
  std::vector<cdouble> image;
  CgReport report;
  double seconds_fhd = 0, seconds_q = 0, seconds_solver = 0;
};
CgResult reconstruct_cg_cpu(const Grid& g, const Samples& s, const NoncartParams& p, Precision prec,
                            const std::vector<cfloat>& sens = {}, const ProgressFn& progress = {},
                            const CancelToken& cancel = {}, RankComm* comm = nullptr, int threads = 0);

// What every `gridding` / `cg` reconstruction starts from: iterations and matrix checked (InputError
// with the allowed range), the samples of the raw data, of `dims` (2: an image, 3: a volume; the other
// is refused), the grid (p.matrix or default_matrix) and the samples validated under `method`'s name.
struct ReconInput {
  Grid grid;
  Samples samples;
};
ReconInput recon_input(const RawData& raw, const NoncartParams& p, ReconMethod method, int dims);

// The host memory one CPU gridding / cg reconstruction may take: 4 GiB, the ceiling of the flow builders
// (k_flow_memory_limit_bytes) and twice the largest k-space the readers accept (2^28 samples).
constexpr double k_noncart_memory_limit_bytes = 4.0 * (1 << 30);
// Bytes the CPU pipeline of `method` allocates at most on grid g for M samples of `coils` coils: the
// samples' copy, the (oversampled) grids, the coil images and sensitivities, Q and the CG vectors. In
// double: n^3 of a hostile --matrix overflows size_t.
double noncart_cpu_bytes(const Grid& g, std::size_t M, int coils, ReconMethod method, const NoncartParams& p);
// Throws InputError naming --matrix (p.matrix, or the trajectory's default), the bytes, the limit and
// the largest matrix that fits, when noncart_cpu_bytes exceeds k_noncart_memory_limit_bytes.
void check_noncart_memory(const Grid& g, std::size_t M, int coils, ReconMethod method, const NoncartParams& p);

// Gridding of every coil by `coil_image(c)`, combined: the coil's image for one coil, root sum of squares
// for several. Progress per coil; cancel between coils.
std::vector<cdouble> combine_coil_images(int coils, const std::function<std::vector<cdouble>(int coil)>& coil_image,
                                         const ProgressFn& progress, const CancelToken& cancel);

// The 2-D cg or gridding (options.method) on the CPU as this rank's part of a run over ranks
// (noncart_ranks.hpp; `mrwb recon --ranks N`): every rank returns the whole image. comm null: one process, as
// the registry's CPU reconstructors. threads: the exact sums' threads (0: hardware concurrency).
Image2D reconstruct_noncart_cpu(const RawData& raw, const ReconOptions& options, RankComm* comm, int threads,
                                const ProgressFn& progress, const CancelToken& cancel);

// Factories the registry uses (recon_registry.cpp).
std::unique_ptr<Reconstructor> make_cg_reconstructor_cpu();
std::unique_ptr<Reconstructor> make_gridding_reconstructor_cpu();

}  // namespace mrwb::noncart
