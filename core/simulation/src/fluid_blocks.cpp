// Region tables of the temporal blocking (fluid_blocks.hpp): recursive coordinate bisection of the fluid
// cells into parts, each part's K-hop halo found by a breadth-first search through fluid faces, and the
// face codes of every entry. Everything works on fluid ranks (positions in the ascending fluid list, so
// rank order is global-index order): the face adjacency is found once by one merge sweep of the sorted
// list per face offset (no grid-sized lookup array), and a rank-sized scratch array (rank -> region-local
// index, −1 elsewhere), reset after each part, serves every part's lookups.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "mrwb/simulation/fluid_blocks.hpp"
#include "mrwb/simulation/transport_cell_ops.hpp"

namespace mrwb {
namespace {

constexpr std::size_t k_max_local = 32767;  // local indices are int16
constexpr std::int32_t k_adj_edge = -1;     // face across the grid edge
constexpr std::int32_t k_adj_solid = -2;    // face to a non-fluid cell inside the grid

class Builder {
 public:
  Builder(const CellPhantom& ph, std::span<const std::uint32_t> fluid, int K, std::size_t max_interior,
          std::size_t max_region)
      : ph_(ph),
        fluid_(fluid),
        faces_(ph.nz > 1 ? 6 : 4),
        K_(K),
        max_interior_(max_interior),
        max_region_(max_region),
        local_(fluid.size(), -1) {
    out_.steps = K;
    out_.faces = faces_;
    out_.region_begin.push_back(0);
    build_adjacency();
  }

  // Part = ranks[b, e), ascending.
  void split(std::vector<std::uint32_t>& ranks, std::size_t b, std::size_t e) {
    const std::size_t count = e - b;
    if (count <= max_interior_ && try_region(ranks, b, e)) return;
    if (count == 1)
      throw std::invalid_argument("build_fluid_blocks: the region of one cell exceeds max_region " +
                                  std::to_string(max_region_) + " at K = " + std::to_string(K_));
    // Longest bounding-box extent (ties: x before y before z).
    int lo[3] = {ph_.nx, ph_.ny, ph_.nz}, hi[3] = {-1, -1, -1};
    for (std::size_t k = b; k < e; ++k)
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], coord_[a][ranks[k]]);
        hi[a] = std::max(hi[a], coord_[a][ranks[k]]);
      }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
      if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    // Median by (coordinate, rank): the halves have count/2 and count − count/2 cells even where a whole
    // plane shares the median coordinate; a stable partition keeps global order within each half.
    const std::vector<int>& c = coord_[axis];
    auto key = [&](std::uint32_t r) { return (static_cast<std::uint64_t>(c[r]) << 32) | r; };
    keys_.resize(count);
    for (std::size_t k = 0; k < count; ++k) keys_[k] = key(ranks[b + k]);
    const std::size_t half = count / 2;
    std::nth_element(keys_.begin(), keys_.begin() + static_cast<long>(half), keys_.end());
    const std::uint64_t median = keys_[half];
    std::stable_partition(ranks.begin() + static_cast<long>(b), ranks.begin() + static_cast<long>(e),
                          [&](std::uint32_t r) { return key(r) < median; });
    split(ranks, b, b + half);
    split(ranks, b + half, e);
  }

  FluidBlocks take() { return std::move(out_); }

  // Face codes against the whole fluid list: the neighbour's rank, or open / wall as the gather decides
  // (grid edge: open boundary; a non-fluid neighbour: open only at a vessel end).
  std::vector<std::int32_t> face_ranks() const {
    std::vector<std::int32_t> out(adj_.size());
    const bool ends = ph_.open_end.size() == ph_.size();
    for (std::size_t k = 0; k < adj_.size(); ++k) {
      const std::int32_t a = adj_[k];
      const bool open = a == k_adj_edge || (a == k_adj_solid && ends && ph_.open_end[fluid_[k / faces_]] != 0);
      out[k] = a >= 0 ? a : (open ? k_face_open : k_face_wall);
    }
    return out;
  }

 private:
  // adj_[rank·faces + f]: rank of the fluid neighbour through face f (+x, −x, +y, −y, +z, −z), or
  // k_adj_edge / k_adj_solid. Global index j = i + offset grows with i, so one pointer sweeps the sorted
  // list per face.
  void build_adjacency() {
    const std::size_t nf = fluid_.size();
    for (auto& c : coord_) c.resize(nf);
    for (std::size_t r = 0; r < nf; ++r) {
      const std::uint32_t i = fluid_[r];
      if (r > 0 && i <= fluid_[r - 1]) throw std::invalid_argument("build_fluid_blocks: fluid list not ascending");
      if (i >= ph_.size() || ph_.type[i] != transport::k_fluid)
        throw std::invalid_argument("build_fluid_blocks: fluid list holds a cell that is not fluid");
      const std::uint32_t row = i / static_cast<std::uint32_t>(ph_.nx);
      coord_[0][r] = static_cast<int>(i - row * static_cast<std::uint32_t>(ph_.nx));
      coord_[1][r] = static_cast<int>(row % static_cast<std::uint32_t>(ph_.ny));
      coord_[2][r] = static_cast<int>(row / static_cast<std::uint32_t>(ph_.ny));
    }
    const long slice = static_cast<long>(ph_.nx) * ph_.ny;
    const long offset[6] = {1, -1, ph_.nx, -ph_.nx, slice, -slice};
    const int extent[3] = {ph_.nx, ph_.ny, ph_.nz};
    adj_.resize(nf * faces_);
    for (int f = 0; f < faces_; ++f) {
      const int axis = f / 2;
      const bool up = (f & 1) == 0;
      std::size_t q = 0;
      for (std::size_t r = 0; r < nf; ++r) {
        const int c = coord_[axis][r];
        std::int32_t& a = adj_[r * faces_ + f];
        if (up ? c + 1 >= extent[axis] : c == 0) {
          a = k_adj_edge;
          continue;
        }
        const long j = static_cast<long>(fluid_[r]) + offset[f];
        while (q < nf && static_cast<long>(fluid_[q]) < j) ++q;
        if (q < nf && static_cast<long>(fluid_[q]) == j) {
          a = static_cast<std::int32_t>(q);
        } else {
          // Every fluid cell must be in the list: the gather would read a neighbour the tables lack.
          if (ph_.type[static_cast<std::size_t>(j)] == transport::k_fluid)
            throw std::invalid_argument("build_fluid_blocks: fluid list misses fluid cell " + std::to_string(j));
          a = k_adj_solid;
        }
      }
    }
  }

  // Builds the region of ranks[b, e) and appends it as a part; false (nothing appended) when the region
  // exceeds max_region.
  bool try_region(const std::vector<std::uint32_t>& ranks, std::size_t b, std::size_t e) {
    region_.assign(ranks.begin() + static_cast<long>(b), ranks.begin() + static_cast<long>(e));
    for (std::size_t k = 0; k < region_.size(); ++k) local_[region_[k]] = static_cast<std::int32_t>(k);
    hop_end_.assign(1, static_cast<std::uint32_t>(region_.size()));
    bool fits = region_.size() <= max_region_;
    std::size_t first = 0;
    for (int h = 1; h <= K_ && fits; ++h) {
      const std::size_t last = region_.size();
      for (std::size_t k = first; k < last; ++k)
        for (int f = 0; f < faces_; ++f) {
          const std::int32_t j = adj_[static_cast<std::size_t>(region_[k]) * faces_ + f];
          if (j < 0 || local_[j] >= 0) continue;
          local_[j] = 0;  // claimed; the local index is set after the hop's sort
          region_.push_back(static_cast<std::uint32_t>(j));
        }
      std::sort(region_.begin() + static_cast<long>(last), region_.end());  // within a hop: global order
      for (std::size_t k = last; k < region_.size(); ++k) local_[region_[k]] = static_cast<std::int32_t>(k);
      hop_end_.push_back(static_cast<std::uint32_t>(region_.size()));
      fits = region_.size() <= max_region_;
      first = last;
    }
    if (fits) append();
    for (std::uint32_t r : region_) local_[r] = -1;
    return fits;
  }

  void append() {
    const std::uint8_t* open_end = ph_.open_end.size() == ph_.size() ? ph_.open_end.data() : nullptr;
    out_.hop_end.insert(out_.hop_end.end(), hop_end_.begin(), hop_end_.end());
    for (std::uint32_t r : region_) {
      const std::uint32_t i = fluid_[r];
      out_.cell.push_back(i);
      for (int f = 0; f < faces_; ++f) {
        const std::int32_t j = adj_[static_cast<std::size_t>(r) * faces_ + f];
        std::int16_t code;
        if (j >= 0)  // a fluid neighbour outside the region only borders the outermost halo, never updated
          code = local_[j] >= 0 ? static_cast<std::int16_t>(local_[j]) : k_face_wall;
        else if (j == k_adj_edge)
          code = k_face_open;  // the engines' grid boundary is always open
        else
          code = open_end && open_end[i] ? k_face_open : k_face_wall;  // vessel end or wall
        out_.face.push_back(code);
      }
    }
    out_.region_begin.push_back(static_cast<std::uint32_t>(out_.cell.size()));
    out_.max_region = std::max(out_.max_region, region_.size());
  }

  const CellPhantom& ph_;
  std::span<const std::uint32_t> fluid_;
  int faces_;
  int K_;
  std::size_t max_interior_, max_region_;
  std::vector<int> coord_[3];        // [axis][rank] cell coordinate
  std::vector<std::int32_t> adj_;    // [rank][face]
  std::vector<std::int32_t> local_;  // [rank] region-local index in the part being built, or −1
  std::vector<std::uint32_t> region_, hop_end_;
  std::vector<std::uint64_t> keys_;
  FluidBlocks out_;
};

}  // namespace

double FluidBlocks::redundancy() const {
  double updates = 0, fluid = 0;
  for (std::size_t p = 0; p < parts(); ++p) {
    const std::uint32_t* he = hop_end.data() + p * (steps + 1);
    fluid += he[0];
    for (int h = 0; h <= steps; ++h)
      updates += static_cast<double>(he[h] - (h > 0 ? he[h - 1] : 0)) * (steps - h);
  }
  return fluid > 0 ? updates / (static_cast<double>(steps) * fluid) : 1.0;
}

FluidBlocks build_fluid_blocks(const CellPhantom& ph, std::span<const std::uint32_t> fluid, int K,
                               std::size_t max_interior, std::size_t max_region) {
  if (K < 1) throw std::invalid_argument("build_fluid_blocks: K must be >= 1");
  if (max_interior < 1) throw std::invalid_argument("build_fluid_blocks: max_interior must be >= 1");
  if (max_region > k_max_local)
    throw std::invalid_argument("build_fluid_blocks: max_region " + std::to_string(max_region) +
                                " exceeds 32767 (region-local indices are int16)");
  if (ph.size() > 0xffffffffu) throw std::invalid_argument("build_fluid_blocks: more than 2^32 cells");
  Builder builder(ph, fluid, K, max_interior, max_region);
  std::vector<std::uint32_t> ranks(fluid.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) ranks[r] = static_cast<std::uint32_t>(r);
  if (!ranks.empty()) builder.split(ranks, 0, ranks.size());
  return builder.take();
}

std::vector<std::int32_t> fluid_face_ranks(const CellPhantom& ph, std::span<const std::uint32_t> fluid) {
  if (ph.size() > 0xffffffffu) throw std::invalid_argument("fluid_face_ranks: more than 2^32 cells");
  return Builder(ph, fluid, 1, fluid.size(), 1).face_ranks();
}

}  // namespace mrwb
