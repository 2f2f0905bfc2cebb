#include "mrwb/simulation/block_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <stdexcept>

#include "mrwb/base/errors.hpp"
#include "mrwb/simulation/cell_state_plan.hpp"
#include "mrwb/simulation/courant.hpp"

namespace mrwb {

std::vector<float> velocity_truth_m_per_s(const CellPhantom& ph, int axis) {
  if (axis < 0 || axis > 2) throw InputError("phase contrast: velocity axis " + std::to_string(axis) + " (allowed: 0 x, 1 y, 2 z)");
  const int cpv = std::max(1, ph.cells_per_voxel);
  const int mx = ph.nx / cpv, my = ph.ny / cpv;
  const std::vector<float>& u = axis == 0 ? ph.ux : axis == 1 ? ph.uy : ph.uz;
  const bool moving = ph.flow_dt_s > 0 && u.size() == ph.size();
  const double to_m_per_s = moving ? ph.cell_size_m / ph.flow_dt_s : 0;
  std::vector<double> pd_v(static_cast<std::size_t>(mx) * my, 0.0), pd(pd_v.size(), 0.0);
  for (int iy = 0; iy < my * cpv; ++iy)
    for (int ix = 0; ix < mx * cpv; ++ix) {
      const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix, v = static_cast<std::size_t>(iy / cpv) * mx + ix / cpv;
      pd[v] += ph.PD[i];
      if (moving && ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid)) pd_v[v] += ph.PD[i] * u[i] * to_m_per_s;
    }
  std::vector<float> out(pd.size(), 0.f);
  for (std::size_t v = 0; v < out.size(); ++v)
    if (pd[v] > 0) out[v] = static_cast<float>(pd_v[v] / pd[v]);
  return out;
}

seq::ConversionOptions block_playback(const SequenceFidelity& f) {
  seq::ConversionOptions o;
  o.hard_rf = f.rf != RfFidelity::Shaped;
  o.rf_step_s = 100e-6;
  o.ideal_spoiling = f.spoiling == SpoilingFidelity::Ideal;
  o.cell_states = f.spoiling == SpoilingFidelity::States;
  o.max_free_step_s = f.gradients == GradientFidelity::Moments ? 0 : 20e-6;
  return o;
}

std::vector<RawData> simulate_block_sequence(const CellPhantom& ph, const seq::BlockSequence& s, SimulationEngine& engine,
                                             const CoilMaps& coils, Image2D* truth, const ProgressFn& progress,
                                             const CancelToken& cancel, const seq::ConversionOptions& options) {
  seq::ConversionOptions opt = options;
  // Pieces matter to moving spins only: for a still phantom the pieces of an interval compose to its one
  // rotation, so it is played whole (fewer rounding steps).
  if (!phantom_moves(ph)) opt.max_free_step_s = 0;
  seq::ProgramConversion c = seq::to_sequence_program(s, opt);
  const SequenceProgram& prog = c.program;
  // Samples come in ADC order either way; per-sample readouts (spiral gradients) need one length per ADC.
  const int nx = c.per_sample_readouts && !c.adc_samples.empty() ? c.adc_samples.front() : prog.nx;
  for (int n : c.adc_samples)
    if (n != nx) throw InputError("simulate: ADCs of " + std::to_string(n) + " and " + std::to_string(nx) +
                                  " samples (allowed: the same sample count in every ADC)");
  std::vector<std::complex<float>> samples(static_cast<std::size_t>(coils.ncoils) * prog.readouts * prog.nx);
  std::vector<std::complex<float>> cell_truth(ph.size());
  check_engine_plays_cell_states(engine, prog);
  engine.run(ph, prog, coils, samples, cell_truth, progress, cancel);
  seq::demodulate(c, samples, coils.ncoils);

  // Segment of every ADC from the SET label (set on the ADC block or earlier).
  const std::vector<int> segment_of = seq::adc_set_labels(s);
  const int n_segments = segment_of.empty() ? 0 : 1 + *std::max_element(segment_of.begin(), segment_of.end());
  const int cpv = std::max(1, ph.cells_per_voxel);
  const float scale = 1.0f / static_cast<float>(cpv * cpv);
  std::vector<RawData> raw(n_segments);
  for (RawData& r : raw) {
    r.nx = nx;
    r.ny = prog.ny;
    r.ncoils = coils.ncoils;
    r.fov_x_m = s.fov_m[0];
    r.fov_y_m = s.fov_m[1];
    r.TE_s = c.TE_s;
    r.TR_s = c.TR_s;
    r.flip_angle_deg = prog.flip_angle_deg;
    r.dwell_s = prog.dwell_s;
    r.kspace.assign(static_cast<std::size_t>(r.ncoils) * r.ny * r.nx, {});
    r.line_flags.assign(r.ny, 0);
  }
  const std::size_t per_coil = static_cast<std::size_t>(prog.readouts) * prog.nx;
  for (int a = 0; a < c.adc_count; ++a) {
    RawData& r = raw[segment_of[a]];
    const int line = c.adc_line[a];
    r.line_flags[line] = c.adc_flags[a];
    for (int coil = 0; coil < r.ncoils; ++coil)
      for (int i = 0; i < r.nx; ++i) r.at(coil, line, i) = samples[coil * per_coil + static_cast<std::size_t>(a) * nx + i] * scale;
  }
  for (RawData& r : raw) {
    const bool all = std::all_of(r.line_flags.begin(), r.line_flags.end(),
                                 [](std::uint8_t f) { return f == (kLineAcquired | kLineImaging); });
    if (all) r.line_flags.clear();
  }

  if (truth && c.k0_adc >= 0) {
    // Cell Mxy at the k-space centre, in the receiver's frame, averaged over each voxel (one coil's view
    // when there are several: the root sum of squares of their sensitivities).
    const int matrix = ph.nx / cpv;
    truth->nx = truth->ny = matrix;
    truth->fov_x_m = s.fov_m[0];
    truth->fov_y_m = s.fov_m[1];
    truth->data.assign(truth->size(), {});
    const std::complex<float> demod = std::polar(1.0f, static_cast<float>(-c.demod_phase_rad[static_cast<std::size_t>(c.k0_adc) * nx + c.k0_sample]));
    for (int iy = 0; iy < ph.ny; ++iy)
      for (int ix = 0; ix < ph.nx; ++ix) {
        const std::size_t i = static_cast<std::size_t>(iy) * ph.nx + ix;
        float w = 1.f;
        if (!coils.uniform()) {
          w = 0.f;
          for (int k = 0; k < coils.ncoils; ++k) w += std::norm(coils.sens[static_cast<std::size_t>(k) * ph.size() + i]);
          w = std::sqrt(w);
        }
        truth->data[static_cast<std::size_t>(iy / cpv) * matrix + ix / cpv] += cell_truth[i] * demod * (scale * w);
      }
  }
  return raw;
}

}  // namespace mrwb
