#pragma once
// N ranks played by N threads of one process: an in-process RankComm for the unit suites of work split over
// ranks (test_rank_decomposition: the slab-decomposed engine; test_noncart_ranks: the non-Cartesian recon),
// which need no mpirun and run under the sanitizers.
#include <QTest>

#include <algorithm>
#include <barrier>
#include <complex>
#include <functional>
#include <span>
#include <thread>
#include <vector>

#include "mrwb/base/rank_comm.hpp"

namespace mrwb_test {

using mrwb::RankComm;

// Ranks as threads sharing memory: every call is collective, and a barrier separates posting from reading.
struct ThreadRanks {
  explicit ThreadRanks(int n) : size(n), sync(n), fields(n), sums(n), truth(n), ranges(n), bytes(n), values(n), ok(n) {}
  int size;
  std::barrier<> sync;
  std::vector<std::span<const RankComm::HaloField>> fields;
  std::vector<std::span<double>> sums;
  struct Part {
    std::complex<float>* whole;
    std::size_t begin, end;
  };
  std::vector<Part> truth;
  struct WholePart {
    std::complex<double>* whole;
    std::size_t begin, end;
  };
  std::vector<WholePart> ranges;
  std::vector<std::span<std::byte>> bytes;
  std::vector<double> values;
  std::vector<char> ok;
};

class ThreadRankComm final : public RankComm {
 public:
  ThreadRankComm(ThreadRanks& shared, int rank) : s_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return s_.size; }
  void exchange_halos(std::span<const HaloField> fields) override {
    s_.fields[rank_] = fields;
    s_.sync.arrive_and_wait();
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (rank_ > 0) copy(s_.fields[rank_ - 1][k].send_upper, fields[k].recv_lower);
      if (rank_ + 1 < s_.size) copy(s_.fields[rank_ + 1][k].send_lower, fields[k].recv_upper);
    }
    s_.sync.arrive_and_wait();
  }
  using RankComm::sum_in_rank_order;
  void sum_in_rank_order(std::span<double> values) override {
    s_.sums[rank_] = values;
    s_.sync.arrive_and_wait();
    std::vector<double> total(values.size());
    for (std::size_t j = 0; j < values.size(); ++j) {
      total[j] = s_.sums[0][j];
      for (int r = 1; r < s_.size; ++r) total[j] += s_.sums[r][j];
    }
    s_.sync.arrive_and_wait();
    std::copy(total.begin(), total.end(), values.begin());
  }
  void gather_to_root(std::span<std::complex<float>> whole, std::size_t begin, std::size_t end) override {
    s_.truth[rank_] = {whole.data(), begin, end};
    s_.sync.arrive_and_wait();
    if (rank_ == 0)
      for (int r = 1; r < s_.size; ++r)
        std::copy(s_.truth[r].whole + s_.truth[r].begin, s_.truth[r].whole + s_.truth[r].end, whole.data() + s_.truth[r].begin);
    s_.sync.arrive_and_wait();
  }
  void all_gather(std::span<std::complex<double>> whole, std::size_t begin, std::size_t end) override {
    s_.ranges[rank_] = {whole.data(), begin, end};
    s_.sync.arrive_and_wait();
    for (int r = 0; r < s_.size; ++r)
      if (r != rank_)
        std::copy(s_.ranges[r].whole + s_.ranges[r].begin, s_.ranges[r].whole + s_.ranges[r].end, whole.data() + s_.ranges[r].begin);
    s_.sync.arrive_and_wait();
  }
  void broadcast_bytes(std::span<std::byte> bytes, int root) override {
    s_.bytes[rank_] = bytes;
    s_.sync.arrive_and_wait();
    if (rank_ != root) std::copy(s_.bytes[root].begin(), s_.bytes[root].end(), bytes.begin());
    s_.sync.arrive_and_wait();
  }
  double max_over_ranks(double value) override {
    s_.values[rank_] = value;
    s_.sync.arrive_and_wait();
    const double top = *std::max_element(s_.values.begin(), s_.values.end());
    s_.sync.arrive_and_wait();
    return top;
  }
  bool all_agree(bool ok) override {
    s_.ok[rank_] = ok;
    s_.sync.arrive_and_wait();
    const bool all = std::all_of(s_.ok.begin(), s_.ok.end(), [](char c) { return c != 0; });
    s_.sync.arrive_and_wait();
    return all;
  }

 private:
  static void copy(std::span<const float> from, std::span<float> to) {
    QVERIFY(from.size() == to.size());
    std::copy(from.begin(), from.end(), to.begin());
  }
  ThreadRanks& s_;
  int rank_;
};

// fn(comm, rank) on `ranks` threads, rank 0 on the caller's; returns once every rank is done.
inline void run_thread_ranks(int ranks, const std::function<void(RankComm&, int)>& fn) {
  ThreadRanks shared(ranks);
  auto one = [&](int r) {
    ThreadRankComm comm(shared, r);
    fn(comm, r);
  };
  std::vector<std::thread> pool;
  for (int r = 1; r < ranks; ++r) pool.emplace_back(one, r);
  one(0);
  for (auto& t : pool) t.join();
}

}  // namespace mrwb_test
