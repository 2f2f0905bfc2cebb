// CPU twin of the blocked CUDA kernel (fluid_blocks.hpp): the same launches, the same region-local
// buffers and the same per-entry operators (fluid_block_ops.hpp), one part after the other. Launch L
// plays steps k0 = L·K … k0 + K − 1 of the table: every part loads its region from the current global
// state A, plays the steps (step s updates the entries of hop <= K − s) and writes its interior into the
// next state B; A and B swap when every part is done, as the device's double buffer does.
#include <algorithm>
#include <complex>
#include <vector>

#include "mrwb/simulation/fluid_block_ops.hpp"
#include "mrwb/simulation/fluid_blocks.hpp"
#include "fluid_twin_steps.hpp"

namespace mrwb {
namespace {

// One part's region-local arrays (two magnetization buffers, tissue, flow, positions).
struct Region {
  std::vector<float> mx[2], my[2], mz[2];
  std::vector<float> ux, uy, uz, pd, r1, r2, db;
  std::vector<double> x, y, z;
  void resize(std::size_t r) {
    for (int b = 0; b < 2; ++b) {
      mx[b].resize(r);
      my[b].resize(r);
      mz[b].resize(r);
    }
    for (auto* v : {&ux, &uy, &uz, &pd, &r1, &r2, &db}) v->resize(r);
    x.resize(r);
    y.resize(r);
    z.resize(r);
  }
};

template <int Faces>
void run_blocks(const CellPhantom& ph, const FluidBlocks& blocks, std::span<const FluidStep> table,
                std::span<const std::complex<float>> coil_sens, int ncoils, std::size_t per_coil, float* const A0[3],
                float* const B0[3], float* const* final_state, std::span<std::complex<double>> samples,
                std::span<std::complex<float>> cell_truth) {
  const std::size_t n = ph.size();
  const int K = blocks.steps;
  const bool has_uz = ph.uz.size() == n;
  float* A[3] = {A0[0], A0[1], A0[2]};
  float* B[3] = {B0[0], B0[1], B0[2]};
  Region R;
  const long n_steps = static_cast<long>(table.size());
  for (long k0 = 0; k0 < n_steps; k0 += K) {
    const int steps = static_cast<int>(std::min<long>(K, n_steps - k0));
    for (std::size_t p = 0; p < blocks.parts(); ++p) {
      const std::uint32_t begin = blocks.region_begin[p];
      const std::size_t size = blocks.region_begin[p + 1] - begin;
      const std::uint32_t* cell = blocks.cell.data() + begin;
      const std::int16_t* face = blocks.face.data() + static_cast<std::size_t>(begin) * Faces;
      const std::uint32_t* hop_end = blocks.hop_end.data() + p * static_cast<std::size_t>(K + 1);
      const std::uint32_t interior = hop_end[0];
      R.resize(size);
      for (std::size_t e = 0; e < size; ++e) {
        const std::uint32_t i = cell[e];
        R.mx[0][e] = A[0][i];
        R.my[0][e] = A[1][i];
        R.mz[0][e] = A[2][i];
        R.ux[e] = ph.ux[i];
        R.uy[e] = ph.uy[i];
        R.uz[e] = has_uz ? ph.uz[i] : 0.f;
        R.pd[e] = ph.PD[i];
        R.r1[e] = fluid::relaxation_rate(ph.T1_s[i]);  // rates R1, R2 (fluid_bloch)
        R.r2[e] = fluid::relaxation_rate(ph.T2_s[i]);
        R.db[e] = ph.dB_T[i];
        const std::uint32_t row = i / static_cast<std::uint32_t>(ph.nx);
        R.x[e] = ph.x0_m + static_cast<int>(i - row * static_cast<std::uint32_t>(ph.nx)) * ph.cell_size_m;
        R.y[e] = ph.y0_m + static_cast<int>(row % static_cast<std::uint32_t>(ph.ny)) * ph.cell_size_m;
        R.z[e] = ph.z0_m + static_cast<int>(row / static_cast<std::uint32_t>(ph.ny)) * ph.cell_size_m;
      }
      int cur = 0;
      for (int s = 1; s <= steps; ++s) {
        const FluidStep& S = table[static_cast<std::size_t>(k0 + s - 1)];
        float *mx = R.mx[cur].data(), *my = R.my[cur].data(), *mz = R.mz[cur].data();
        // (a) the instantaneous operator on every entry still valid (hop <= K − s + 1).
        fluid::apply_op_to(S, hop_end[K - s + 1], mx, my, mz);
        // (b) signal and truth of the interior, in entry order.
        if (S.sample >= 0) fluid::add_signal(coil_sens, ncoils, n, per_coil, S.sample, mx, my, cell, interior, samples);
        if (S.truth)
          for (std::uint32_t e = 0; e < interior; ++e) cell_truth[cell[e]] = {mx[e], my[e]};
        // (c) transport + Bloch of the entries of hop <= K − s into the other buffer.
        float *ox = R.mx[cur ^ 1].data(), *oy = R.my[cur ^ 1].data(), *oz = R.mz[cur ^ 1].data();
        const float* uz = Faces == 6 ? R.uz.data() : nullptr;
        for (std::uint32_t e = 0; e < hop_end[K - s]; ++e) {
          const auto t = fluid::region_gather<Faces>(static_cast<int>(e), face + static_cast<std::size_t>(e) * Faces, mx,
                                                     my, mz, R.ux.data(), R.uy.data(), uz, R.pd[e], S.scale);
          bloch::Mag m{t.x, t.y, t.z};
          fluid::fluid_bloch(m, R.pd[e], R.r1[e], R.r2[e], R.db[e], R.x[e], R.y[e], R.z[e], S);
          ox[e] = m.Mx;
          oy[e] = m.My;
          oz[e] = m.Mz;
        }
        cur ^= 1;
      }
      for (std::uint32_t e = 0; e < interior; ++e) {
        B[0][cell[e]] = R.mx[cur][e];
        B[1][cell[e]] = R.my[cur][e];
        B[2][cell[e]] = R.mz[cur][e];
      }
    }
    std::swap(A, B);
  }
  // The final state lies in A; bring it to the caller's arrays when it is the scratch buffer.
  if (A[0] != final_state[0])
    for (std::size_t p = 0; p < blocks.parts(); ++p)
      for (std::uint32_t e = blocks.region_begin[p]; e < blocks.region_begin[p] + blocks.hop_end[p * (K + 1)]; ++e)
        for (int a = 0; a < 3; ++a) final_state[a][blocks.cell[e]] = A[a][blocks.cell[e]];
}

}  // namespace

void run_fluid_blocks_cpu(const CellPhantom& ph, const FluidBlocks& blocks, std::span<const FluidStep> table,
                          std::span<const std::complex<float>> coil_sens, int ncoils, std::size_t per_coil,
                          std::span<float> Mx, std::span<float> My, std::span<float> Mz,
                          std::span<std::complex<double>> samples, std::span<std::complex<float>> cell_truth) {
  std::vector<float> Bx(Mx.begin(), Mx.end()), By(My.begin(), My.end()), Bz(Mz.begin(), Mz.end());
  float* const A[3] = {Mx.data(), My.data(), Mz.data()};
  float* const B[3] = {Bx.data(), By.data(), Bz.data()};
  if (blocks.faces == 6)
    run_blocks<6>(ph, blocks, table, coil_sens, ncoils, per_coil, A, B, A, samples, cell_truth);
  else
    run_blocks<4>(ph, blocks, table, coil_sens, ncoils, per_coil, A, B, A, samples, cell_truth);
}

}  // namespace mrwb
