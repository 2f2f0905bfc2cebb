#pragma once
// Pieces of the CPU twin of the CUDA engine's step kernel (transport_stencil.cpp):
// a step's instantaneous operator over a range of compact entries, and the signal of their state.
#include <complex>
#include <cstdint>
#include <span>

#include "mrwb/simulation/internal/moving_step_ops.hpp"

namespace mrwb::fluid {

// The step's RF or spoiling on entries [0, count) of the compact arrays mx, my, mz.
inline void apply_op_to(const FluidStep& S, std::size_t count, float* mx, float* my, float* mz) {
  if (S.op == 0) return;
  for (std::size_t e = 0; e < count; ++e) {
    bloch::Mag m{mx[e], my[e], mz[e]};
    apply_op(S, m);
    mx[e] = m.Mx;
    my[e] = m.My;
    mz[e] = m.Mz;
  }
}

// samples[c·per_coil + sample] += Σ_e C_c(cell[e])·(mx[e] + i·my[e]) over entries [0, count), in entry
// order (coil_sens empty: one uniform coil; else [coil][grid cell], n cells per coil).
inline void add_signal(std::span<const std::complex<float>> coil_sens, int ncoils, std::size_t n, std::size_t per_coil,
                       int sample, const float* mx, const float* my, const std::uint32_t* cell, std::size_t count,
                       std::span<std::complex<double>> samples) {
  for (int c = 0; c < ncoils; ++c) {
    std::complex<double> acc{};
    for (std::size_t e = 0; e < count; ++e) {
      if (coil_sens.empty()) {
        acc += std::complex<double>(mx[e], my[e]);
      } else {
        const std::complex<float> C = coil_sens[static_cast<std::size_t>(c) * n + cell[e]];
        acc += std::complex<double>(C.real() * mx[e] - C.imag() * my[e], C.real() * my[e] + C.imag() * mx[e]);
      }
    }
    samples[static_cast<std::size_t>(c) * per_coil + static_cast<std::size_t>(sample)] += acc;
  }
}

}  // namespace mrwb::fluid
