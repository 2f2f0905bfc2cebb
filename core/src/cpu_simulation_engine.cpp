// CPU reference of the simulator. The static skeleton has no transport, so every cell evolves
// independently: cells are split into fixed chunks, each chunk plays the whole program, and the
// per-chunk signal sums (double) are added in chunk order, which makes the result independent of the
// thread count. The per-cell operators are the ones the CUDA kernels use (mrwb/bloch_cell_ops.hpp).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include "mrwb/bloch_cell_ops.hpp"
#include "mrwb/simulation_engine.hpp"

namespace mrwb {
namespace {

using cplx = std::complex<double>;

// Precession by `cycles` turns as (cos, sin) of 2 pi cycles, reduced to a fraction of a turn first so
// large gradient moments keep their precision.
void rotation(double cycles, std::complex<double>& r) {
  const double a = 2.0 * M_PI * (cycles - std::nearbyint(cycles));
  r = {std::cos(a), std::sin(a)};
}

struct ChunkRun {
  const Phantom2D& ph;
  const SequenceProgram& prog;
  std::size_t begin, end;
  cplx* sums;  // readouts × nx, this chunk's partial signal
  std::complex<float>* cell_truth;
  const CancelToken& cancel;

  void operator()() const {
    const std::size_t n = end - begin;
    std::vector<bloch::Mag> m(n);
    for (std::size_t k = 0; k < n; ++k) m[k] = {0.f, 0.f, ph.PD[begin + k]};
    std::vector<float> omE1(n), E2(n), c(n), s(n);  // omE1 = 1 − E1
    const double gamma_cycles = bloch::gamma_rad_per_s_T / (2.0 * M_PI);

    // Per-event operator factors. Relaxation depends only on (dt, T1, T2), shared by all cells of a
    // tissue, so it is recomputed only where the tissue changes. The gradient phase is separable,
    // exp(-i 2 pi (dkx x + dky y)) = column factor · row factor, so it costs nx + ny sin/cos per
    // event instead of one per cell; off-resonance adds a per-cell factor only where dB != 0.
    std::vector<std::complex<double>> col(ph.nx), row(ph.ny);
    auto prepare = [&](const SeqEvent& e) {
      const bool gradient = e.dk_x != 0 || e.dk_y != 0;
      if (gradient) {
        for (int ix = 0; ix < ph.nx; ++ix) rotation(e.dk_x * ph.x_m(ix), col[ix]);
        for (int iy = 0; iy < ph.ny; ++iy) rotation(e.dk_y * ph.y_m(iy), row[iy]);
      }
      float last_T1 = -1, last_T2 = -1, last_omE1 = 0, last_E2 = 1;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = begin + k;
        std::complex<double> r(1.0, 0.0);
        if (gradient) r = col[i % ph.nx] * row[i / ph.nx];
        if (ph.dB_T[i] != 0.f) {
          std::complex<double> b;
          rotation(gamma_cycles * ph.dB_T[i] * e.dt_s, b);
          r *= b;
        }
        c[k] = static_cast<float>(r.real());
        s[k] = static_cast<float>(r.imag());
        if (ph.T1_s[i] != last_T1) {
          last_T1 = ph.T1_s[i];
          last_omE1 = last_T1 > 0 ? static_cast<float>(-std::expm1(-e.dt_s / last_T1)) : 0.f;
        }
        if (ph.T2_s[i] != last_T2) {
          last_T2 = ph.T2_s[i];
          last_E2 = last_T2 > 0 ? static_cast<float>(std::exp(-e.dt_s / last_T2)) : 1.f;
        }
        omE1[k] = last_omE1;
        E2[k] = last_E2;
      }
    };

    int readout_index = 0;
    for (const SeqEvent& e : prog.events) {
      switch (e.kind) {
        case EventKind::Rf: {
          const float ca = static_cast<float>(std::cos(e.flip_rad)), sa = static_cast<float>(std::sin(e.flip_rad));
          const float cp = static_cast<float>(std::cos(e.phase_rad)), sp = static_cast<float>(std::sin(e.phase_rad));
          for (auto& mk : m) bloch::rf_rotate(mk, ca, sa, cp, sp);
          break;
        }
        case EventKind::Free:
          prepare(e);
          for (std::size_t k = 0; k < n; ++k) bloch::precess_relax(m[k], ph.PD[begin + k], omE1[k], E2[k], c[k], s[k]);
          break;
        case EventKind::Spoil:
          for (auto& mk : m) bloch::spoil(mk);
          break;
        case EventKind::Readout: {
          if (cancel.cancelled()) return;
          prepare(e);
          cplx* row = sums + static_cast<std::size_t>(readout_index) * prog.nx;
          for (int j = 0; j < e.n_samples; ++j) {
            double sx = 0, sy = 0;
            for (std::size_t k = 0; k < n; ++k) {
              sx += m[k].Mx;
              sy += m[k].My;
            }
            row[j] += cplx(sx, sy);
            if (j == e.truth_sample)
              for (std::size_t k = 0; k < n; ++k) cell_truth[begin + k] = {m[k].Mx, m[k].My};
            for (std::size_t k = 0; k < n; ++k) bloch::precess_relax(m[k], ph.PD[begin + k], omE1[k], E2[k], c[k], s[k]);
          }
          ++readout_index;
          break;
        }
      }
    }
  }
};

}  // namespace

CpuSimulationEngine::CpuSimulationEngine(int threads)
    : threads_(threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

void CpuSimulationEngine::run(const Phantom2D& ph, const SequenceProgram& prog, std::span<std::complex<float>> samples,
                              std::span<std::complex<float>> cell_truth, const ProgressFn& progress,
                              const CancelToken& cancel) {
  const std::size_t cells = ph.size();
  const std::size_t n_samples = static_cast<std::size_t>(prog.readouts) * prog.nx;
  std::fill(cell_truth.begin(), cell_truth.end(), std::complex<float>{});
  // Chunk size fixed by the problem, not by the thread count (determinism); at most 64 chunks.
  const std::size_t chunk = std::max<std::size_t>(4096, (cells + 63) / 64);
  const std::size_t n_chunks = (cells + chunk - 1) / chunk;
  std::vector<cplx> partial(n_chunks * n_samples, cplx{});

  std::atomic<std::size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto worker = [&] {
    for (;;) {
      const std::size_t ci = next++;
      if (ci >= n_chunks || cancel.cancelled()) return;
      ChunkRun run{ph, prog, ci * chunk, std::min(cells, (ci + 1) * chunk), partial.data() + ci * n_samples,
                   cell_truth.data(), cancel};
      run();
      const std::size_t d = ++done;
      if (progress) {
        std::lock_guard lock(progress_mutex);
        progress(static_cast<double>(d) / n_chunks, "simulate");
      }
    }
  };
  std::vector<std::thread> pool;
  const int t = static_cast<int>(std::min<std::size_t>(threads_, n_chunks));
  for (int i = 1; i < t; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  cancel.throw_if_cancelled();

  for (std::size_t j = 0; j < n_samples; ++j) {
    cplx acc{};
    for (std::size_t ci = 0; ci < n_chunks; ++ci) acc += partial[ci * n_samples + j];
    samples[j] = std::complex<float>(static_cast<float>(acc.real()), static_cast<float>(acc.imag()));
  }
}

}  // namespace mrwb
