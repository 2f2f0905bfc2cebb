// Tissue tables (mrwb/phantom/tissue_table.hpp): the bitwise index, the merge of a parallel pass, and the
// closed-form cells' table of the CUDA engine.
#include "mrwb/phantom/tissue_table.hpp"

#include <bit>

namespace mrwb {

std::size_t TissueIndex::KeyHash::operator()(const std::array<std::uint32_t, 4>& k) const {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the four words
  for (std::uint32_t w : k) h = (h ^ w) * 1099511628211ull;
  return static_cast<std::size_t>(h);
}

long TissueIndex::find_or_add(const TissueValue& v) {
  const std::array<std::uint32_t, 4> key{std::bit_cast<std::uint32_t>(v[0]), std::bit_cast<std::uint32_t>(v[1]),
                                         std::bit_cast<std::uint32_t>(v[2]), std::bit_cast<std::uint32_t>(v[3])};
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  if (values_.size() == max_) return -1;
  index_.emplace(key, static_cast<std::uint16_t>(values_.size()));
  values_.push_back(v);
  return static_cast<long>(values_.size()) - 1;
}

bool merge_tissue_ranges(const std::vector<std::vector<TissueValue>>& local, std::size_t n, std::size_t max_entries,
                         TissueTable& out) {
  TissueIndex merged(max_entries);
  std::vector<std::vector<std::uint16_t>> renumber(local.size());
  bool identity = true;
  for (std::size_t p = 0; p < local.size(); ++p)
    for (std::size_t j = 0; j < local[p].size(); ++j) {
      const long e = merged.find_or_add(local[p][j]);
      if (e < 0) {
        out = {};
        return false;
      }
      renumber[p].push_back(static_cast<std::uint16_t>(e));
      identity = identity && static_cast<std::size_t>(e) == j;
    }
  if (!identity)
    for_each_range(n, static_cast<int>(local.size()), [&](int p, std::size_t begin, std::size_t end) {
      const auto& to = renumber[static_cast<std::size_t>(p)];
      for (std::size_t k = begin; k < end; ++k) out.entry[k] = to[out.entry[k]];
    });
  out.values = merged.values();
  return true;
}

TissueTable closed_form_tissue(const CellPhantom& ph, bool moving, std::size_t max_entries, int parts) {
  // Raw pointers captured by value: the pass streams 17 bytes per cell and must not reload them.
  const float *PD = ph.PD.data(), *T1 = ph.T1_s.data(), *T2 = ph.T2_s.data(), *dB = ph.dB_T.empty() ? nullptr : ph.dB_T.data();
  const std::uint8_t* type = ph.type.data();
  const std::uint8_t skipped_type = moving ? static_cast<std::uint8_t>(CellType::Fluid) : 0xff;
  auto value = [=](std::size_t i) {
    if (PD[i] == 0.f || type[i] == skipped_type) return TissueValue{0.f, 0.f, 0.f, 0.f};
    return TissueValue{PD[i], T1[i], T2[i], dB ? dB[i] : 0.f};
  };
  TissueTable t;
  if (parts <= 0) parts = range_parts(ph.size());
  if (distinct_values(ph.size(), value, t, max_entries, parts)) return t;
  t.values.resize(ph.size());
  for_each_range(ph.size(), parts, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) t.values[i] = value(i);
  });
  return t;
}

}  // namespace mrwb
