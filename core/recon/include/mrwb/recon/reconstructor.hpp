#pragma once
// Reconstruction methods behind one interface, chosen by (method, backend) through a registry.
// core registers the CPU references; gpu/ registers CUDA versions in mrwb::gpu::register_backends().
#include <complex>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mrwb/base/backend.hpp"
#include "mrwb/base/backend_registry.hpp"
#include "mrwb/base/image.hpp"
#include "mrwb/base/progress.hpp"
#include "mrwb/base/raw_data.hpp"
#include "mrwb/base/recon_method.hpp"
#include "mrwb/recon/cg_operators.hpp"
#include "mrwb/recon/cg_sense.hpp"
#include "mrwb/recon/compressed_sensing.hpp"

namespace mrwb {

// GRAPPA (Schneider 2008). Kernel K_PE × K_RO for the improved approach; the basic approach uses N_b
// blocks and readout segments of delta_s columns. R and the ACS lines come from the raw data.
struct GrappaParams {
  std::string approach = "improved";  // "improved" (2-D kernel, power clipping) | "basic" (segments)
  int kernel_pe = 4;                  // K_PE (improved) / N_b blocks (basic)
  int kernel_ro = 5;                  // K_RO (improved)
  int segment_cols = 128;             // delta_s (basic)
  double lambda = 1e-4;               // chi: Tikhonov lambda = chi · trace(A A^H) / rows
  double eta = 1.0;                   // per-position normalisation Psi = p^(−eta/2) (basic)
  double clip = 0.0;                  // kappa: fraction of strongest equations dropped (improved)
  std::string combine = "sos";        // "sos" | "sensitivity"
};

// Iterative non-Cartesian reconstruction (Stone et al. 2008) and gridding.
struct NoncartParams {
  int matrix = 0;              // image matrix N (0: from the raw data header)
  int iterations = 20;
  double lambda = 0.0;         // regularisation weight
  std::string regularizer = "identity";  // "identity" | "finite-difference" | "anatomical"
  std::vector<float> prior;    // anatomical: reference image on the matrix, n^D values, x fastest
  double edge_threshold = 0.02;  // anatomical: an edge where the reference jumps by > this x its range
  std::string preconditioner = "none";   // "none" | "diagonal" | "circulant"
  double tolerance = 0.0;      // relative residual to stop at (0: run all iterations)
  CgOperators operators = CgOperators::Auto;  // cg: exact or gridded F^H d / Q (cg_operators.hpp)
  int gpus = 1;                // cg, gridding on CUDA: GPUs F^H d and Q are split over (0: all; CPU: ignored)
  double kb_width = 4.0;       // Kaiser-Bessel kernel width [grid cells]
  double oversampling = 2.0;   // gridding oversampling, 1.25 .. 2
  std::string density = "pipe-menon";   // gridding density compensation: pipe-menon | voronoi | radial | none
  std::string kernel = "kaiser-bessel";  // gridding kernel: kaiser-bessel | bilinear (CPU only)
  // cg with several coils: the coil maps [coil][n^D] on the grid (CG-SENSE with given maps, Pruessmann et al.
  // 2001: the simulator's or ESPIRiT's); empty: estimated from the low-resolution centre (noncart_recon.hpp).
  std::vector<std::complex<float>> sensitivities;
};

// SENSE (Pruessmann et al. 1999; recon/sense.hpp): the coil maps it unfolds with, direct on a regular comb and
// CG-SENSE (cg_sense.hpp) on any other line pattern. Compressed sensing (compressed_sensing.hpp) uses the
// same maps.
struct SenseParams {
  std::vector<std::complex<float>> maps;  // [coil][y][x] on the image grid (the simulator's: scenario_coil_maps)
  CgSenseParams cg;                       // CG-SENSE: iterations, lambda, tolerance
};

struct ReconOptions {
  ReconMethod method = ReconMethod::Fft;
  Backend backend = Backend::Auto;
  GrappaParams grappa;
  NoncartParams noncart;
  SenseParams sense;
  CsParams cs;
};

class Reconstructor {
 public:
  virtual ~Reconstructor() = default;
  virtual std::string name() const = 0;  // e.g. "grappa/cuda"
  virtual Image2D reconstruct(const RawData& raw, const ReconOptions& options, const ProgressFn& progress,
                              const CancelToken& cancel) = 0;
};

// Most methods are free functions: this adapts one to the interface under `name` (e.g. "grappa/cpu").
using ReconFn = std::function<Image2D(const RawData&, const ReconOptions&, const ProgressFn&, const CancelToken&)>;
std::unique_ptr<Reconstructor> make_function_reconstructor(std::string name, ReconFn fn);

// (method, backend) in core's one registry (base/backend_registry.hpp): available(), make().
using ReconBackend = BackendEntry<std::function<std::unique_ptr<Reconstructor>()>>;

void register_reconstructor(ReconMethod method, Backend backend, ReconBackend b);
// Throws InputError for a missing or unavailable backend, std::runtime_error ("not yet available") for a
// method without any implementation yet.
std::unique_ptr<Reconstructor> make_reconstructor(ReconMethod method, Backend backend);

}  // namespace mrwb
