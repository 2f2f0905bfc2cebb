#pragma once
// A phantom's tissue values as a table of the distinct ones and a 16-bit entry per cell. The CUDA
// simulator then reads 2 bytes per cell and pass instead of 16 (and uploads 2 instead of 17 per cell):
// builder phantoms and the liver slab hold a handful of tissues. A smooth off-resonance map holds too
// many distinct values and keeps one value per cell.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/base/uninitialised_allocator.hpp"
#include "mrwb/phantom/phantom.hpp"

namespace mrwb {

using TissueValue = std::array<float, 4>;

struct TissueTable {
  std::vector<TissueValue> values;           // per entry; per cell when `entry` is empty
  UninitialisedVector<std::uint16_t> entry;  // per cell, into values
};

constexpr std::size_t k_max_tissue_entries = 65536;  // what a 16-bit entry addresses

// Distinct values compared bit for bit (the table reproduces every value exactly), each with its entry.
class TissueIndex {
 public:
  explicit TissueIndex(std::size_t max_entries) : max_(max_entries) {}
  // The entry of v, added when new; −1 when the table is full.
  long find_or_add(const TissueValue& v);
  const std::vector<TissueValue>& values() const { return values_; }

 private:
  struct KeyHash {
    std::size_t operator()(const std::array<std::uint32_t, 4>& k) const;
  };
  std::size_t max_;
  std::vector<TissueValue> values_;
  std::unordered_map<std::array<std::uint32_t, 4>, std::uint16_t, KeyHash> index_;
};

// Merges the per-range tables of a parallel pass (ranges of for_each_range(n, parts)): renumbers the
// entries of every range into one table. False when the merged table exceeds max_entries.
bool merge_tissue_ranges(const std::vector<std::vector<TissueValue>>& local, std::size_t n, std::size_t max_entries,
                         TissueTable& out);

// The distinct values of value(k), k < n, and each k's entry, in a parallel pass over `parts` ranges
// (0: range_parts(n)). False, with `out` cleared, when there are more than max_entries.
template <typename Value>
bool distinct_values(std::size_t n, Value&& value, TissueTable& out, std::size_t max_entries = k_max_tissue_entries,
                     int parts = 0) {
  if (parts <= 0) parts = range_parts(n);
  std::vector<std::vector<TissueValue>> local(static_cast<std::size_t>(parts));
  std::vector<char> fits(static_cast<std::size_t>(parts), 1);
  out.values.clear();
  out.entry.resize(n);
  std::uint16_t* entry = out.entry.data();
  for_each_range(n, parts, [&, entry](int p, std::size_t begin, std::size_t end) {
    TissueIndex index(max_entries);
    TissueValue last{};
    long last_entry = -1;
    for (std::size_t k = begin; k < end; ++k) {
      const TissueValue v = value(k);
      // Neighbouring cells mostly share a tissue: one look-up per run (bitwise, as the index compares).
      if (last_entry < 0 || std::memcmp(v.data(), last.data(), sizeof v) != 0) {
        last_entry = index.find_or_add(v);
        if (last_entry < 0) {
          fits[static_cast<std::size_t>(p)] = 0;
          return;
        }
        last = v;
      }
      entry[k] = static_cast<std::uint16_t>(last_entry);
    }
    local[static_cast<std::size_t>(p)] = index.values();
  });
  for (char f : fits)
    if (!f) {
      out = {};
      return false;
    }
  return merge_tissue_ranges(local, n, max_entries, out);
}

// The tissue (PD, T1, T2, ΔB) of the cells that the CUDA engine plays in closed form, PD = 0 for the
// others (cells with PD = 0; fluid cells when the phantom moves, which are time-stepped): as a table
// when at most max_entries distinct values occur, else one value per cell. In `parts` ranges on threads (0:
// range_parts).
TissueTable closed_form_tissue(const CellPhantom& ph, bool moving, std::size_t max_entries = k_max_tissue_entries,
                               int parts = 0);

}  // namespace mrwb
