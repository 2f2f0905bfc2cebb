// Cancel latency of a simulation engine (simulation_engine.hpp).
#include <chrono>
#include <exception>
#include <thread>

#include "mrwb/simulation/cancel_latency.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {

double cancel_latency_s(SimulationEngine& engine, const CellPhantom& ph, const SequenceProgram& prog, double delay_s) {
  std::vector<std::complex<float>> samples(static_cast<std::size_t>(prog.readouts) * prog.nx), truth(ph.size());
  CancelToken token;
  std::chrono::steady_clock::time_point end;
  bool cancelled = false;
  std::exception_ptr failure;  // any other error is rethrown here, not lost on the thread
  std::thread worker([&] {
    try {
      engine.run(ph, prog, samples, truth, {}, token);
    } catch (const Cancelled&) {
      cancelled = true;
    } catch (...) {
      failure = std::current_exception();
    }
    end = std::chrono::steady_clock::now();
  });
  std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
  const auto at = std::chrono::steady_clock::now();
  token.cancel();
  worker.join();
  if (failure) std::rethrow_exception(failure);
  return cancelled ? std::chrono::duration<double>(end - at).count() : -1.0;
}

}  // namespace mrwb
