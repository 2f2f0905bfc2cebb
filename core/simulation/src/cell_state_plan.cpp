#include "mrwb/simulation/cell_state_plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/simulation/simulation_engine.hpp"

namespace mrwb {
namespace {

using Moment = std::array<double, 3>;  // cycles per cell along x, y, z

constexpr double kGridTolerance = 1e-3;  // of an order: a moment this close to a whole multiple is on the grid
constexpr int kMaxDivisions = 64;        // an order is at least 1/64 of the largest moment

bool near_whole(double v) { return std::abs(v - std::nearbyint(v)) <= kGridTolerance; }

// The largest order u = M / j (j <= 64) of which every moment is a whole multiple; 0 when there is none.
double common_order(const std::vector<Moment>& m, int axis, double largest) {
  for (int j = 1; j <= kMaxDivisions; ++j) {
    const double u = largest / j;
    bool all = true;
    for (const Moment& v : m)
      if (!near_whole(v[axis] / u)) {
        all = false;
        break;
      }
    if (all) return u;
  }
  return 0;
}

}  // namespace

std::string CellStatePlan::summary() const {
  if (!active) return "cell states: none needed (no moment dephases within a cell)";
  static const char* axis_name[3] = {"x", "y", "z"};
  std::string s = "cell states: " + std::to_string(states) + " orders (" + std::to_string(bytes_per_cell()) +
                  " B per cell" + (capped ? ", capped" : "") + "), one order";
  bool first = true;
  for (int a = 0; a < 3; ++a)
    if (order_cycles_per_cell[a] != 0) {
      s += std::string(first ? " " : " and ") + number_text(std::abs(order_cycles_per_cell[a])) +
           (first ? " cycles per cell along " : " along ") + axis_name[a];
      first = false;
    }
  if (off_grid_cycles > 0) s += ", moments up to " + number_text(off_grid_cycles) + " cycles off the order grid";
  if (!frame_only_axes.empty()) s += "; " + frame_only_axes + " in the frame only, not diffused";
  return s + (diffusion ? "; diffusion included" : "; no diffusion (ADC 0)");
}

CellStatePlan plan_cell_states(const SequenceProgram& prog, const CellPhantom& ph, int max_states) {
  CellStatePlan plan;
  if (!prog.cell_states) return plan;
  // The cell's extent along each axis: cubic cells, and a 2-D slice's thickness along z.
  const double extent[3] = {ph.cell_size_m, ph.cell_size_m, ph.nz > 1 ? ph.cell_size_m : prog.slice_thickness_m};
  const bool marked = std::any_of(prog.events.begin(), prog.events.end(), [](const SeqEvent& e) { return e.rf_centre; });
  plan.centres_marked = marked;

  // The shift points and the moments played between them.
  std::vector<std::size_t> at;
  std::vector<Moment> moment;
  Moment since{0, 0, 0};
  auto add = [&](Moment& k, double dx, double dy, double dz, double times) {
    const double d[3] = {dx, dy, dz};
    for (int a = 0; a < 3; ++a) k[a] += d[a] * times * extent[a];
  };
  bool excited = false;  // before the first pulse nothing is transverse: its moments dephase nothing
  for (std::size_t i = 0; i < prog.events.size(); ++i) {
    const SeqEvent& e = prog.events[i];
    if (e.rf_centre || (!marked && e.kind == EventKind::Rf)) {
      at.push_back(i);
      moment.push_back(excited ? since : Moment{0, 0, 0});
      since = {0, 0, 0};
    }
    if (e.kind == EventKind::Rf) excited = true;
    if (e.kind == EventKind::Readout) {
      // The readout's own moment up to its middle sample (its echo) counts before the shift.
      const int middle = shift_sample(e);
      add(since, e.dk_x, e.dk_y, e.dk_z, middle);
      at.push_back(i);
      moment.push_back(since);
      since = {0, 0, 0};
      add(since, e.dk_x, e.dk_y, e.dk_z, e.n_samples - middle);
    } else if (e.kind == EventKind::Free) {
      add(since, e.dk_x, e.dk_y, e.dk_z, 1.0);
    }
  }
  double largest[3] = {0, 0, 0};
  for (const Moment& m : moment)
    for (int a = 0; a < 3; ++a) largest[a] = std::max(largest[a], std::abs(m[a]));
  int main_axis = -1;
  for (int a = 0; a < 3; ++a)
    if (largest[a] >= 1.0 - kGridTolerance && (main_axis < 0 || largest[a] > largest[main_axis])) main_axis = a;
  plan.shift_before.assign(prog.events.size(), 0);
  if (main_axis < 0) return plan;  // nothing dephases within a cell: order 0 alone is exact

  // The main axis: its common order (else one cycle per cell, the fraction carried to the next shift).
  double u = common_order(moment, main_axis, largest[main_axis]);
  if (u == 0) u = 1.0;
  std::vector<int> n(moment.size());
  double carry = 0;
  for (std::size_t s = 0; s < moment.size(); ++s) {
    const double want = carry + moment[s][main_axis];
    n[s] = static_cast<int>(std::nearbyint(want / u));
    carry = want - n[s] * u;
    plan.off_grid_cycles = std::max(plan.off_grid_cycles, std::abs(carry) > kGridTolerance * u ? std::abs(carry) : 0.0);
  }
  plan.order_cycles_per_cell[main_axis] = u;
  // The other dephasing axes join where their moments are the same multiples.
  static const char* axis_name[3] = {"x", "y", "z"};
  for (int b = 0; b < 3; ++b) {
    if (b == main_axis || largest[b] < 1.0 - kGridTolerance) continue;
    double ub = 0;
    for (std::size_t s = 0; s < moment.size() && ub == 0; ++s)
      if (n[s] != 0) ub = moment[s][b] / n[s];
    bool same = ub != 0;
    for (std::size_t s = 0; s < moment.size() && same; ++s)
      same = std::abs(moment[s][b] - n[s] * ub) <= kGridTolerance * std::max(1.0, std::abs(moment[s][b]));
    if (same)
      plan.order_cycles_per_cell[b] = ub;
    else
      plan.frame_only_axes += (plan.frame_only_axes.empty() ? "" : ", ") + std::string(axis_name[b]);
  }
  for (std::size_t s = 0; s < moment.size(); ++s) {
    plan.shift_before[at[s]] = n[s];
    plan.shift_total += std::abs(n[s]);
  }
  if (plan.shift_total == 0) return plan;
  plan.active = true;
  for (int a = 0; a < 3; ++a) plan.order_rad_per_m[a] = 2 * std::numbers::pi * plan.order_cycles_per_cell[a] / extent[a];
  for (std::size_t i = 0; i < ph.size() && ph.ADC_m2_per_s.size() == ph.size() && !plan.diffusion; ++i)
    plan.diffusion = ph.PD[i] > 0 && ph.ADC_m2_per_s[i] > 0;

  // N: a dephased state lives about T2 / (time per order) orders; keep those it takes to decay by 1e-5.
  float T2_max = 0;
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph.PD[i] > 0) T2_max = std::max(T2_max, ph.T2_s[i]);
  const double per_order_s = prog.duration_s > 0 ? prog.duration_s / plan.shift_total : 0;
  double want = per_order_s > 0 ? std::ceil(std::log(1e5) * T2_max / per_order_s) + 1 : plan.shift_total + 1.0;
  want = std::min(want, static_cast<double>(plan.shift_total) + 1);
  plan.states = static_cast<int>(std::clamp(want, 2.0, static_cast<double>(std::max(2, max_states))));
  plan.capped = want > max_states;
  return plan;
}

void check_engine_plays_cell_states(const SimulationEngine& engine, const SequenceProgram& prog) {
  if (prog.cell_states && engine.name() != "cpu")
    throw InputError("sequence.fidelity.spoiling: \"states\" (dephasing within each cell) runs on the CPU engine "
                     "for still phantoms (allowed with --backend " + engine.name() +
                     ": \"ideal\", \"gradients\")");
}

}  // namespace mrwb
