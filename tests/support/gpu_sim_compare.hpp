#pragma once
// CUDA simulator vs the CPU reference, for the `gpu` tests: one run of both engines compared by the relative
// RMS difference (numeric.hpp's rel_rms, sqrt(Σ|a − b|² / Σ|b|²) in double) of k-space and cell truth.
#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <complex>
#include <vector>

#include "mrwb/simulation/cpu_engine.hpp"
#include "mrwb/simulation/simulation_engine.hpp"
#include "mrwb_gpu/simulation/cuda_simulation_engine.hpp"
#include "numeric.hpp"

using mrwb::test::rel_rms;  // the suites including this header call it unqualified

struct Runs {
  double dk, dt;
};
// CPU and CUDA on the same phantom and program, both transporting with `transport`: k-space and cell truth
// relative RMS (CUDA vs CPU).
inline Runs compare_engines(const mrwb::CellPhantom& ph, const mrwb::SequenceProgram& prog, const char* what,
                            mrwb::FlowTransport transport = mrwb::CpuSimulationEngine().flow_transport()) {
  std::vector<std::complex<float>> ka(static_cast<std::size_t>(prog.readouts) * prog.nx), kb(ka.size()), ta(ph.size()),
      tb(ph.size());
  mrwb::CpuSimulationEngine cpu;
  auto cuda = mrwb::gpu::make_cuda_simulation_engine();
  cpu.set_flow_transport(transport);
  cuda->set_flow_transport(transport);
  QElapsedTimer t;
  t.start();
  cpu.run(ph, prog, ka, ta, {}, {});
  const double cpu_s = t.nsecsElapsed() * 1e-9;
  t.restart();
  cuda->run(ph, prog, kb, tb, {}, {});
  const double cuda_s = t.nsecsElapsed() * 1e-9;
  std::size_t fluid = 0;
  for (auto ty : ph.type) fluid += ty == static_cast<std::uint8_t>(mrwb::CellType::Fluid);
  const Runs r{rel_rms(kb, ka), rel_rms(tb, ta)};
  qInfo("%s (%s): %dx%dx%d cells (%zu fluid), %d readouts: CPU %.3f s, CUDA %.3f s; k-space rel. RMS %.3g, truth %.3g",
        what, std::string(mrwb::to_string(transport)).c_str(), ph.nx, ph.ny, ph.nz,
        fluid, prog.readouts, cpu_s, cuda_s, r.dk, r.dt);
  return r;
}

// The simulator's CUDA-vs-CPU bar: k-space and truth within 1e-4 relative RMS of the CPU reference.
inline void expect_agreement(const mrwb::CellPhantom& ph, const mrwb::SequenceProgram& prog, const char* what,
                             mrwb::FlowTransport transport = mrwb::CpuSimulationEngine().flow_transport()) {
  const Runs r = compare_engines(ph, prog, what, transport);
  QVERIFY(r.dk <= 1e-4);
  QVERIFY(r.dt <= 1e-4);
}

