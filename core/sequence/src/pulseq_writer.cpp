// Pulseq .seq writer (1.4 or 1.5): events deduplicated into libraries, shapes compressed, md5 signature.
#include <openssl/evp.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/pulseq.hpp"

namespace mrwb::seq {

std::string md5_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr) != 1)
    throw std::runtime_error("md5: OpenSSL EVP_Digest failed");
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", digest[i]);
    hex += buf;
  }
  return hex;
}

std::vector<double> compress_shape(const std::vector<double>& w) {
  // As Pulseq: quantise the derivative to 1e-7 with error feedback, then run-length code equal values.
  const double q = 1e-7;
  const std::size_t n = w.size();
  std::vector<double> d(n);
  double cum = 0, prev_round_err = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double scaled = w[i] / q, prev = i ? w[i - 1] / q : 0.0;
    const double dq = std::round(scaled - prev);
    cum += dq;
    const double round_err = std::round(scaled - cum);
    d[i] = dq + (i ? round_err - prev_round_err : 0.0);
    prev_round_err = round_err;
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && d[j] == d[i]) ++j;
    const double v = d[i] * q;
    const std::size_t run = j - i;
    out.push_back(v);
    if (run >= 2) {
      out.push_back(v);
      out.push_back(static_cast<double>(run - 2));
    }
    i = j;
  }
  return out;
}

namespace {

std::string g9(double v) {
  char buf[40];
  if (v == 0) v = 0;  // no "-0"
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
long long us(double t) { return std::llround(t * 1e6); }

class Library {
 public:
  int id(const std::string& row) {
    auto [it, fresh] = ids_.emplace(row, static_cast<int>(rows_.size()) + 1);
    if (fresh) rows_.push_back(row);
    return it->second;
  }
  const std::vector<std::string>& rows() const { return rows_; }

 private:
  std::map<std::string, int> ids_;
  std::vector<std::string> rows_;
};

}  // namespace

std::string pulseq_text(const BlockSequence& s, int minor) {
  if (minor != 4 && minor != 5) throw InputError("pulseq: writable versions are 1.4 and 1.5 (asked: 1." + std::to_string(minor) + ")");
  const bool v15 = minor == 5;
  const SystemLimits& sys = s.sys;
  Library shapes, rfs, grads, traps, adcs, ext_lists, labelset, labelinc;
  std::vector<std::vector<double>> shape_data;  // uncompressed, by id - 1
  auto shape_id = [&](const std::vector<double>& w) {
    std::string key;
    for (double v : w) key += g9(v) + "\n";
    const int id = shapes.id(key);
    if (id > static_cast<int>(shape_data.size())) shape_data.push_back(w);
    return id;
  };
  std::ostringstream blocks;
  for (std::size_t bi = 0; bi < s.blocks.size(); ++bi) {
    const Block& b = s.blocks[bi];
    int ev[6] = {0, 0, 0, 0, 0, 0};
    if (b.rf) {
      const RfPulse& r = *b.rf;
      const int mag = shape_id(r.mag), ph = shape_id(r.phase), tm = r.time.empty() ? 0 : shape_id(r.time);
      // Every row starts with a std::string: a literal first (`" " + std::string`, an insert at 0) trips g++ 12's
      // -Wrestrict.
      const std::string shapes_row = g9(r.amplitude_Hz) + " " + std::to_string(mag) + " " + std::to_string(ph) + " " +
                                     std::to_string(tm) + " ";
      if (v15)
        ev[0] = rfs.id(shapes_row + std::to_string(us(r.center_s)) + " " + std::to_string(us(r.delay_s)) + " " +
                       g9(r.freq_ppm) + " " + g9(r.phase_ppm) + " " +
                       g9(r.freq_Hz - r.freq_ppm * sys.B0_T * gamma_Hz_per_T * 1e-6) + " " + g9(r.phase_rad) + " " + r.use);
      else
        ev[0] = rfs.id(shapes_row + std::to_string(us(r.delay_s)) + " " + g9(r.freq_Hz) + " " + g9(r.phase_rad));
    }
    const std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
    for (int a = 0; a < 3; ++a) {
      if (!*g3[a]) continue;
      const Gradient& g = **g3[a];
      if (g.type == Gradient::Type::Trap) {
        ev[1 + a] = -traps.id(g9(g.amplitude_Hz_per_m) + " " + std::to_string(us(g.rise_s)) + " " +
                              std::to_string(us(g.flat_s)) + " " + std::to_string(us(g.fall_s)) + " " +
                              std::to_string(us(g.delay_s)));
      } else {
        const int w = shape_id(g.waveform), tm = g.time.empty() ? 0 : shape_id(g.time);
        std::string row = g9(g.amplitude_Hz_per_m) + " ";
        if (v15) row += g9(g.first_Hz_per_m) + " " + g9(g.last_Hz_per_m) + " ";
        row += std::to_string(w) + " " + std::to_string(tm) + " " + std::to_string(us(g.delay_s));
        ev[1 + a] = grads.id(row);
      }
    }
    if (b.adc) {
      const Adc& a = *b.adc;
      std::string row = std::to_string(a.num_samples) + " " + std::to_string(std::llround(a.dwell_s * 1e9)) + " " +
                        std::to_string(us(a.delay_s)) + " ";
      if (v15)
        row += g9(a.freq_ppm) + " " + g9(a.phase_ppm) + " " +
               g9(a.freq_Hz - a.freq_ppm * sys.B0_T * gamma_Hz_per_T * 1e-6) + " " + g9(a.phase_rad) + " 0";
      else
        row += g9(a.freq_Hz) + " " + g9(a.phase_rad);
      ev[4] = adcs.id(row);
    }
    if (!b.labels.empty()) {
      // Extension list: built back to front so each entry names its successor.
      int next = 0;
      for (auto it = b.labels.rbegin(); it != b.labels.rend(); ++it) {
        const int ref = (it->increment ? labelinc : labelset).id(std::to_string(it->value) + " " + it->name);
        next = ext_lists.id(std::string(it->increment ? "2" : "1") + " " + std::to_string(ref) + " " + std::to_string(next));
      }
      ev[5] = next;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu %lld", bi + 1, std::llround(b.duration_s / sys.block_raster_s));
    blocks << buf;
    for (int k = 0; k < 6; ++k) blocks << " " << ev[k];  // trapezoid ids fixed up below
    blocks << "\n";
  }
  // Gradient and trapezoid ids share one number space: trapezoids follow the arbitrary gradients.
  const int n_grads = static_cast<int>(grads.rows().size());
  std::ostringstream fixed;
  {
    std::istringstream in(blocks.str());
    for (std::string line; std::getline(in, line);) {
      std::istringstream ls(line);
      long long id, dur;
      int ev[6];
      ls >> id >> dur;
      for (int& e : ev) ls >> e;
      fixed << id << " " << dur;
      for (int k = 0; k < 6; ++k) fixed << " " << ((k >= 1 && k <= 3 && ev[k] < 0) ? n_grads - ev[k] : ev[k]);
      fixed << "\n";
    }
  }

  std::ostringstream o;
  o << "# Pulseq sequence file\n# Created by MR Workbench (mrwb)\n\n[VERSION]\nmajor 1\nminor " << minor
    << "\nrevision 0\n\n[DEFINITIONS]\n";
  o << "AdcRasterTime " << g9(sys.adc_raster_s) << "\nBlockDurationRaster " << g9(sys.block_raster_s)
    << "\nGradientRasterTime " << g9(sys.grad_raster_s) << "\nRadiofrequencyRasterTime " << g9(sys.rf_raster_s) << "\n";
  if (s.fov_m[0] > 0) o << "FOV " << g9(s.fov_m[0]) << " " << g9(s.fov_m[1]) << " " << g9(s.fov_m[2]) << "\n";
  if (!s.name.empty()) o << "Name " << s.name << "\n";
  o << "TotalDuration " << g9(s.duration_s()) << "\n";
  for (const auto& [k, v] : s.extra_definitions) o << k << " " << v << "\n";
  o << "\n# Format of blocks:\n# NUM DUR RF  GX  GY  GZ  ADC  EXT\n[BLOCKS]\n" << fixed.str() << "\n";
  if (!rfs.rows().empty()) {
    o << (v15 ? "# id amplitude mag_id phase_id time_shape_id center delay freqPPM phasePPM freq phase use\n"
              : "# id amplitude mag_id phase_id time_shape_id delay freq phase\n")
      << "[RF]\n";
    for (std::size_t i = 0; i < rfs.rows().size(); ++i) o << i + 1 << " " << rfs.rows()[i] << "\n";
    o << "\n";
  }
  if (!grads.rows().empty()) {
    o << (v15 ? "# id amplitude first last amp_shape_id time_shape_id delay\n" : "# id amplitude amp_shape_id time_shape_id delay\n")
      << "[GRADIENTS]\n";
    for (std::size_t i = 0; i < grads.rows().size(); ++i) o << i + 1 << " " << grads.rows()[i] << "\n";
    o << "\n";
  }
  if (!traps.rows().empty()) {
    o << "# id amplitude rise flat fall delay\n[TRAP]\n";
    for (std::size_t i = 0; i < traps.rows().size(); ++i) o << n_grads + static_cast<int>(i) + 1 << " " << traps.rows()[i] << "\n";
    o << "\n";
  }
  if (!adcs.rows().empty()) {
    o << (v15 ? "# id num dwell delay freqPPM phasePPM freq phase phase_id\n" : "# id num dwell delay freq phase\n") << "[ADC]\n";
    for (std::size_t i = 0; i < adcs.rows().size(); ++i) o << i + 1 << " " << adcs.rows()[i] << "\n";
    o << "\n";
  }
  if (!ext_lists.rows().empty()) {
    o << "# id type ref next_id\n[EXTENSIONS]\n";
    for (std::size_t i = 0; i < ext_lists.rows().size(); ++i) o << i + 1 << " " << ext_lists.rows()[i] << "\n";
    o << "\nextension LABELSET 1\n";
    for (std::size_t i = 0; i < labelset.rows().size(); ++i) o << i + 1 << " " << labelset.rows()[i] << "\n";
    o << "\nextension LABELINC 2\n";
    for (std::size_t i = 0; i < labelinc.rows().size(); ++i) o << i + 1 << " " << labelinc.rows()[i] << "\n";
    o << "\n";
  }
  if (!shape_data.empty()) {
    o << "# Sequence Shapes\n[SHAPES]\n\n";
    for (std::size_t i = 0; i < shape_data.size(); ++i) {
      const auto& w = shape_data[i];
      const auto packed = compress_shape(w);
      const bool use_packed = w.size() > 4 && packed.size() < w.size();
      o << "shape_id " << i + 1 << "\nnum_samples " << w.size() << "\n";
      for (double v : use_packed ? packed : w) o << g9(v) << "\n";
      o << "\n";
    }
  }
  std::string body = o.str();
  while (!body.empty() && body.back() == '\n') body.pop_back();
  body += "\n";  // the hash covers the text up to the newline before [SIGNATURE]
  const std::string hash = md5_hex(body);
  return body + "\n[SIGNATURE]\n# md5 of the file up to the newline before [SIGNATURE]\nType md5\nHash " + hash + "\n";
}

void write_pulseq(const BlockSequence& s, const std::string& path, int minor) {
  const std::string text = pulseq_text(s, minor);
  AtomicOutput out(path);  // checks the path first (require_output_folder)
  out.write_bytes(text.data(), text.size());
  out.commit();
}

}  // namespace mrwb::seq
