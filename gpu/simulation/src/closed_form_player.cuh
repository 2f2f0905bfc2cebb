#pragma once
// The closed-form part of the CUDA simulator: the cells that are never time-stepped, played event by
// event (play_events) or, for readouts along x, the separable way (separable_pass + separable_signal;
// mrwb/simulation/internal/separable_readout.hpp, composed passes mrwb/simulation/internal/pass_operator.hpp). Kernels in closed_form_player.cu.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "mrwb/phantom/tissue_table.hpp"
#include "mrwb/simulation/internal/pass_operator.hpp"
#include "mrwb/simulation/internal/separable_readout_signal.hpp"
#include "simulation_device.cuh"

namespace mrwb::gpu::sim {

constexpr int k_sep_block = 128;
constexpr int k_sep_max_terms = 24;       // coils × groups of shared accumulators per thread
constexpr int k_sep_max_gradients = 4;    // gradient intervals per pass with shared turn factors
constexpr int k_max_pass_table_entries = 32;  // tissue entries of the pass tables (more: per cell)
// Rows per block of a separable pass: 64 on the steps' stream (fewest atomics into P); beside the steps 16,
// so that a block holds its SM's slots a quarter as long and a step's blocks, which start before any pending
// block of the pass (stream priorities), wait less for them (4 x H200, the liver slab on 4 GPUs: 3.50 s with
// 64 rows, 3.35 s with 16, 3.46 s with 4). Beside steps of at most two rounds of blocks 8: their idle slots (a
// light or partial last round) are a larger share of each step, and a pass's block that fills one delays the
// next step's first round by its length (one H200, kernels, an outer rank of the 2000 x 2000 x 140 slab's 4-rank
// split alone, 0.67 M fluid cells in 1.7 rounds: 2.75, 2.75, 2.75 s with 8 rows against 2.83, 2.82, 2.84 s with
// 16; steps of 5.8 and 6.9 rounds were 0.8-0.9 % slower with 8).
constexpr int k_sep_max_rows = 64;
constexpr int k_sep_rows_beside_steps = 16;
constexpr int k_sep_rows_beside_short_steps = 8;
// float4 per tissue entry of a pass table: 3 per affine map, 2 of readout factors.
constexpr int pass_table_width(int maps) { return 3 * maps + 2; }
static_assert(pass_table_width(k_sep_max_gradients + 1) * k_max_pass_table_entries * sizeof(float4) <= k_device_event_factor_bytes,
              "memory estimate (gpu_memory.cpp) too small");
static_assert(sizeof(separable::AffineMap) == 3 * sizeof(float4));

void launch_play_events(unsigned blocks, cudaStream_t stream, const CellGrid& g, const DeviceEvent* ev, int e_begin, int e_end,
                        const CellData& d, const std::uint32_t* list, std::size_t first, std::size_t last);
// Table: `pass` is the pass's table (composed maps and readout factors per tissue entry). load_xy / store_xy: the
// pass reads the Mxy it starts from / stores the Mxy it ends with (separable::transverse_reads).
void launch_separable_pass(bool table, dim3 grid, std::size_t shared_bytes, cudaStream_t stream, const CellGrid& g,
                           const DeviceEvent* ev, int e_begin, int e_end, const CellData& d,
                           const separable::ReadoutGroups& groups, int rows_per_block, int n_grad, const float4* pass,
                           double2* P, bool load_xy, bool store_xy);
void launch_separable_signal(cudaStream_t stream, const CellGrid& g, const DeviceEvent& R,
                             const separable::ReadoutGroups& groups, const double2* P, double2* sums);

// Closed-form player: queues the event program for its cells in groups of events ending at a readout
// (at most 64 events during dummy scans), each split into cell ranges of at most one pacing chunk.
// beside_steps: `stream` is a low-priority stream of its own that plays beside the fluid cells' steps.
class ClosedFormPlayer {
 public:
  ClosedFormPlayer(const SequenceProgram& prog, const std::vector<int>& marks, const CellGrid& g, const CellData& d,
                   const std::uint32_t* list, std::size_t count, cudaStream_t stream, Pacer& pacer, bool beside_steps)
      : marks_(marks), g_(g), d_(d), list_(list), count_(list ? count : g.n), has_cells_(count > 0), stream_(stream),
        pacer_(pacer),
        ev_(device_events(prog)), d_ev_(std::max<std::size_t>(1, ev_.size())),
        max_rows_(beside_steps ? k_sep_rows_beside_steps : k_sep_max_rows) {
    if (!ev_.empty()) d_ev_.upload(ev_.data());
    if (const char* env = std::getenv("MRWB_SEP_ROWS"))
      max_rows_ = std::clamp(std::atoi(env), 1, k_sep_max_rows);
    else
      rows_by_steps_ = beside_steps;
  }
  // The steps beside which the passes play take at most `rounds` rounds of resident blocks: the rows per block of
  // the passes queued from then on.
  void beside_steps_of(std::size_t rounds) {
    if (rows_by_steps_ && rounds <= 2) max_rows_ = k_sep_rows_beside_short_steps;
  }
  // Queues every group whose last event completes at most `tr` TRs (INT_MAX: all). Returns the TRs
  // completed by what has been queued.
  int play_until(int tr) {
    while (begin_ < ev_.size()) {
      double cost = 0;  // cell-steps per cell of this group
      const std::size_t end = group_end(begin_, cost);
      if (marks_[end - 1] > tr) break;
      queue(begin_, end, cost);
      done_ = marks_[end - 1];
      begin_ = end;
    }
    return done_;
  }
  // Readouts along x are then played the separable way (separable_pass + separable_signal) when the
  // closed-form cells fall into at most k_max_readout_groups (T2, ΔB) groups and coils × groups fit the
  // shared accumulators; other readouts, and everything otherwise, keep play_events (direct sums).
  void enable_separable(const TissueTable& tissue, const SequenceProgram& prog) {
    if (!has_cells_ || !separable::readout_groups(tissue.values, groups_) || groups_.count == 0 ||
        g_.ncoils * groups_.count > k_sep_max_terms)
      return;
    separable_.assign(prog.events.size(), false);
    for (std::size_t k = 0; k < prog.events.size(); ++k) separable_[k] = separable::readout_is_separable(prog.events[k]);
    // MRWB_SEP_KEEP_XY=1: every pass loads and stores Mxy (A/B measurements).
    const char* keep_env = std::getenv("MRWB_SEP_KEEP_XY");
    const bool keep = keep_env && std::atoi(keep_env) == 1;
    transverse_read_ = keep ? std::vector<bool>(prog.events.size() + 1, true) : separable::transverse_reads(prog.events);
    P_ = std::make_unique<DeviceBuffer<double2>>(static_cast<std::size_t>(g_.ncoils * groups_.count) * g_.nx);
    if (d_.entry && !tissue.values.empty() && tissue.values.size() <= k_max_pass_table_entries) pass_tables(tissue, prog);
  }

 private:
  // The group of events from `begin`: up to a readout, at most 64 events. Adds its cell-steps per cell
  // to `cost`.
  std::size_t group_end(std::size_t begin, double& cost) const {
    std::size_t end = begin;
    while (end < ev_.size()) {
      const bool ro = ev_[end].kind == static_cast<int>(EventKind::Readout);
      cost += 1 + (ro ? ev_[end].n_samples : 0);
      ++end;
      if (ro || end - begin >= 64) break;
    }
    return end;
  }
  static int gradients(const std::vector<DeviceEvent>& ev, std::size_t begin, std::size_t end) {
    int n = 0;
    for (std::size_t e = begin; e + 1 < end; ++e) n += ev[e].gradient;
    return n;
  }

  // For each separable group with at most k_sep_max_gradients gradient intervals, its table
  // (separable_pass with Table): per tissue entry the composed maps of the events before the readout
  // (mrwb/simulation/internal/pass_operator.hpp) and the readout's factors (1 − E1^n, z^n's tissue part, group as int bits;
  // z^t's tissue part). Entries with PD = 0 are never read.
  void pass_tables(const TissueTable& tissue, const SequenceProgram& prog) {
    const std::size_t entries = tissue.values.size();
    std::vector<float4> host;
    pass_offset_.assign(ev_.size(), -1);
    for (std::size_t begin = 0; begin < ev_.size();) {
      double cost = 0;
      const std::size_t end = group_end(begin, cost);
      const int n_grad = gradients(ev_, begin, end);
      const DeviceEvent& R = ev_[end - 1];
      if (separable_[end - 1] && n_grad <= k_sep_max_gradients) {
        pass_offset_[end - 1] = static_cast<long long>(host.size());
        const std::span<const SeqEvent> before(prog.events.data() + begin, end - 1 - begin);
        for (std::size_t k = 0; k < entries; ++k) {
          const TissueValue& t = tissue.values[k];
          const std::size_t at = host.size();
          host.resize(at + pass_table_width(n_grad + 1), float4{});
          if (t[0] == 0.f) continue;
          const std::vector<separable::AffineMap> maps = separable::compose_pass(before, t);
          std::memcpy(&host[at], maps.data(), maps.size() * sizeof(separable::AffineMap));
          const separable::ReadoutTissueFactors f =
              separable::readout_tissue_factors(R.dt_s, R.n_samples, R.truth_sample, t[1], t[2], t[3]);
          const int grp = separable::group_of(groups_, t[2], t[3]);
          float grp_bits;
          std::memcpy(&grp_bits, &grp, sizeof grp);
          host[at + 3 * maps.size()] = make_float4(f.omE1n, f.zn_re, f.zn_im, grp_bits);
          host[at + 3 * maps.size() + 1] = make_float4(f.zt_re, f.zt_im, 0.f, 0.f);
        }
      }
      begin = end;
    }
    if (host.empty()) return;
    tables_ = std::make_unique<DeviceBuffer<float4>>(host.size());
    tables_->upload(host.data());
  }

  void queue_separable(std::size_t begin, std::size_t end) {
    // Up to max_rows_ rows per thread (fewer atomics into P), fewer where that would leave under ~8192 blocks
    // (a 256² slice would otherwise run on 8 blocks); gridDim.y <= 65535.
    const int rows = g_.ny * g_.nz, x_blocks = (g_.nx + k_sep_block - 1) / k_sep_block;
    const long long wide = static_cast<long long>(rows) * x_blocks / 8192;
    const int rows_per_block = std::max(static_cast<int>(std::clamp<long long>(wide, 1, max_rows_)), (rows + 65534) / 65535);
    const dim3 grid(x_blocks, (rows + rows_per_block - 1) / rows_per_block);
    const std::size_t terms = static_cast<std::size_t>(g_.ncoils * groups_.count);
    int n_grad = std::min(gradients(ev_, begin, end), k_sep_max_gradients);
    auto shared_bytes = [&] { return ((terms + n_grad) * k_sep_block + static_cast<std::size_t>(n_grad) * rows_per_block) * sizeof(float2); };
    // The table's maps split at every gradient interval, each turned from the shared factors.
    const bool table = tables_ && pass_offset_[end - 1] >= 0 && shared_bytes() <= 48 * 1024;
    if (shared_bytes() > 48 * 1024) n_grad = 0;  // very many rows per block: per-cell gradient turns
    cuda_check(cudaMemsetAsync(P_->get(), 0, P_->size() * sizeof(double2), stream_), "memset");
    launch_separable_pass(table, grid, shared_bytes(), stream_, g_, d_ev_.get(), static_cast<int>(begin), static_cast<int>(end),
                          d_, groups_, rows_per_block, n_grad, table ? tables_->get() + pass_offset_[end - 1] : nullptr,
                          P_->get(), transverse_read_[begin], transverse_read_[end]);
    launch_separable_signal(stream_, g_, ev_[end - 1], groups_, P_->get(), d_.sums);
    pacer_.queued(static_cast<double>(end - begin) * static_cast<double>(g_.n));  // one pass over the grid
  }

  void queue(std::size_t begin, std::size_t end, double cost) {
    if (!separable_.empty() && separable_[end - 1]) return queue_separable(begin, end);
    constexpr std::size_t per_block = k_block * k_cells_per_thread;
    const std::size_t range =
        std::max<std::size_t>(per_block, static_cast<std::size_t>(k_chunk_cell_steps / cost) / per_block * per_block);
    for (std::size_t first = 0; first < count_; first += range) {
      const std::size_t last = std::min(count_, first + range);
      const unsigned blocks = static_cast<unsigned>((last - first + per_block - 1) / per_block);
      launch_play_events(blocks, stream_, g_, d_ev_.get(), static_cast<int>(begin), static_cast<int>(end), d_, list_, first,
                         last);
      pacer_.queued(cost * static_cast<double>(last - first));
    }
  }

  const std::vector<int>& marks_;
  CellGrid g_;
  CellData d_;
  const std::uint32_t* list_;
  std::size_t count_;  // entries of list_, or the grid's cells
  bool has_cells_;
  cudaStream_t stream_;
  Pacer& pacer_;
  std::vector<DeviceEvent> ev_;
  DeviceBuffer<DeviceEvent> d_ev_;
  std::size_t begin_ = 0;
  int done_ = 0;
  std::vector<bool> separable_;  // [event] readout played the separable way (empty: none)
  std::vector<bool> transverse_read_;  // [event] Mxy before it read (separable::transverse_reads); [size]: the end
  separable::ReadoutGroups groups_;
  std::unique_ptr<DeviceBuffer<double2>> P_;  // [coil][group][x]
  std::unique_ptr<DeviceBuffer<float4>> tables_;  // pass_tables (nullptr: none)
  std::vector<long long> pass_offset_;            // [readout event] its pass table in tables_, −1: none
  int max_rows_;  // rows per block of a separable pass (MRWB_SEP_ROWS=1..64 overrides: A/B measurements)
  bool rows_by_steps_ = false;  // beside the steps, MRWB_SEP_ROWS unset: beside_steps_of picks the rows
};

}  // namespace mrwb::gpu::sim
