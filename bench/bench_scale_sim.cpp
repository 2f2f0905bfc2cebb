// `mrwb bench --suite scale`, the simulator's part: Jurczuk et al. 2016's liver-like slab over ranks (one GPU
// each, halos by peer stores or NCCL; CPU engines without GPUs) in z planes or y rows, whichever axis
// slab_split would choose (MRWB_SPLIT_AXIS=y|z: that one), strong scaling (one slab on 1, 2, 4 ... ranks) and weak
// scaling (a slab of fixed thickness per rank). The suite starts each run as `mpirun -np N mrwb bench --suite
// scale` with MRWB_SCALE_SIM_RANK set; that process is one rank (scale_sim_rank): it builds the slab, warms
// the engine (CUDA context, NCCL communicator) on a thin slab, and times the engine's run between two
// agreements of every rank; rank 0 prints the seconds. Building the phantom is not timed; GPU ranks build only
// their held planes or rows (organ_slab_planes), so the slab may exceed one GPU and one rank's share of the host.
// MRWB_SCALE_SIM_SOLO="r N" plays rank r of N alone on one GPU, the exchange left out (SerialRankComm as rank r of N).
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "bench_scale_sim.hpp"
#include "bench_sim_slab.hpp"
#include "cli_ranks.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/flow/organ_slab.hpp"
#include "mrwb/io/file_io.hpp"
#include "mrwb/metrics/relative_l2.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/internal/gpu_memory.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#endif

namespace mrwb::cli {
namespace {

constexpr const char* k_rank_env = "MRWB_SCALE_SIM_RANK";
constexpr const char* k_seconds_tag = "scale-sim seconds ";
constexpr const char* k_bytes_tag = "scale-sim device bytes ";
constexpr const char* k_samples_env = "MRWB_SCALE_SIM_SAMPLES";

struct SlabCase {
  int nx = 0, ny = 0, nz = 0, pe = 0;
  double cell_m = 0;
  Backend backend = Backend::Cpu;
  // > 0: a stack of `copies` slabs of nz planes between parenchyma caps, starting `offset` planes into its
  // first copy (organ_slab_stack_planes); 0: the one slab of nz planes.
  int copies = 0, offset = 0;
  int planes() const { return copies > 0 ? copies * (nz + 2) : nz; }
};

std::string encode(const SlabCase& c) {
  std::ostringstream s;
  s << c.nx << ' ' << c.ny << ' ' << c.nz << ' ' << c.pe << ' ' << c.cell_m << ' ' << (c.backend == Backend::Cuda ? "cuda" : "cpu");
  if (c.copies > 0) s << ' ' << c.copies << ' ' << c.offset;
  return s.str();
}

SlabCase decode(const std::string& text) {
  SlabCase c;
  std::string backend;
  std::istringstream s(text);
  if (!(s >> c.nx >> c.ny >> c.nz >> c.pe >> c.cell_m >> backend) || c.nx < 1 || c.ny < 1 || c.nz < 1 || c.pe < 1)
    throw InputError(std::string(k_rank_env) + ": '" + text + "' (allowed: nx ny nz pe cell_m cpu|cuda [copies offset])");
  c.backend = backend == "cuda" ? Backend::Cuda : Backend::Cpu;
  if (s >> c.copies >> c.offset && (c.copies < 1 || c.offset < 0 || c.offset > c.nz + 1))
    throw InputError(std::string(k_rank_env) + ": '" + text + "' (allowed: copies >= 1, offset 0 .. nz + 1)");
  return c;
}

// Planes [z_begin, z_end) of the case's slab or stack, rows [y_begin, y_end) of them (y_end < 0: all),
// velocities in m/s (organ_slab_planes).
OrganSlabPlanes case_planes(const SlabCase& c, int z_begin, int z_end, int y_begin = 0, int y_end = -1) {
  const OrganSlabSpec spec = liver_slab_spec(c.nx, c.ny, c.nz, c.cell_m);
  return c.copies > 0 ? organ_slab_stack_planes(spec, c.copies, "bench slab", k_liver_slab_max_bytes, z_begin, z_end, c.offset,
                                                y_begin, y_end)
                      : organ_slab_planes(spec, "bench slab", k_liver_slab_max_bytes, z_begin, z_end, y_begin, y_end);
}

// The slab (or stack) and its GE over the whole of it (the image is the projection along z), as the sim suite
// times it.
struct SlabRun {
  CellPhantom ph;
  SequenceProgram prog;
};
SequenceProgram case_sequence(const SlabCase& c) { return build_sequence_program(bench_ge(c.pe, c.nx * c.cell_m)); }
SlabRun slab_run(const SlabCase& c) {
  OrganSlabPlanes all = case_planes(c, 0, c.planes());
  scale_organ_slab_flow(all.ph, all.u_max_m_per_s);
  return {std::move(all.ph), case_sequence(c)};
}

// `mpirun -np ranks` of this executable as a rank of `c`: rank 0's seconds (< 0 on failure) and the device
// bytes the CUDA engine would ask for the whole phantom; samples_path: rank 0 writes the k-space there.
struct RanksRun {
  double seconds = -1, device_bytes = 0;
};
RanksRun run_ranks(const SlabCase& c, int ranks, const std::string& samples_path = {}) {
  RanksRun run;
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return run;
  setenv(k_rank_env, encode(c).c_str(), 1);
  if (!samples_path.empty()) setenv(k_samples_env, samples_path.c_str(), 1);
  // stdout only: mpirun forwards the ranks' stderr as it comes, which could split rank 0's line.
  // Unbound: a rank's engine (the CPU one's threads) may use every core, not the one OpenMPI would bind it to.
  const std::string cmd = "mpirun --oversubscribe --bind-to none -np " + std::to_string(ranks) + " '" + self + "' bench --suite scale";
  FILE* p = popen(cmd.c_str(), "r");
  unsetenv(k_rank_env);
  unsetenv(k_samples_env);
  if (!p) return run;
  std::string out;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    const std::string l = line;
    if (const auto at = l.find(k_seconds_tag); at != std::string::npos)
      run.seconds = std::atof(l.c_str() + at + std::string(k_seconds_tag).size());
    else if (const auto b = l.find(k_bytes_tag); b != std::string::npos)
      run.device_bytes = std::atof(l.c_str() + b + std::string(k_bytes_tag).size());
    else
      out += l;
  }
  const int rc = pclose(p);
  if (rc != 0 || run.seconds < 0) {
    std::printf("  mpirun -np %d failed (status %d; its stderr above): %s\n", ranks, rc, out.substr(0, 600).c_str());
    run.seconds = -1;
  }
  return run;
}

// A phantom larger than one GPU: a stack of copies of a slab over every rank (one GPU each), its k-space
// against a CPU-rank run of one copy (a sub-volume: each copy's magnetization is its own and the GE encodes
// nothing along z, so the stack's signal is `copies` times the copy's; organ_slab_stack_planes). The copies
// grow with the GPUs so that each holds about 1.5·10⁹ cells (the engine takes under 2³¹ a rank); the engine's
// own memory estimate for the whole stack says whether one GPU would hold it. --quick: a CPU-sized stack.
bool beyond_one_device(const BenchOptions& options, int devices, int ranks, nlohmann::json& out) {
  SlabCase stack;
  stack.nx = stack.ny = options.quick ? 48 : 512;
  stack.nz = options.quick ? 6 : 30;
  stack.pe = options.quick ? 8 : 64;
  stack.cell_m = options.quick ? 2e-3 : 2e-4;
  // One copy more than whole copies per rank, so that the bounds between ranks cut through copies (blood
  // crossing them) rather than falling on their caps.
  stack.copies = options.quick ? 3 : 175 * ranks + 1;
  stack.backend = devices > 0 ? Backend::Cuda : Backend::Cpu;
  SlabCase copy = stack;
  copy.copies = 1;
  copy.backend = Backend::Cpu;
  // The CPU engine of each rank takes every core (unbound: run_ranks), so a few ranks: 301 s for one copy on
  // this 2-core build machine, about 10 s on a GPU host's 64 cores.
  const int cpu_ranks = options.quick ? 1 : 4;
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string a = (dir / ("mrwb_scale_stack_" + std::to_string(getpid()))).string();
  const std::string b = (dir / ("mrwb_scale_copy_" + std::to_string(getpid()))).string();
  std::printf("Beyond one %s: a stack of %d copies of a %dx%dx%d slab between caps (%.3g cells), GE %d PE, over %d ranks; "
              "one copy on %d CPU rank(s) as the reference\n",
              devices > 0 ? "GPU" : "process", stack.copies, stack.nx, stack.ny, stack.nz,
              static_cast<double>(stack.nx) * stack.ny * stack.planes(), stack.pe, ranks, cpu_ranks);
  const RanksRun big = run_ranks(stack, ranks, a), ref = run_ranks(copy, cpu_ranks, b);
  std::vector<std::complex<float>> ks, kc;
  if (big.seconds >= 0 && ref.seconds >= 0) {
    ks = read_cfl(a).data;
    kc = read_cfl(b).data;
    for (auto& v : ks) v /= static_cast<float>(stack.copies);
  }
  for (const std::string& f : {a, b})
    for (const char* ext : {".cfl", ".hdr"}) std::filesystem::remove(f + ext);
  if (ks.empty() || ks.size() != kc.size()) {
    std::printf("  no comparison (a run failed or wrote no k-space)\n");
    return false;
  }
  const double rel = relative_l2(ks, kc);
  std::printf("  stack %.2f s, the CUDA engine's estimate for it on one device %.1f GB; one copy %.2f s; k-space / copies "
              "against the copy: relative RMS %.3g (bar 1e-4, CUDA against CPU)\n",
              big.seconds, big.device_bytes / 1e9, ref.seconds, rel);
#ifdef MRWB_HAVE_CUDA
  if (devices > 0) std::printf("  device 0: %s\n", gpu::device_description().c_str());
#endif
  out["beyond_one_device"] = {{"copies", stack.copies},        {"copy", {stack.nx, stack.ny, stack.nz}},
                              {"pe", stack.pe},                {"ranks", ranks},
                              {"stack_s", big.seconds},        {"device_bytes_one_device", big.device_bytes},
                              {"copy_s", ref.seconds},         {"copy_cpu_ranks", cpu_ranks},
                              {"relative_rms", rel}};
  return rel <= 1e-4;
}

// MRWB_SCALE_SIM_SOLO="r N": this process plays rank r of an N-rank run alone, on one GPU, with the halo exchange
// left out (MRWB_HALO_EXCHANGE=0): its slab, split and time steps as in the N-rank run, its kernels timed without
// waiting for any neighbour (timing only: the signal is this rank's part). A machine of one GPU so measures how even
// the ranks' work is, each rank in turn. Its collectives (SerialRankComm) answer for this rank alone; the work of
// the split and the flow's top speed come from the whole slab, built here.
constexpr const char* k_solo_env = "MRWB_SCALE_SIM_SOLO";

}  // namespace

int scale_sim_rank(const BenchOptions&) {
  const char* v = std::getenv(k_rank_env);
  const SlabCase c = decode(v ? v : "");
  std::optional<SerialRankComm> solo;
  if (const char* sv = std::getenv(k_solo_env)) {
    std::istringstream in(sv);
    int r = -1, n = 0;
    if (!(in >> r >> n) || n < 2 || n > 1024 || r < 0 || r >= n || c.backend != Backend::Cuda)
      throw InputError(std::string(k_solo_env) + ": '" + sv + "' (allowed: r N with 2 <= N <= 1024, 0 <= r < N, a cuda case)");
    solo.emplace(r, n);
    setenv("MRWB_HALO_EXCHANGE", "0", 1);
  }
  auto body = [&](RankComm* comm) {
    auto engine = make_simulation_engine(c.backend);
    if (comm && comm->size() > 1) engine->set_rank_comm(comm);
    const int ranks = comm ? comm->size() : 1;
    auto play = [&](const SlabRun& r) {
      std::vector<std::complex<float>> samples(static_cast<std::size_t>(r.prog.readouts) * r.prog.nx);
      // The CPU engine writes the truth cell by cell; the CUDA one skips an empty span.
      std::vector<std::complex<float>> truth(c.backend == Backend::Cpu ? r.ph.size() : 0);
      engine->run(r.ph, r.prog, samples, truth, {}, {});
    };
    SlabCase warm{c.nx / 8, c.ny / 8, 2 * ranks, 8, c.cell_m * 8, c.backend};
    play(slab_run(warm));  // contexts, communicators
    // GPU ranks build only their held planes: the whole slab on every rank's host is what limits its size.
    const bool held_only = comm && ranks > 1 && c.backend == Backend::Cuda;
    const SlabRun r = held_only ? SlabRun{{}, case_sequence(c)} : slab_run(c);
    CellPhantom held;
    SlabSplit split;  // as the engine plays it (played_split)
    SequenceProgram played = r.prog;
    if (held_only) {
      const int me = comm->rank(), nz = c.planes();
      auto halo = [&](int planes) { return engine->rank_halo_planes(planes, ranks); };
      // The work of the z planes and of the y rows (rank_decomposition.hpp), then the axis and bounds slab_split
      // would choose for the whole. A stack's come from one copy with its caps (periodic_plane_work; every row holds
      // each plane of the copy `copies` times); a slab's: each rank weighs the planes of an equal slab of z planes
      // and the ranks share them and add up their rows.
      PlaneWork zw, yw;
      // MRWB_STEPPED_CELL_WORK: a fluid cell's weight instead of k_stepped_cell_work (A/B measurements of the split).
      double stepped = k_stepped_cell_work;
      if (const char* env = std::getenv("MRWB_STEPPED_CELL_WORK"); env && std::atof(env) > 0) stepped = std::atof(env);
      // Alone (MRWB_SCALE_SIM_SOLO): the flow's top speed and the Courant speed of the whole, which the ranks
      // would agree on.
      double solo_u_max = 0, solo_courant = 0;
      if (c.copies > 0) {
        SlabCase one = c;
        one.copies = 1;
        one.offset = 0;
        OrganSlabPlanes built = case_planes(one, 0, one.planes());
        const CellPhantom& copy = built.ph;
        zw = periodic_plane_work(plane_work(copy, copy.slice_size(), stepped), nz, c.offset);
        yw = row_work(copy, stepped);
        for (std::size_t y = 0; y < yw.own.size(); ++y) {
          yw.own[y] = static_cast<double>(c.nx) * nz + (yw.own[y] - static_cast<double>(c.nx) * one.planes()) * c.copies;
          yw.halo[y] *= c.copies;
        }
        if (solo) {  // every copy's cells are the copy's, the caps hold no fluid
          solo_u_max = built.u_max_m_per_s;
          scale_organ_slab_flow(built.ph, solo_u_max);
          solo_courant = max_courant_speed(built.ph);
        }
      } else if (solo) {
        OrganSlabPlanes whole = case_planes(c, 0, nz);
        zw = plane_work(whole.ph, whole.ph.slice_size(), stepped);
        yw = row_work(whole.ph, stepped);
        solo_u_max = whole.u_max_m_per_s;
        scale_organ_slab_flow(whole.ph, solo_u_max);
        solo_courant = max_courant_speed(whole.ph);
      } else {
        SlabSplit equal;
        equal.planes = nz;
        equal.ranks = ranks;
        const OrganSlabPlanes own = case_planes(c, equal.begin(me), equal.end(me));
        const PlaneWork mine = plane_work(own.ph, own.ph.slice_size(), stepped), rows = row_work(own.ph, stepped);
        // Every plane's own and halo work on every rank: each rank's planes, zero elsewhere, added over the ranks
        // (exact: every plane has one nonzero term). Each rank's rows' work added over the ranks.
        std::vector<double> planes(2 * static_cast<std::size_t>(nz), 0.0);  // own work of the planes, then halo
        for (std::size_t p = 0; p < mine.own.size(); ++p) {
          planes[equal.begin(me) + p] = mine.own[p];
          planes[static_cast<std::size_t>(nz) + equal.begin(me) + p] = mine.halo[p];
        }
        comm->sum_in_rank_order(std::span<double>(planes));
        zw.own.assign(planes.begin(), planes.begin() + nz);
        zw.halo.assign(planes.begin() + nz, planes.end());
        std::vector<double> row_sums(rows.own);  // own work of the rows, then halo
        row_sums.insert(row_sums.end(), rows.halo.begin(), rows.halo.end());
        comm->sum_in_rank_order(std::span<double>(row_sums));
        yw.own.assign(row_sums.begin(), row_sums.begin() + c.ny);
        yw.halo.assign(row_sums.begin() + c.ny, row_sums.end());
      }
      // MRWB_SPLIT_AXIS=y|z: that axis instead of the one chosen (A/B measurements).
      SplitAxis along = SplitAxis::Auto;
      if (const char* env = std::getenv("MRWB_SPLIT_AXIS")) along = parse_split_axis(env).value_or(SplitAxis::Auto);
      const SlabSplit chosen = choose_slab_split(c.nx, c.ny, nz, ranks, halo, along, &zw, &yw);
      if (me == 0) std::fprintf(stderr, "%s\n", decomposition_text(chosen).c_str());
      // Each rank builds its held planes (or rows, played with y and z swapped) of the chosen split.
      OrganSlabPlanes part = chosen.rows_of_3d ? case_planes(c, 0, nz, chosen.held_begin(me), chosen.held_end(me))
                                               : case_planes(c, chosen.held_begin(me), chosen.held_end(me));
      if (chosen.rows_of_3d) {
        part.ph = swap_y_z(part.ph);
        played = swap_y_z(r.prog);
      }
      split = played_split(chosen);
      scale_organ_slab_flow(part.ph, solo ? solo_u_max : comm->max_over_ranks(part.u_max_m_per_s));
      part.ph.whole_courant_speed = solo ? solo_courant : comm->max_over_ranks(max_courant_speed(part.ph));
      empty_halo_cells(part.ph, split, me);
      held = std::move(part.ph);
    }
    // What the CUDA engine's memory check (gpu_memory.hpp) asks of the device for the whole phantom: the sum
    // over the GPU ranks of their held planes' (halo planes counted twice), so rank 0 can say whether one GPU
    // would hold it.
    double device_bytes = static_cast<double>(cuda_simulation_bytes(held_only ? held : r.ph, r.prog, 1));
    if (held_only) comm->sum_in_rank_order(std::span<double>(&device_bytes, 1));
    std::vector<std::complex<float>> samples(static_cast<std::size_t>(r.prog.readouts) * r.prog.nx);
    if (comm) comm->all_agree(true);
    const auto t0 = std::chrono::steady_clock::now();
    if (held_only) {
      engine->run_held_slab(held, split, played, CoilMaps{}, samples, {}, {}, {});
    } else {
      std::vector<std::complex<float>> truth(c.backend == Backend::Cpu ? r.ph.size() : 0);
      engine->run(r.ph, r.prog, samples, truth, {}, {});
    }
    const double own_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (comm) comm->all_agree(true);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Each rank's own seconds (to its run's end, before the agreement), with its slab where it holds only that, on
    // rank 0's stderr: with the exchange left out (MRWB_HALO_EXCHANGE=0) they show how even the ranks' work is.
    if (solo) {
      const int me = comm->rank();
      std::fprintf(stderr, "scale-sim solo rank %d of %d (exchange left out): %s [%d,%d), %zu cells held, own seconds %.4f\n", me,
                   ranks, split.rows_of_3d ? "y rows" : "z planes", split.begin(me), split.end(me), held.size(), own_s);
    } else if (comm && ranks > 1) {
      const int me = comm->rank();
      // Each rank's seconds, then its cells held; zero elsewhere, added over the ranks.
      std::vector<double> own(2 * static_cast<std::size_t>(ranks), 0.0);
      own[static_cast<std::size_t>(me)] = own_s;
      own[static_cast<std::size_t>(ranks + me)] = static_cast<double>(held_only ? held.size() : r.ph.size());
      comm->sum_in_rank_order(std::span<double>(own));
      for (int k = 0; k < ranks && me == 0; ++k) {
        const std::string slab = held_only ? std::string(split.rows_of_3d ? "y rows [" : "z planes [") +
                                                 std::to_string(split.begin(k)) + "," + std::to_string(split.end(k)) + "), "
                                           : std::string();
        std::fprintf(stderr, "scale-sim rank %d: %s%.0f cells held, own seconds %.4f\n", k, slab.c_str(),
                     own[static_cast<std::size_t>(ranks + k)], own[static_cast<std::size_t>(k)]);
      }
    }
    if (!comm || comm->rank() == 0 || solo) {
      std::printf("%s%.0f\n", k_bytes_tag, device_bytes);
      std::printf("%s%.6f\n", k_seconds_tag, s);
      // MRWB_SCALE_SIM_SAMPLES=path: rank 0 writes the k-space (a BART array, nx x readouts) for a comparison.
      if (const char* path = std::getenv(k_samples_env))
        write_cfl(path, CflArray{{static_cast<long>(r.prog.nx), static_cast<long>(r.prog.readouts)}, samples});
    }
    return 0;
  };
  return solo ? body(&*solo) : run_as_ranks(std::nullopt, body);
}

bool is_scale_sim_rank() { return std::getenv(k_rank_env) != nullptr; }

int scale_simulator(const BenchOptions& options, nlohmann::json& report) {
  SlabCase strong;
  int devices = 0;
#ifdef MRWB_HAVE_CUDA
  if (options.backend != Backend::Cpu) devices = gpu::device_count();
#endif
  strong.backend = devices > 0 ? Backend::Cuda : Backend::Cpu;
  // The slab: 2000 x 2000 x 140 cells of 0.1 mm (the sim suite's 1000 x 1000 x 70 organ at twice the
  // resolution), GE 256; weak scaling: 35 planes per rank. --quick: a CPU-sized slab.
  strong.nx = strong.ny = options.quick ? 96 : 2000;
  strong.nz = options.quick ? 16 : 140;
  strong.pe = options.quick ? 16 : 256;
  strong.cell_m = options.quick ? 2e-3 : 1e-4;
  const int per_rank_planes = strong.nz / 4;
  const int most = devices > 0 ? devices : 2;
  std::printf("Simulator over %s ranks: liver slab %dx%dx%d, GE %d PE (strong); weak: a copy of a %d-plane slab between "
              "caps per rank, the stack half a copy out of step\n",
              devices > 0 ? "GPU" : "CPU", strong.nx, strong.ny, strong.nz, strong.pe, per_rank_planes - 2);
  std::printf("%-6s %12s %11s %12s %11s\n", "ranks", "strong s", "efficiency", "weak s", "efficiency");
  nlohmann::json rows = nlohmann::json::array();
  double t1 = 0, w1 = 0, strong_at_4 = -1, weak_at_4 = -1;
  bool ok = true;
  for (int n = 1; n <= most; n *= 2) {
    // Weak: n copies of a slab of per_rank_planes − 2 planes between caps, the stack starting half a copy in, so
    // that in z planes each rank's slab holds the same planes and its bounds cut the vessels where they are densest
    // (in y rows each rank holds its rows of every copy).
    SlabCase weak = strong;
    weak.nz = per_rank_planes - 2;
    weak.copies = n;
    weak.offset = per_rank_planes / 2;
    const double ts = run_ranks(strong, n).seconds, tw = run_ranks(weak, n).seconds;
    if (ts < 0 || tw < 0) {
      ok = false;
      break;
    }
    if (n == 1) t1 = ts, w1 = tw;
    const double es = t1 / (n * ts), ew = w1 / tw;
    if (n == 4) strong_at_4 = es, weak_at_4 = ew;
    std::printf("%-6d %12.4f %10.1f%% %12.4f %10.1f%%\n", n, ts, 100 * es, tw, 100 * ew);
    rows.push_back({{"ranks", n}, {"strong_s", ts}, {"strong_efficiency", es}, {"weak_nz", weak.planes()}, {"weak_s", tw},
                    {"weak_efficiency", ew}});
  }
  std::printf("(wall time of the engine's run on rank 0 between agreements of every rank; phantom building not timed)\n");
  if (strong_at_4 >= 0)
    std::printf("bars at 4 ranks (strong >= 85 %%, weak >= 90 %%): strong %s, weak %s\n", strong_at_4 >= 0.85 ? "met" : "MISSED",
                weak_at_4 >= 0.9 ? "met" : "MISSED");
  report["simulator_ranks"] = {{"backend", devices > 0 ? "cuda" : "cpu"},
                               {"slab", {strong.nx, strong.ny, strong.nz}},
                               {"pe", strong.pe},
                               {"weak_planes_per_rank", per_rank_planes},
                               {"rows", rows}};
  if (ok) ok = beyond_one_device(options, devices, most, report["simulator_ranks"]);
  return ok ? 0 : 1;
}

}  // namespace mrwb::cli
