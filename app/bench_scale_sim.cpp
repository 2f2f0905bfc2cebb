// `mrwb bench --suite scale`, the simulator's part: Jurczuk et al. 2016's liver-like slab over ranks (one GPU
// each, halos through NCCL; CPU engines without GPUs), strong scaling (one slab on 1, 2, 4 ... ranks) and weak
// scaling (a slab of fixed thickness per rank). The suite starts each run as `mpirun -np N mrwb bench --suite
// scale` with MRWB_SCALE_SIM_RANK set; that process is one rank (scale_sim_rank): it builds the slab, warms
// the engine (CUDA context, NCCL communicator) on a thin slab, and times the engine's run between two
// agreements of every rank; rank 0 prints the seconds. Building the phantom is not timed; GPU ranks build only
// their held planes (organ_slab_planes), so the slab may exceed one GPU and one rank's share of the host.
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "bench_scale_sim.hpp"
#include "bench_sim_slab.hpp"
#include "cli_ranks.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/courant.hpp"
#include "mrwb/simulation/rank_decomposition.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#ifdef MRWB_HAVE_CUDA
#include "mrwb_gpu/base/device.hpp"
#endif

namespace mrwb::cli {
namespace {

constexpr const char* k_rank_env = "MRWB_SCALE_SIM_RANK";
constexpr const char* k_seconds_tag = "scale-sim seconds ";

struct SlabCase {
  int nx = 0, ny = 0, nz = 0, pe = 0;
  double cell_m = 0;
  Backend backend = Backend::Cpu;
};

std::string encode(const SlabCase& c) {
  std::ostringstream s;
  s << c.nx << ' ' << c.ny << ' ' << c.nz << ' ' << c.pe << ' ' << c.cell_m << ' ' << (c.backend == Backend::Cuda ? "cuda" : "cpu");
  return s.str();
}

SlabCase decode(const std::string& text) {
  SlabCase c;
  std::string backend;
  std::istringstream s(text);
  if (!(s >> c.nx >> c.ny >> c.nz >> c.pe >> c.cell_m >> backend) || c.nx < 1 || c.ny < 1 || c.nz < 1 || c.pe < 1)
    throw InputError(std::string(k_rank_env) + ": '" + text + "' (allowed: nx ny nz pe cell_m cpu|cuda)");
  c.backend = backend == "cuda" ? Backend::Cuda : Backend::Cpu;
  return c;
}

// The slab and its GE over the whole slab (the image is the projection along z), as the sim suite times it.
struct SlabRun {
  CellPhantom ph;
  SequenceProgram prog;
};
SlabRun slab_run(const SlabCase& c, int nz) {
  return {liver_slab(c.nx, c.ny, nz, c.cell_m), build_sequence_program(bench_ge(c.pe, c.nx * c.cell_m))};
}

// Seconds of `mpirun -np ranks` of this executable as a rank of `c` (rank 0's report), or < 0 on failure.
double run_ranks(const SlabCase& c, int ranks) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return -1;
  setenv(k_rank_env, encode(c).c_str(), 1);
  // stdout only: mpirun forwards the ranks' stderr as it comes, which could split rank 0's line.
  const std::string cmd = "mpirun --oversubscribe -np " + std::to_string(ranks) + " '" + self + "' bench --suite scale";
  FILE* p = popen(cmd.c_str(), "r");
  unsetenv(k_rank_env);
  if (!p) return -1;
  double seconds = -1;
  std::string out;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    const std::string l = line;
    if (const auto at = l.find(k_seconds_tag); at != std::string::npos)
      seconds = std::atof(l.c_str() + at + std::string(k_seconds_tag).size());
    else
      out += l;
  }
  const int rc = pclose(p);
  if (rc != 0 || seconds < 0) {
    std::printf("  mpirun -np %d failed (status %d; its stderr above): %s\n", ranks, rc, out.substr(0, 600).c_str());
    return -1;
  }
  return seconds;
}

}  // namespace

int scale_sim_rank(const BenchOptions&) {
  const char* v = std::getenv(k_rank_env);
  const SlabCase c = decode(v ? v : "");
  return run_as_ranks(std::nullopt, [&](RankComm* comm) {
    auto engine = make_simulation_engine(c.backend);
    if (comm && comm->size() > 1) engine->set_rank_comm(comm);
    const int ranks = comm ? comm->size() : 1;
    auto play = [&](const SlabRun& r) {
      std::vector<std::complex<float>> samples(static_cast<std::size_t>(r.prog.readouts) * r.prog.nx);
      // The CPU engine writes the truth cell by cell; the CUDA one skips an empty span.
      std::vector<std::complex<float>> truth(c.backend == Backend::Cpu ? r.ph.size() : 0);
      engine->run(r.ph, r.prog, samples, truth, {}, {});
    };
    play(slab_run({c.nx / 8, c.ny / 8, 0, 8, c.cell_m * 8, c.backend}, 2 * ranks));  // contexts, communicators
    // GPU ranks build only their held planes: the whole slab on every rank's host is what limits its size.
    const bool held_only = comm && ranks > 1 && c.backend == Backend::Cuda;
    const SlabRun r = held_only ? SlabRun{{}, build_sequence_program(bench_ge(c.pe, c.nx * c.cell_m))} : slab_run(c, c.nz);
    CellPhantom held;
    SlabSplit split;
    if (held_only) {
      CellPhantom shape;  // the whole grid's sizes, for the split
      shape.nx = c.nx, shape.ny = c.ny, shape.nz = c.nz;
      split = slab_split(shape, ranks, engine->rank_halo_planes(c.nz, ranks));
      const int me = comm->rank();
      {
        // Slabs of equal work (balance_slabs): each rank weighs the planes of its equal slab, the ranks share
        // the weights, and each builds its held planes of the balanced split.
        const OrganSlabPlanes own = organ_slab_planes(liver_slab_spec(c.nx, c.ny, c.nz, c.cell_m), "bench slab",
                                                      k_liver_slab_max_bytes, split.begin(me), split.end(me));
        const std::vector<double> mine = plane_work(own.ph, split.plane_cells);
        std::vector<std::complex<double>> shared(static_cast<std::size_t>(c.nz));
        for (std::size_t p = 0; p < mine.size(); ++p) shared[split.begin(me) + p] = mine[p];
        comm->all_gather(shared, split.begin(me), split.end(me));
        std::vector<double> work(shared.size());
        for (std::size_t p = 0; p < work.size(); ++p) work[p] = shared[p].real();
        balance_slabs(split, work);
        if (me == 0) std::fprintf(stderr, "%s\n", decomposition_text(split).c_str());
      }
      OrganSlabPlanes part = organ_slab_planes(liver_slab_spec(c.nx, c.ny, c.nz, c.cell_m), "bench slab",
                                               k_liver_slab_max_bytes, split.held_begin(me), split.held_end(me));
      scale_organ_slab_flow(part.ph, comm->max_over_ranks(part.u_max_m_per_s));
      part.ph.whole_courant_speed = comm->max_over_ranks(max_courant_speed(part.ph));
      empty_halo_cells(part.ph, split, me);
      held = std::move(part.ph);
    }
    if (comm) comm->all_agree(true);
    const auto t0 = std::chrono::steady_clock::now();
    if (held_only) {
      std::vector<std::complex<float>> samples(static_cast<std::size_t>(r.prog.readouts) * r.prog.nx);
      engine->run_held_slab(held, split, r.prog, CoilMaps{}, samples, {}, {}, {});
    } else {
      play(r);
    }
    if (comm) comm->all_agree(true);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!comm || comm->rank() == 0) std::printf("%s%.6f\n", k_seconds_tag, s);
    return 0;
  });
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
  std::printf("Simulator over %s ranks: liver slab %dx%dx%d, GE %d PE (strong), %d planes per rank (weak)\n",
              devices > 0 ? "GPU" : "CPU", strong.nx, strong.ny, strong.nz, strong.pe, per_rank_planes);
  std::printf("%-6s %12s %11s %12s %11s\n", "ranks", "strong s", "efficiency", "weak s", "efficiency");
  nlohmann::json rows = nlohmann::json::array();
  double t1 = 0, w1 = 0, strong_at_4 = -1, weak_at_4 = -1;
  bool ok = true;
  for (int n = 1; n <= most; n *= 2) {
    SlabCase weak = strong;
    weak.nz = per_rank_planes * n;
    const double ts = run_ranks(strong, n), tw = run_ranks(weak, n);
    if (ts < 0 || tw < 0) {
      ok = false;
      break;
    }
    if (n == 1) t1 = ts, w1 = tw;
    const double es = t1 / (n * ts), ew = w1 / tw;
    if (n == 4) strong_at_4 = es, weak_at_4 = ew;
    std::printf("%-6d %12.4f %10.1f%% %12.4f %10.1f%%\n", n, ts, 100 * es, tw, 100 * ew);
    rows.push_back({{"ranks", n}, {"strong_s", ts}, {"strong_efficiency", es}, {"weak_nz", weak.nz}, {"weak_s", tw},
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
  return ok ? 0 : 1;
}

}  // namespace mrwb::cli
