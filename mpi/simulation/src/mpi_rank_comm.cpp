#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "mrwb_mpi/simulation/mpi_rank_comm.hpp"

namespace mrwb::mpi {
namespace {

// MPI counts are int: large arrays go in pieces.
constexpr std::size_t k_piece = std::size_t{1} << 28;

}  // namespace

MpiRankComm::MpiRankComm() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error("MPI: this library gives no MPI_THREAD_SERIALIZED (needed by the threaded engine)");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &local_rank_);
  MPI_Comm_free(&host);
}

MpiRankComm::~MpiRankComm() { MPI_Finalize(); }

void MpiRankComm::exchange_halos(std::span<const HaloField> fields) {
  std::vector<MPI_Request> req;
  req.reserve(fields.size() * 4);
  // Tag 2k: field k travelling up (to rank + 1), 2k + 1: travelling down.
  auto post = [&](bool recv, const float* data, std::size_t count, int peer, int tag) {
    if (count == 0) return;
    if (count > k_piece) throw std::runtime_error("MPI halo: a halo plane of more than 2^28 cells");
    MPI_Request r;
    if (recv)
      MPI_Irecv(const_cast<float*>(data), static_cast<int>(count), MPI_FLOAT, peer, tag, MPI_COMM_WORLD, &r);
    else
      MPI_Isend(data, static_cast<int>(count), MPI_FLOAT, peer, tag, MPI_COMM_WORLD, &r);
    req.push_back(r);
  };
  for (std::size_t k = 0; k < fields.size(); ++k) {
    const HaloField& f = fields[k];
    const int up = static_cast<int>(2 * k), down = up + 1;
    post(true, f.recv_lower.data(), f.recv_lower.size(), rank_ - 1, up);
    post(true, f.recv_upper.data(), f.recv_upper.size(), rank_ + 1, down);
    post(false, f.send_lower.data(), f.send_lower.size(), rank_ - 1, down);
    post(false, f.send_upper.data(), f.send_upper.size(), rank_ + 1, up);
  }
  MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
}

void MpiRankComm::sum_in_rank_order(std::span<double> values) {
  // A chain in rank order, piece by piece: rank r adds its values to the sum of ranks 0 .. r − 1 and passes
  // it on, so the sum is ((v0 + v1) + v2) + ... on any network (MPI_Reduce fixes no order), with one piece of
  // memory per rank; the last rank's total goes to everyone.
  double* v = values.data();
  const std::size_t n = values.size();
  std::vector<double> before(std::min(k_piece, n));
  for (std::size_t at = 0; at < n; at += k_piece) {
    const int count = static_cast<int>(std::min(k_piece, n - at));
    if (rank_ > 0) {
      MPI_Recv(before.data(), count, MPI_DOUBLE, rank_ - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int j = 0; j < count; ++j) v[at + j] = before[j] + v[at + j];
    }
    if (rank_ + 1 < size_) MPI_Send(v + at, count, MPI_DOUBLE, rank_ + 1, 1, MPI_COMM_WORLD);
  }
  for (std::size_t at = 0; at < n; at += k_piece)
    MPI_Bcast(v + at, static_cast<int>(std::min(k_piece, n - at)), MPI_DOUBLE, size_ - 1, MPI_COMM_WORLD);
}

void MpiRankComm::gather_to_root(std::span<std::complex<float>> whole, std::size_t begin, std::size_t end) {
  unsigned long long mine[2] = {begin, end};
  std::vector<unsigned long long> ranges(static_cast<std::size_t>(size_) * 2);
  MPI_Gather(mine, 2, MPI_UNSIGNED_LONG_LONG, ranges.data(), 2, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  // Complex floats as float pairs, in pieces of at most k_piece floats.
  auto pieces = [&](std::size_t b, std::size_t e, auto&& fn) {
    for (std::size_t at = 2 * b; at < 2 * e; at += k_piece)
      fn(reinterpret_cast<float*>(whole.data()) + at, static_cast<int>(std::min(k_piece, 2 * e - at)));
  };
  if (rank_ != 0) {
    pieces(begin, end, [](float* p, int count) { MPI_Send(p, count, MPI_FLOAT, 0, 0, MPI_COMM_WORLD); });
    return;
  }
  for (int r = 1; r < size_; ++r)
    pieces(ranges[2 * r], ranges[2 * r + 1],
           [r](float* p, int count) { MPI_Recv(p, count, MPI_FLOAT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); });
}

void MpiRankComm::all_gather(std::span<std::complex<double>> whole, std::size_t begin, std::size_t end) {
  unsigned long long mine[2] = {begin, end};
  std::vector<unsigned long long> ranges(static_cast<std::size_t>(size_) * 2);
  MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, ranges.data(), 2, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
  // Each rank's range from it to all, as double pairs in pieces of at most k_piece doubles (MPI counts are
  // int; MPI_Allgatherv would need int displacements too).
  double* v = reinterpret_cast<double*>(whole.data());
  for (int r = 0; r < size_; ++r)
    for (std::size_t at = 2 * ranges[2 * r]; at < 2 * ranges[2 * r + 1]; at += k_piece)
      MPI_Bcast(v + at, static_cast<int>(std::min<std::size_t>(k_piece, 2 * ranges[2 * r + 1] - at)), MPI_DOUBLE, r,
                MPI_COMM_WORLD);
}

bool MpiRankComm::all_agree(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return v != 0;
}

void MpiRankComm::broadcast_bytes(std::span<std::byte> bytes, int root) {
  for (std::size_t at = 0; at < bytes.size(); at += k_piece)
    MPI_Bcast(bytes.data() + at, static_cast<int>(std::min(k_piece, bytes.size() - at)), MPI_BYTE, root, MPI_COMM_WORLD);
}

double MpiRankComm::max_over_ranks(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return value;
}

void MpiRankComm::abort_all(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return
}

}  // namespace mrwb::mpi
