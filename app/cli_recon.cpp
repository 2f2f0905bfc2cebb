#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli_commands.hpp"
#include "cli_outputs.hpp"
#include "cli_png_options.hpp"
#include "cli_ranks.hpp"
#include "stage_times.hpp"
#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/input_source.hpp"
#include "mrwb/base/image_volume.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/io/image_volume_io.hpp"
#include "mrwb/pipeline/gfactor_replica.hpp"
#include "mrwb/pipeline/recon_coil_maps.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/noncart_recon.hpp"
#include "mrwb/recon/noncart_volume.hpp"
#include "mrwb/recon/recon_check.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/recon/reconstructor.hpp"
#include "mrwb/recon/sense.hpp"
#include "mrwb/scenario/scenario.hpp"

namespace mrwb::cli {
namespace {

void check_allowed(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw InputError(flag + " " + value + ": unknown (allowed: " + list + ")");
}

// --density / --gridding-kernel: checked before any file is read; they only steer --method gridding (cg's
// F^H d and Q are unweighted, Kaiser-Bessel), so naming them with another method is an error, not a no-op.
void check_gridding_options(const CLI::App& sub, ReconMethod method, const NoncartParams& p) {
  check_allowed("--density", p.density, {"pipe-menon", "voronoi", "radial", "none"});
  check_allowed("--gridding-kernel", p.kernel, {"kaiser-bessel", "bilinear"});
  for (const char* flag : {"--density", "--gridding-kernel"})
    if (sub.get_option(flag)->count() > 0 && method != ReconMethod::Gridding)
      throw InputError(std::string(flag) + ": only with --method gridding (not " + name_of(method) + ")");
}

// --prior / --edge-threshold belong to cg's anatomical W, and that W needs its reference image.
void check_prior_options(const CLI::App& sub, ReconMethod method, const std::string& regularizer,
                         const std::string& prior) {
  const bool anatomical = regularizer == "anatomical";
  for (const char* flag : {"--prior", "--edge-threshold"})
    if (sub.get_option(flag)->count() > 0 && (!anatomical || method != ReconMethod::Cg))
      throw InputError(std::string(flag) + ": only with --method cg --regularizer anatomical");
  if (anatomical && prior.empty()) throw InputError("--regularizer anatomical: needs --prior (a reference image)");
}

// An image output by its extension and its folder, before any input is read (write_image's formats;
// volumes narrow them once the data are known).
void check_image_output(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext != ".h5" && ext != ".cfl" && ext != ".hdr" && ext != ".nii" && ext != ".png")
    throw InputError(path + ": --out: unknown image format '" + ext + "' (allowed: .h5, .cfl, .nii, .png)");
  require_output_folder(path);
}

// The reference image's magnitude, x fastest (BART's first dimension), every value of the array.
std::vector<float> read_prior(const std::string& path) {
  const CflArray a = read_cfl(path);
  std::vector<float> v(a.data.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::abs(a.data[i]);
  return v;
}

// Which F^H d and Q the CG will use (cg_operators.hpp), on the backend `auto` resolves to; over ranks on the
// CPU threads of them all (cpu_threads; 0: this machine's).
std::string cg_operators_line(const RawData& raw, const ReconOptions& opts, bool volume, unsigned cpu_threads) {
  const noncart::ReconInput in = noncart::recon_input(raw, opts.noncart, ReconMethod::Cg, volume ? 3 : 2);
  const bool cuda = make_reconstructor(ReconMethod::Cg, opts.backend)->name().ends_with("/cuda");
  return noncart::choose_cg_operators(in.grid, in.samples.count(), in.samples.coils, cuda ? Backend::Cuda : Backend::Cpu,
                                      opts.noncart.operators, cpu_threads)
      .text;
}

// Over ranks (noncart_ranks.hpp): the CPU's 2-D cg and gridding, one image; refused before anything is read.
void check_ranks_options(ReconMethod method, Backend backend, bool gfactor) {
  if (method != ReconMethod::Cg && method != ReconMethod::Gridding)
    throw InputError("--ranks: over ranks runs the non-Cartesian recon (allowed: --method cg or gridding, not " +
                     name_of(method) + ")");
  if (backend == Backend::Cuda)
    throw InputError("--ranks: the recon over ranks runs on the CPU (allowed: --backend cpu or auto)");
  if (gfactor) throw InputError("--ranks: no --gfactor over ranks (allowed: --ranks 1)");
}

}  // namespace

Action add_recon(CLI::App& app) {
  auto* sub = app.add_subcommand("recon", "Reconstruct raw data into an image");
  struct Opts {
    std::string in, method = "fft", backend = "auto";
    std::vector<std::string> out;
    bool quiet = false, verbose = false;
    std::string traj;
    RawSelection select;
    GrappaParams grappa;
    std::string kernel = "4x5";
    NoncartParams noncart;  // gridding / cg
    bool exact = false, gridded = false;
    std::string prior;  // cg --regularizer anatomical: reference image (.cfl)
    std::string maps, scenario;  // sense, cs, cg: "true" maps of this scenario's coils, or "espirit"
    std::string cs_regularizer = "l1-wavelet";
    std::vector<std::string> gfactor;  // the g-factor map (.h5, .cfl, .nii, .png): sense analytic, others replicas
    int gfactor_replicas = 0;          // pseudo-multiple replicas (0: 64, and sense's analytic map)
    PngOptions png;  // .png outputs
    std::optional<int> ranks;  // cg, gridding over ranks (processes through mpirun)
  };
  auto o = std::make_shared<Opts>();
  o->select.slice = -1;  // every slice: a multi-slice file reconstructs to a volume
  sub->add_option("--in", o->in, "Raw data: ISMRMRD .h5 or BART k-space .cfl")->required();
  sub->add_option("--traj", o->traj, "Trajectory of a non-Cartesian .cfl k-space (BART [3, samples, lines], cycles/FOV)");
  sub->add_option("--slice", o->select.slice, "Slice to reconstruct (default -1: all, a multi-slice volume)");
  sub->add_option("--repetition", o->select.repetition, "Repetition to reconstruct (default 0)");
  sub->add_option("--contrast", o->select.contrast, "Contrast (echo) to reconstruct (default 0)");
  sub->add_option("--method", o->method, "fft | grappa | gridding | cg | sense | cs");
  sub->add_option("--out", o->out, "Image(s): .h5, .cfl, .nii and/or .png (repeatable)")->required();
  add_png_options(sub, o->png);
  sub->add_option("--backend", o->backend, "auto | cpu | cuda");
  sub->add_flag("--quiet", o->quiet, "No progress output");
  sub->add_flag("--verbose", o->verbose, "At the end, one line of where the time went (read, maps, recon, write; the CUDA start)");
  // GRAPPA (R and the ACS lines come from the ISMRMRD flags and header).
  sub->add_option("--kernel", o->kernel, "GRAPPA kernel K_PE x K_RO (improved; basic uses K_PE as N_b), default 4x5");
  sub->add_option("--segment", o->grappa.segment_cols, "GRAPPA basic: readout segment delta_s [columns], default 128");
  sub->add_option("--lambda", o->grappa.lambda, "GRAPPA Tikhonov chi: lambda = chi*trace(AA^H)/rows, default 1e-4");
  sub->add_option("--eta", o->grappa.eta, "GRAPPA normalisation Psi = p^(-eta/2), default 1");
  sub->add_option("--clip", o->grappa.clip, "GRAPPA power clipping fraction kappa (improved), default 0");
  sub->add_option("--approach", o->grappa.approach, "GRAPPA calibration: improved | basic");
  sub->add_option("--combine", o->grappa.combine, "GRAPPA coil combination: sos | sensitivity");
  // Non-Cartesian gridding / cg (--lambda, shared with GRAPPA's chi, is the CG's Tikhonov weight there).
  sub->add_option("--matrix", o->noncart.matrix, "gridding/cg: image matrix N (default: from the trajectory's extent)");
  sub->add_option("--iterations", o->noncart.iterations, "cg, sense (CG-SENSE), cs: iterations, default 20 (cs: 100)")
      ->check(CLI::Range(1, 10000));  // a bound on the time a run may take, for every method that iterates
  sub->add_option("--tolerance", o->noncart.tolerance, "cg: stop at this relative residual (default 0: all iterations)");
  sub->add_option("--regularizer", o->noncart.regularizer, "cg: W = identity | finite-difference | anatomical");
  sub->add_option("--prior", o->prior,
                  "cg --regularizer anatomical: reference image on the matrix (BART .cfl [N, N] or [N, N, N]; magnitude)");
  sub->add_option("--edge-threshold", o->noncart.edge_threshold,
                  "cg --regularizer anatomical: edge where the reference jumps by > this x its range, default 0.02");
  sub->add_option("--preconditioner", o->noncart.preconditioner, "cg: none | diagonal | circulant");
  sub->add_option("--gpus", o->noncart.gpus, "cg, gridding on CUDA: GPUs F^H d and Q are split over (exact: by voxels; gridded: by samples; 0: all; default 1)")
      ->check(CLI::Range(0, 64));
  sub->add_flag("--exact", o->exact, "cg: exact F^H d and Q (default: exact where it takes <= 1 s, else gridded)");
  sub->add_flag("--gridded", o->gridded, "cg: gridded (Kaiser-Bessel) F^H d and Q");
  sub->add_option("--maps", o->maps,
                  "sense, cs, cg: coil maps: true (the simulator's coils of --scenario) | espirit (from the calibration "
                  "lines; cg: from the gridded k-space centre)");
  sub->add_option("--scenario", o->scenario, "sense, cs --maps true: the scenario the raw data were simulated from (its coils)");
  sub->add_option("--cs-regularizer", o->cs_regularizer, "cs: l1-wavelet (FISTA) | tv (ADMM); --lambda, --iterations (default 100; tv: CG steps in all, as BART's pics -i)");
  sub->add_option("--gfactor", o->gfactor,
                  "The g-factor map: .h5, .cfl, .nii and/or .png (repeatable); sense: analytic, other methods: pseudo-multiple "
                  "replicas (Cartesian, one slice)");
  sub->add_option("--gfactor-replicas", o->gfactor_replicas,
                  "--gfactor by pseudo-multiple replicas (Robson et al. 2008), 2 .. 10000 (default 64; sense: analytic unless set)");
  sub->add_option("--kb-width", o->noncart.kb_width, "gridding: Kaiser-Bessel width [cells], default 4");
  sub->add_option("--oversampling", o->noncart.oversampling, "gridding: grid oversampling 1.25 .. 2, default 2");
  sub->add_option("--density", o->noncart.density, "gridding: density compensation pipe-menon | voronoi | radial | none");
  sub->add_option("--gridding-kernel", o->noncart.kernel, "gridding: kaiser-bessel | bilinear (no oversampling, CPU only)");
  sub->add_option("--ranks", o->ranks,
                  "cg, gridding on the CPU over N processes (exact F^H d and Q by voxels, gridded ones by samples), by "
                  "running this command through `mpirun -np N` (1 to 256; under mpirun: its -np)");
  // This process's run; over ranks only rank 0 speaks (and writes, once every rank is done).
  auto run = [o, sub](RankComm* comm) {
    const bool quiet = o->quiet || (comm && comm->rank() != 0);
    StageTimes times(o->verbose && !(comm && comm->rank() != 0));
    if (o->exact && o->gridded) throw InputError("--exact and --gridded: choose one");
    if (o->exact) o->noncart.operators = CgOperators::Exact;
    if (o->gridded) o->noncart.operators = CgOperators::Gridded;
    if (sub->get_option("--lambda")->count() > 0) o->noncart.lambda = o->grappa.lambda;
    if (std::sscanf(o->kernel.c_str(), "%dx%d", &o->grappa.kernel_pe, &o->grappa.kernel_ro) != 2)
      throw InputError("--kernel " + o->kernel + ": expected K_PExK_RO, e.g. 4x5");
    ReconOptions opts;
    opts.method = parse_flag("--method", o->method, k_recon_method_names, "method");
    opts.backend = parse_flag("--backend", o->backend, k_backend_names, "backend");
    if (comm) check_ranks_options(opts.method, opts.backend, !o->gfactor.empty());
    if (comm) opts.backend = Backend::Cpu;
    check_gridding_options(*sub, opts.method, o->noncart);
    check_prior_options(*sub, opts.method, o->noncart.regularizer, o->prior);
    for (const auto& p : o->out) check_image_output(p);
    for (const auto& p : o->gfactor) check_image_output(p);
    std::vector<std::string> outputs_named = o->out;
    outputs_named.insert(outputs_named.end(), o->gfactor.begin(), o->gfactor.end());
    CommandOutputs outputs({o->in, o->traj, o->prior, o->scenario}, outputs_named);
    if (!o->prior.empty()) o->noncart.prior = read_prior(o->prior);
    // The bilinear baseline has no CUDA kernel: auto runs it on the CPU rather than fail on a GPU machine.
    if (o->noncart.kernel == "bilinear" && opts.backend == Backend::Auto) opts.backend = Backend::Cpu;
    if (o->noncart.kernel == "bilinear" && opts.backend == Backend::Cuda)
      throw InputError("--gridding-kernel bilinear: CPU only (allowed with --backend cuda: kaiser-bessel)");
    opts.grappa = o->grappa;
    opts.noncart = o->noncart;
    // sense and cs need maps; cg takes them optionally (CG-SENSE with given maps instead of its own estimate).
    const bool with_maps = opts.method == ReconMethod::Sense || opts.method == ReconMethod::Cs ||
                           (opts.method == ReconMethod::Cg && !o->maps.empty());
    if ((!o->maps.empty() || !o->scenario.empty()) && !with_maps)
      throw InputError("--maps / --scenario: only with --method sense, cs or cg (not " + name_of(opts.method) + ")");
    if (sub->get_option("--cs-regularizer")->count() > 0 && opts.method != ReconMethod::Cs)
      throw InputError("--cs-regularizer: only with --method cs (not " + name_of(opts.method) + ")");
    if (sub->get_option("--gfactor-replicas")->count() > 0 && (o->gfactor.empty() || o->gfactor_replicas < 2 || o->gfactor_replicas > 10000))
      throw InputError("--gfactor-replicas " + std::to_string(o->gfactor_replicas) +
                       (o->gfactor.empty() ? ": only with --gfactor" : " out of range (allowed: 2 .. 10000)"));
    if (with_maps && !((o->maps == "true" && !o->scenario.empty()) || (o->maps == "espirit" && o->scenario.empty())))
      throw InputError("--method " + name_of(opts.method) + ": --maps '" + o->maps +
                       "' (allowed: --maps true --scenario S.json, the simulator's coils; --maps espirit)");
    opts.sense.cg.iterations = o->noncart.iterations;  // CG-SENSE: --iterations, --lambda as the CG's
    opts.sense.cg.lambda = o->noncart.lambda;
    opts.cs.regularizer = o->cs_regularizer;
    if (sub->get_option("--iterations")->count() > 0) opts.cs.iterations = o->noncart.iterations;
    if (sub->get_option("--lambda")->count() > 0) opts.cs.lambda = o->noncart.lambda;
    if (opts.method == ReconMethod::Cs) check_cs_params(opts.cs);
    Scenario maps_scenario = o->scenario.empty() ? Scenario{} : load_scenario(o->scenario);
    if (!o->maps.empty()) maps_scenario.recon.maps = o->maps;
    std::string what;
    RawData raw;
    in_rank_turns(comm, [&] { raw = read_raw(o->in, o->traj, o->select, &what); });
    times.mark("read");
    if (with_maps && opts.method == ReconMethod::Cg) {
      const noncart::Grid g = about_source(o->in, [&] { return noncart::recon_input(raw, opts.noncart, ReconMethod::Cg, 2).grid; });
      opts.noncart.sensitivities = about_source(o->in, [&] { return recon_coil_maps(maps_scenario, raw, opts.backend, g.n); });
    } else if (with_maps) {
      opts.sense.maps = about_source(o->in, [&] { return recon_coil_maps(maps_scenario, raw, opts.backend); });
    }
    if (with_maps) times.mark("maps");
    // sense's analytic g where it unfolds directly (a regular comb), pseudo-multiple replicas elsewhere.
    const bool analytic_g = opts.method == ReconMethod::Sense && o->gfactor_replicas == 0 && sense_regular_comb(raw);
    const bool replica_g = !o->gfactor.empty() && !analytic_g;
    const bool noncart_method = opts.method == ReconMethod::Cg || opts.method == ReconMethod::Gridding;
    const bool noncart_volume = noncart_method && noncart::has_3d_trajectory(raw);
    // Everything that can be refused is refused here, before the summary and the progress lines; a late
    // refusal of the reconstruction still names the input.
    for (const auto& p : o->out) {
      if (noncart_volume) noncart::check_volume_path(p);
      else if (raw.volume()) check_image_volume_path(p);
    }
    about_source(o->in, [&] { check_recon_input(raw, opts); });
    if (replica_g && (!raw.cartesian() || raw.volume()))
      throw InputError(o->in + ": --gfactor with --method " + name_of(opts.method) +
                       ": pseudo-multiple replicas of one Cartesian slice (allowed: Cartesian data, --slice N of a volume)");
    // On a terminal the input's summary as it starts; in a log, in the closing line.
    const bool live = !quiet && on_terminal();
    if (live) std::cerr << what << "\n";
    if (comm && (noncart_volume || raw.volume()))
      throw InputError(o->in + ": --ranks: over ranks one 2-D image (allowed: a 2-D trajectory of one slice, or --ranks 1)");
    const int rank_threads = comm ? threads_per_rank(*comm) : 0;
    if (!quiet && opts.method == ReconMethod::Cg)  // the operators' choice, a line of its own in a log too
      std::cerr << about_source(o->in, [&] {
        return cg_operators_line(raw, opts, noncart_volume, comm ? static_cast<unsigned>(rank_threads * comm->size()) : 0);
      }) << "\n";
    const std::string from = live ? "" : " from " + what;
    if (comm) {
      const Image2D img = about_source(o->in, [&] {
        return noncart::reconstruct_noncart_cpu(raw, opts, comm, rank_threads, terminal_progress(quiet), interrupt_token());
      });
      test_rank_failure_hook(*comm);
      OutputGate gate(comm);  // every rank is done before rank 0 writes
      if (!gate.writes()) return 0;
      for (const auto& p : o->out) write_image(p, img, o->png);
      outputs.commit();
      if (!quiet)
        std::cerr << "wrote " << img.nx << "x" << img.ny << " image (" << to_string(opts.method) << ", " << comm->size()
                  << " ranks)" << from << "\n";
      return 0;
    }
    if (noncart_volume) {  // volume (noncart_volume.hpp)
      const auto v = about_source(o->in, [&] {
        return noncart::reconstruct_volume_to_files(raw, opts.method, opts.backend, opts.noncart, o->out,
                                                    terminal_progress(quiet), interrupt_token());
      });
      outputs.commit();
      times.mark("recon and write");
      if (!quiet) std::cerr << "wrote " << v.nx << "^3 volume (" << to_string(opts.method) << ")" << from << "\n";
      times.print();
      return 0;
    }
    if (raw.volume()) {  // multi-slice / 3-D Cartesian: per slice / partition, stacked (multislice.hpp)
      const ImageVolume v = about_source(
          o->in, [&] { return reconstruct_volume(raw, opts, terminal_progress(quiet), interrupt_token()); });
      times.mark("recon");
      for (const auto& p : o->out) write_image_volume(p, v);
      outputs.commit();
      times.mark("write");
      if (!quiet)
        std::cerr << "wrote " << v.nx << "x" << v.ny << "x" << v.nz << " volume (" << to_string(opts.method) << ")" << from
                  << "\n";
      times.print();
      return 0;
    }
    auto recon = make_reconstructor(opts.method, opts.backend);
    const Image2D img =
        about_source(o->in, [&] { return recon->reconstruct(raw, opts, terminal_progress(quiet), interrupt_token()); });
    times.mark("recon");
    for (const auto& p : o->out) write_image(p, img, o->png);
    times.mark("write");
    if (replica_g) {
      ReplicaGfactorOptions r;
      r.replicas = o->gfactor_replicas > 0 ? o->gfactor_replicas : 64;
      const GfactorMap gm = about_source(
          o->in, [&] { return pseudo_replica_gfactor(raw, opts, r, terminal_progress(quiet), interrupt_token()); });
      Image2D g = img;
      for (std::size_t i = 0; i < g.data.size(); ++i) g.data[i] = gm.g[i];
      for (const auto& p : o->gfactor) write_image(p, g, o->png);
      if (!quiet) std::cerr << "g-factor: " << gm.replicas << " pseudo-multiple replicas, net R " << gm.R << "\n";
    } else if (!o->gfactor.empty()) {  // Pruessmann et al. 1999, eq. 23: 1 where nothing folds, 0 where no coil sees
      const SenseResult s = about_source(o->in, [&] { return sense_unfold(raw, opts.sense.maps); });
      Image2D g = s.image;
      for (std::size_t i = 0; i < g.data.size(); ++i) g.data[i] = s.gfactor[i];
      for (const auto& p : o->gfactor) write_image(p, g, o->png);
    }
    if (!o->gfactor.empty()) times.mark("g-factor");
    outputs.commit();
    if (!quiet) std::cerr << "wrote " << img.nx << "x" << img.ny << " image (" << to_string(opts.method) << ")" << from << "\n";
    times.print();
    return 0;
  };
  return [o, run] {
    // --ranks N: what the ranks cannot run is refused before mpirun starts them (under a bare mpirun, in run).
    if (o->ranks && *o->ranks > 1)
      check_ranks_options(parse_flag("--method", o->method, k_recon_method_names, "method"),
                          parse_flag("--backend", o->backend, k_backend_names, "backend"), !o->gfactor.empty());
    return run_as_ranks(o->ranks, run);
  };
}

}  // namespace mrwb::cli
