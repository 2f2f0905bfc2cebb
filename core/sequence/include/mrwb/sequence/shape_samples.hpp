#pragma once
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace mrwb::seq {

// The samples of a shape (an RF envelope, a gradient waveform, a time shape), shared by every block that
// plays it: a sequence repeats one pulse in every TR, and a copy per block made a 3-D or multi-slice
// sequence of 10^4 to 10^5 TRs hold gigabytes of the same numbers. Read like a const vector; replaced whole.
class ShapeSamples {
 public:
  ShapeSamples() = default;
  ShapeSamples(std::vector<double> v) : p_(std::make_shared<const std::vector<double>>(std::move(v))) {}  // NOLINT: implicit by design
  ShapeSamples& operator=(std::vector<double> v) {
    p_ = std::make_shared<const std::vector<double>>(std::move(v));
    return *this;
  }

  const std::vector<double>& values() const { return p_ ? *p_ : empty_values(); }
  operator const std::vector<double>&() const { return values(); }  // NOLINT: read where a vector is read

  std::size_t size() const { return values().size(); }
  bool empty() const { return values().empty(); }
  double operator[](std::size_t i) const { return values()[i]; }
  double front() const { return values().front(); }
  double back() const { return values().back(); }
  const double* data() const { return values().data(); }
  std::vector<double>::const_iterator begin() const { return values().begin(); }
  std::vector<double>::const_iterator end() const { return values().end(); }

  friend bool operator==(const ShapeSamples& a, const ShapeSamples& b) { return a.p_ == b.p_ || a.values() == b.values(); }

 private:
  static const std::vector<double>& empty_values() {
    static const std::vector<double> none;
    return none;
  }
  std::shared_ptr<const std::vector<double>> p_;
};

}  // namespace mrwb::seq
