// Pulseq .seq reader (1.2 to 1.5): tables by section, shapes decompressed, labels resolved, md5 verified.
// Older files (1.2, 1.3) are read as the Pulseq reference readers port them to 1.4 (MATLAB Sequence/read.m,
// the scanner interpreter ExternalSequence.cpp): delay events become block durations, RF and gradient rows
// gain the fields 1.4 added, and every shape is run-length compressed.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "mrwb/base/number_text.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/pulseq_limits.hpp"

namespace mrwb::seq {

namespace {

using namespace pulseq_limits;  // the bounds every value is held to, stated once


// `raw_when_full`: a shape with as many stored values as samples is stored uncompressed (Pulseq 1.4 and
// later). In the 1.2 / 1.3 format every shape is compressed, whatever its length (read.m re-decodes them).
std::vector<double> expand_shape(const std::vector<double>& packed, int num_samples, bool raw_when_full) {
  if (num_samples < 1 || num_samples > kMaxShapeSamples)
    throw InputError("shape: num_samples " + std::to_string(num_samples) + " is out of range (allowed: 1.." +
                     std::to_string(kMaxShapeSamples) + ")");
  std::vector<double> w;
  if (raw_when_full && static_cast<int>(packed.size()) == num_samples) {
    w = packed;  // stored uncompressed
    return w;
  }
  w.reserve(std::min<std::size_t>(static_cast<std::size_t>(num_samples), 4 * packed.size() + 16));
  std::size_t i = 0;
  while (i + 1 < packed.size()) {
    if (packed[i] != packed[i + 1]) {
      w.push_back(packed[i]);
      ++i;
    } else {
      if (i + 2 >= packed.size()) throw InputError("shape: run without a count");
      const double c = packed[i + 2];
      if (c < 0 || c != std::floor(c) || w.size() + c + 2 > static_cast<std::size_t>(num_samples))
        throw InputError("shape: bad run count " + std::to_string(c));
      w.insert(w.end(), static_cast<std::size_t>(c) + 2, packed[i]);
      i += 3;
    }
  }
  if (i + 1 == packed.size()) w.push_back(packed[i]);
  if (static_cast<int>(w.size()) != num_samples)
    throw InputError("shape: expands to " + std::to_string(w.size()) + " samples, num_samples says " +
                     std::to_string(num_samples));
  for (std::size_t k = 1; k < w.size(); ++k) w[k] += w[k - 1];  // the stored data are the derivative
  return w;
}

}  // namespace

std::vector<double> decompress_shape(const std::vector<double>& packed, int num_samples) {
  return expand_shape(packed, num_samples, true);
}

namespace {

struct Line {
  int number;
  std::vector<std::string> tok;
};

struct RfRow { double amp; int mag, phase, time; double center_us, delay_us, freq_ppm, phase_ppm, freq, ph; char use; int line; };
struct GradRow { double amp, first, last; int shape, time; double delay_us; int line; };
struct TrapRow { double amp, rise, flat, fall, delay; int line; };
struct AdcRow { int num; double dwell_ns, delay_us, freq_ppm, phase_ppm, freq, phase; int line; };
struct ExtRow { int type, ref, next; };

class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : text_(text), src_(source) {}

  BlockSequence run() {
    split();
    verify_signature();
    parse_sections();
    return assemble();
  }

 private:
  const std::string& text_;
  std::string src_;
  std::vector<std::pair<std::string, std::vector<Line>>> sections_;
  std::string sig_hash_;
  int sig_line_ = 0;
  std::size_t sig_pos_ = std::string::npos;

  int major_ = 0, minor_ = 0;
  int version_line_ = 1;                     // where the version is stated, for errors
  std::map<std::string, int> header_line_;   // section name -> line of its header
  std::map<std::string, std::vector<std::string>> defs_;
  std::map<std::string, int> def_line_;
  std::vector<std::pair<std::string, std::string>> extra_defs_;
  // dur: block raster units (1.4 and later); delay: id into [DELAYS] (before 1.4, whose blocks have no duration).
  struct BlockRow { int id; double dur; int ev[6]; int line; int delay = 0; };
  std::vector<BlockRow> blocks_;
  std::map<int, RfRow> rf_;
  std::map<int, GradRow> grad_;
  std::map<int, TrapRow> trap_;
  std::map<int, AdcRow> adc_;
  std::map<int, double> delays_;
  std::map<int, ExtRow> ext_;
  std::map<int, std::string> ext_names_;                       // type id -> name
  std::map<int, std::map<int, std::pair<int, std::string>>> ext_specs_;  // type id -> ref -> (value, label)
  std::map<int, ShapeSamples> shapes_;  // shared by the blocks that play them
  long long model_samples_ = 0;
  bool legacy_ = false;  // 1.2 or 1.3

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InputError(src_ + ":" + std::to_string(line) + ": " + what);
  }
  double num(const Line& l, std::size_t i) const {
    if (i >= l.tok.size()) fail(l.number, "missing value " + std::to_string(i + 1));
    const std::string& s = l.tok[i];
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) fail(l.number, "'" + s + "' is not a number");
    return v;
  }
  // A physical value within -max..max (0..max when `signed_` is false), its field and unit named.
  double bounded(const Line& l, std::size_t i, const std::string& field, double max, const char* unit,
                 bool signed_ = true) const {
    const double v = num(l, i);
    if (!(v >= (signed_ ? -max : 0) && v <= max))
      fail(l.number, field + " " + l.tok[i] + " " + unit + " is out of range (allowed: " + (signed_ ? number_text(-max) : "0") +
                         ".." + number_text(max) + " " + unit + ")");
    return v;
  }
  // The physical fields of the event tables (Pulseq 1.4 specification: RF amp Hz, freq Hz, phase rad;
  // gradient amp Hz/m; ADC freq Hz, phase rad).
  double rf_amp(const Line& l) const { return bounded(l, 1, "[RF] amplitude", kMaxRfAmplitude_Hz, "Hz"); }
  double rf_freq(const Line& l, std::size_t i) const { return bounded(l, i, "[RF] freq", kMaxFrequency_Hz, "Hz"); }
  double rf_phase(const Line& l, std::size_t i) const { return bounded(l, i, "[RF] phase", kMaxPhase_rad, "rad"); }
  double adc_freq(const Line& l, std::size_t i) const { return bounded(l, i, "[ADC] freq", kMaxFrequency_Hz, "Hz"); }
  double adc_phase(const Line& l, std::size_t i) const { return bounded(l, i, "[ADC] phase", kMaxPhase_rad, "rad"); }
  double grad_amp(const Line& l, std::size_t i, const char* what) const {
    return bounded(l, i, std::string("[GRADIENTS] ") + what, kMaxGradient_Hz_per_m, "Hz/m");
  }
  int integer(const Line& l, std::size_t i) const {
    const double v = num(l, i);
    if (v != std::floor(v) || std::abs(v) > 2e9) fail(l.number, "'" + l.tok[i] + "' is not an integer");
    return static_cast<int>(v);
  }
  void need(const Line& l, const std::string& sec, std::size_t n) const {
    if (l.tok.size() != n)
      fail(l.number, "[" + sec + "] expects " + std::to_string(n) + " values per line for version " +
                         std::to_string(major_) + "." + std::to_string(minor_) + ", found " +
                         std::to_string(l.tok.size()));
  }

  void split() {
    std::size_t pos = 0;
    int number = 0;
    std::string current;
    while (pos <= text_.size()) {
      std::size_t nl = text_.find('\n', pos);
      if (nl == std::string::npos) nl = text_.size();
      std::string s = text_.substr(pos, nl - pos);
      const std::size_t line_start = pos;
      pos = nl + 1;
      ++number;
      if (!s.empty() && s.back() == '\r') s.pop_back();
      const auto hash = s.find('#');
      if (hash != std::string::npos) s.resize(hash);
      std::istringstream in(s);
      Line l{number, {}};
      for (std::string t; in >> t;) l.tok.push_back(t);
      if (l.tok.empty()) continue;
      if (l.tok[0].front() == '[') {
        if (l.tok.size() != 1 || l.tok[0].back() != ']') fail(number, "malformed section header '" + s + "'");
        current = l.tok[0].substr(1, l.tok[0].size() - 2);
        for (const auto& sec : sections_)
          if (sec.first == current) fail(number, "section [" + current + "] appears twice");
        sections_.emplace_back(current, std::vector<Line>{});
        header_line_[current] = number;
        if (current == "SIGNATURE") {
          sig_pos_ = line_start;
          sig_line_ = number;
        }
        continue;
      }
      if (current.empty()) fail(number, "data before the first section");
      sections_.back().second.push_back(std::move(l));
    }
  }

  void verify_signature() {
    for (const auto& [name, lines] : sections_) {
      if (name != "SIGNATURE") continue;
      std::string type, hash;
      for (const auto& l : lines) {
        if (l.tok.size() != 2) fail(l.number, "[SIGNATURE] expects 'Type md5' and 'Hash HEX'");
        if (l.tok[0] == "Type") type = l.tok[1];
        else if (l.tok[0] == "Hash") hash = l.tok[1];
        else fail(l.number, "unknown [SIGNATURE] field '" + l.tok[0] + "' (allowed: Type, Hash)");
      }
      if (type != "md5") fail(sig_line_, "signature type '" + type + "' is not supported (allowed: md5)");
      std::transform(hash.begin(), hash.end(), hash.begin(), ::tolower);
      // The newline before [SIGNATURE] belongs to the signature.
      const std::size_t end = sig_pos_ > 0 ? sig_pos_ - 1 : 0;
      const std::string actual = md5_hex(text_.substr(0, end));
      if (actual != hash) fail(sig_line_, "md5 signature mismatch (file says " + hash + ", content is " + actual + ")");
    }
  }

  void parse_sections() {
    if (auto it = header_line_.find("VERSION"); it != header_line_.end()) version_line_ = it->second;
    for (const auto& [name, lines] : sections_)
      if (name == "VERSION")
        for (const auto& l : lines) {
          if (l.tok.size() != 2) fail(l.number, "[VERSION] expects 'major|minor|revision N'");
          if (l.tok[0] == "major") {
            major_ = integer(l, 1);
            version_line_ = l.number;
          } else if (l.tok[0] == "minor") {
            minor_ = integer(l, 1);
            version_line_ = l.number;
          } else if (l.tok[0] != "revision") {
            fail(l.number, "unknown [VERSION] field '" + l.tok[0] + "'");
          }
        }
    if (major_ != 1 || minor_ < 2 || minor_ > 5)
      fail(version_line_, "Pulseq version " + std::to_string(major_) + "." + std::to_string(minor_) +
                              " is not supported (allowed: 1.2, 1.3, 1.4, 1.5)");
    const bool v15 = minor_ >= 5;
    legacy_ = minor_ < 4;
    for (const auto& [name, lines] : sections_) {
      if (name == "VERSION" || name == "SIGNATURE") continue;
      if (name == "DEFINITIONS") {
        for (const auto& l : lines) {
          defs_[l.tok[0]] = std::vector<std::string>(l.tok.begin() + 1, l.tok.end());
          def_line_[l.tok[0]] = l.number;
          static const std::set<std::string> known = {"AdcRasterTime", "BlockDurationRaster", "GradientRasterTime",
                                                      "RadiofrequencyRasterTime", "FOV", "Name", "TotalDuration",
                                                      "B0", "RequiredExtensions"};
          if (!known.count(l.tok[0])) {
            std::string v;
            for (std::size_t i = 1; i < l.tok.size(); ++i) v += (i > 1 ? " " : "") + l.tok[i];
            extra_defs_.emplace_back(l.tok[0], v);
          }
        }
      } else if (name == "BLOCKS") {
        // 1.2: id delay rf gx gy gz adc; 1.3 adds ext; 1.4 puts the duration where the delay id was.
        const std::size_t cols = minor_ == 2 ? 7 : 8;
        for (const auto& l : lines) {
          need(l, name, cols);
          BlockRow b{integer(l, 0), legacy_ ? 0.0 : num(l, 1), {}, l.number};
          for (std::size_t k = 0; k + 2 < cols; ++k) b.ev[k] = integer(l, 2 + k);
          if (legacy_) {
            b.delay = integer(l, 1);
            if (b.delay < 0)
              fail(l.number, "negative delay id " + std::to_string(b.delay) + " (allowed: 0 or an id in [DELAYS])");
          }
          if (b.dur < 0) fail(l.number, "negative block duration " + l.tok[1] + " (allowed: >= 0 block rasters)");
          blocks_.push_back(b);
        }
      } else if (name == "RF") {
        for (const auto& l : lines) {
          RfRow r{};
          r.line = l.number;
          if (v15) {
            need(l, name, 12);
            r = {rf_amp(l), integer(l, 2), integer(l, 3), integer(l, 4),
                 bounded(l, 5, "[RF] center", kMaxDuration_s * 1e6, "us", false), num(l, 6),
                 bounded(l, 7, "[RF] freq_ppm", kMaxPpm, "ppm"), bounded(l, 8, "[RF] phase_ppm", kMaxPpm, "ppm"),
                 rf_freq(l, 9), rf_phase(l, 10), l.tok[11][0], l.number};
          } else if (legacy_) {  // 1.2 / 1.3: id amp mag phase delay freq phase (no time shape)
            need(l, name, 7);
            r = {rf_amp(l), integer(l, 2), integer(l, 3), 0, -1, num(l, 4), 0, 0, rf_freq(l, 5), rf_phase(l, 6), 'u',
                 l.number};
          } else {
            need(l, name, 8);
            r = {rf_amp(l), integer(l, 2), integer(l, 3), integer(l, 4), -1, num(l, 5), 0, 0, rf_freq(l, 6),
                 rf_phase(l, 7), 'u', l.number};
          }
          rf_[integer(l, 0)] = r;
        }
      } else if (name == "GRADIENTS") {
        for (const auto& l : lines) {
          if (v15) {
            need(l, name, 7);
            grad_[integer(l, 0)] = {grad_amp(l, 1, "amplitude"), grad_amp(l, 2, "first"), grad_amp(l, 3, "last"),
                                    integer(l, 4), integer(l, 5), num(l, 6), l.number};
          } else if (legacy_) {  // 1.2 / 1.3: id amp shape delay (no time shape)
            need(l, name, 4);
            grad_[integer(l, 0)] = {grad_amp(l, 1, "amplitude"), NAN, NAN, integer(l, 2), 0, num(l, 3), l.number};
          } else {
            need(l, name, 5);
            grad_[integer(l, 0)] = {grad_amp(l, 1, "amplitude"), NAN, NAN, integer(l, 2), integer(l, 3), num(l, 4),
                                    l.number};
          }
        }
      } else if (name == "TRAP") {
        for (const auto& l : lines) {
          need(l, name, 6);
          trap_[integer(l, 0)] = {bounded(l, 1, "[TRAP] amplitude", kMaxGradient_Hz_per_m, "Hz/m"), num(l, 2), num(l, 3),
                                  num(l, 4), num(l, 5), l.number};
          static const char* what[] = {"", "", "rise", "flat", "fall", "delay"};
          double total = 0;
          for (int k = 2; k <= 5; ++k) {
            if (num(l, k) < 0 || num(l, k) > kMaxDuration_s * 1e6)
              fail(l.number, std::string("[TRAP] ") + what[k] + " time " + l.tok[k] + " us is out of range (allowed: 0.." +
                                 number_text(kMaxDuration_s * 1e6) + " us)");
            total += num(l, k);
          }
          if (total > kMaxDuration_s * 1e6)
            fail(l.number, "[TRAP] duration " + number_text(total) + " us is out of range (allowed: <= " +
                               number_text(kMaxDuration_s * 1e6) + " us)");
        }
      } else if (name == "ADC") {
        for (const auto& l : lines) {
          AdcRow a{};
          if (v15) {
            need(l, name, 9);
            a = {integer(l, 1), num(l, 2), num(l, 3), bounded(l, 4, "[ADC] freq_ppm", kMaxPpm, "ppm"),
                 bounded(l, 5, "[ADC] phase_ppm", kMaxPpm, "ppm"), adc_freq(l, 6), adc_phase(l, 7), l.number};
          } else {
            need(l, name, 6);
            a = {integer(l, 1), num(l, 2), num(l, 3), 0, 0, adc_freq(l, 4), adc_phase(l, 5), l.number};
          }
          if (a.num <= 0 || a.num > kMaxAdcSamples)
            fail(l.number, "[ADC] num " + l.tok[1] + " is out of range (allowed: 1.." + std::to_string(kMaxAdcSamples) + ")");
          if (!(a.dwell_ns > 0) || a.dwell_ns * a.num > kMaxDuration_s * 1e9)
            fail(l.number, "[ADC] dwell " + l.tok[2] + " ns is out of range (allowed: > 0, num x dwell <= " +
                               number_text(kMaxDuration_s * 1e9) + " ns)");
          if (a.delay_us < 0 || a.delay_us > kMaxDuration_s * 1e6)
            fail(l.number, "[ADC] delay " + l.tok[3] + " us is out of range (allowed: 0.." + number_text(kMaxDuration_s * 1e6) +
                               " us)");
          adc_[integer(l, 0)] = a;
        }
      } else if (name == "DELAYS") {
        for (const auto& l : lines) {
          need(l, name, 2);
          if (num(l, 1) < 0 || num(l, 1) > kMaxDuration_s * 1e6)
            fail(l.number, std::string(num(l, 1) < 0 ? "negative delay " : "[DELAYS] delay ") + l.tok[1] +
                               " us is out of range (allowed: 0.." + number_text(kMaxDuration_s * 1e6) + " us)");
          delays_[integer(l, 0)] = num(l, 1);
        }
      } else if (name == "EXTENSIONS") {
        int current_type = -1;
        for (const auto& l : lines) {
          if (l.tok[0] == "extension") {
            if (l.tok.size() != 3) fail(l.number, "expected 'extension NAME ID'");
            current_type = integer(l, 2);
            ext_names_[current_type] = l.tok[1];
          } else if (current_type < 0) {
            need(l, name, 4);
            ext_[integer(l, 0)] = {integer(l, 1), integer(l, 2), integer(l, 3)};
          } else {
            const std::string& en = ext_names_[current_type];
            if (en == "LABELSET" || en == "LABELINC") {
              if (l.tok.size() != 3) fail(l.number, en + " expects 'id value LABEL'");
              const int v = integer(l, 1);
              // LABELSET sets a counter, which cannot be negative; LABELINC may step down (the running
              // counter is checked block by block in assemble()).
              if (en == "LABELSET" ? (v < 0 || v > kMaxLabel) : std::abs(v) > kMaxLabel)
                fail(l.number, "[EXTENSIONS] " + en + " value " + l.tok[1] + " is out of range (allowed: " +
                                   (en == "LABELSET" ? "0.." : "-" + std::to_string(kMaxLabel) + "..") +
                                   std::to_string(kMaxLabel) + ")");
              ext_specs_[current_type][integer(l, 0)] = {v, l.tok[2]};
            }
          }
        }
      } else if (name == "SHAPES") {
        int id = -1, n = -1, start_line = 0;
        std::vector<double> data;
        auto flush = [&] {
          if (id < 0) return;
          try {
            shapes_[id] = expand_shape(data, n, !legacy_);
          } catch (const InputError& e) {
            fail(start_line, std::string(e.what()) + " in [SHAPES] shape_id " + std::to_string(id));
          }
        };
        for (const auto& l : lines) {
          if (l.tok[0] == "shape_id") {
            flush();
            id = integer(l, 1);
            n = -1;
            start_line = l.number;
            data.clear();
          } else if (l.tok[0] == "num_samples") {
            n = integer(l, 1);
          } else {
            if (id < 0 || n < 0) fail(l.number, "shape data before shape_id / num_samples");
            need(l, name, 1);
            data.push_back(num(l, 0));
          }
        }
        flush();
      } else {
        throw InputError(src_ + ":" + std::to_string(lines.empty() ? 0 : lines.front().number) +
                         ": unknown section [" + name + "]");
      }
    }
  }

  // A positive number within [lo, hi] of `unit` (rasters in s, B0 in T).
  double def_number(const std::string& key, double fallback, double lo, double hi, const char* unit) const {
    auto it = defs_.find(key);
    if (it == defs_.end()) return fallback;
    const int line = def_line_.at(key);
    const std::string allowed = (lo > 0 ? number_text(lo) + ".." : std::string("> 0, <= ")) + number_text(hi) + " " + unit;
    if (it->second.size() != 1) fail(line, "[DEFINITIONS] " + key + " expects one value (allowed: " + allowed + ")");
    char* end = nullptr;
    const double v = std::strtod(it->second[0].c_str(), &end);
    if (end == it->second[0].c_str() || *end != '\0' || !std::isfinite(v) || !(v > 0) || v < lo || v > hi)
      fail(line, "[DEFINITIONS] " + key + " '" + it->second[0] + "' is out of range (allowed: " + allowed + ")");
    return v;
  }
  // FOV: up to three lengths in m (atof made "abc" 0 and took "-1" as -1 m).
  void read_fov(const std::vector<std::string>& v, int line, double (&fov_m)[3]) const {
    if (v.empty() || v.size() > 3)
      fail(line, "[DEFINITIONS] FOV expects 3 values (allowed: 0.." + number_text(kMaxFov_m) + " m each)");
    for (std::size_t i = 0; i < v.size(); ++i) {
      char* end = nullptr;
      const double x = std::strtod(v[i].c_str(), &end);
      if (end == v[i].c_str() || *end != '\0' || !(x >= 0 && x <= kMaxFov_m))
        fail(line, "[DEFINITIONS] FOV value " + std::to_string(i + 1) + " '" + v[i].substr(0, 40) +
                       "' is out of range (allowed: 0.." + number_text(kMaxFov_m) + " m)");
      fov_m[i] = x;
    }
  }
  double def_raster(const std::string& key, double fallback) const {
    return def_number(key, fallback, kMinRaster_s, kMaxRaster_s, "s");
  }

  const ShapeSamples& shape(int id, int line) {
    auto it = shapes_.find(id);
    if (it == shapes_.end()) fail(line, "shape " + std::to_string(id) + " is not defined in [SHAPES]");
    model_samples_ += static_cast<long long>(it->second.size());
    if (model_samples_ > kMaxModelSamples)
      fail(line, "the blocks play more than " + std::to_string(kMaxModelSamples) + " shape samples in all (allowed: <= " +
                     std::to_string(kMaxModelSamples) + ")");
    return it->second;
  }
  // A time shape (Pulseq 1.4: sample times in raster units) must start at or after 0, never go back, and
  // end within the longest event accepted.
  void check_time_shape(const std::vector<double>& t, double raster_s, int line, const std::string& what) const {
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] < 0 || (i > 0 && t[i] < t[i - 1]) || t[i] * raster_s > kMaxDuration_s)
        fail(line, what + " time shape sample " + std::to_string(i + 1) + " = " + number_text(t[i]) +
                       " is out of range (allowed: non-decreasing, 0.." + number_text(kMaxDuration_s / raster_s) + " rasters)");
  }
  void check_delay(double us, int line, const std::string& what) const {
    if (us < 0 || us > kMaxDuration_s * 1e6)
      fail(line, what + " delay " + number_text(us) + " us is out of range (allowed: 0.." + number_text(kMaxDuration_s * 1e6) + " us)");
  }

  // A 1.2 / 1.3 block lasts as long as its longest event or its delay event (read.m, ExternalSequence.cpp),
  // rounded up to the block raster as the scanner interpreter does, which then plays it.
  double legacy_duration(const Block& b, const BlockRow& br, BlockSequence& s) const {
    const SystemLimits& sys = s.sys;
    double d = 0;
    if (br.delay) {
      auto it = delays_.find(br.delay);
      if (it == delays_.end())
        fail(br.line,
             "delay " + std::to_string(br.delay) + " is not defined in [DELAYS] (allowed: 0 or an id in [DELAYS])");
      d = it->second * 1e-6;
    }
    if (b.rf) d = std::max(d, b.rf->delay_s + b.rf->duration_s(sys.rf_raster_s));
    for (const auto* g : {&b.gx, &b.gy, &b.gz})
      if (*g) d = std::max(d, (*g)->duration_s(sys.grad_raster_s));
    if (b.adc) d = std::max(d, b.adc->duration_s());
    const double steps = std::ceil(d / sys.block_raster_s - 1e-6);
    if (std::abs(steps * sys.block_raster_s - d) > 1e-9)
      s.warnings.push_back("block " + std::to_string(br.id) + ": duration " + std::to_string(d * 1e6) +
                           " us rounded up to the block raster");
    return steps * sys.block_raster_s;
  }

  BlockSequence assemble() {
    BlockSequence s;
    SystemLimits& sys = s.sys;
    sys.adc_raster_s = def_raster("AdcRasterTime", 100e-9);
    sys.block_raster_s = def_raster("BlockDurationRaster", 10e-6);
    sys.grad_raster_s = def_raster("GradientRasterTime", 10e-6);
    sys.rf_raster_s = def_raster("RadiofrequencyRasterTime", 1e-6);
    sys.B0_T = def_number("B0", 1.5, 0, kMaxB0_T, "T");
    if (auto it = defs_.find("Name"); it != defs_.end() && !it->second.empty()) s.name = it->second[0];
    if (auto it = defs_.find("FOV"); it != defs_.end()) read_fov(it->second, def_line_.at("FOV"), s.fov_m);
    s.extra_definitions = extra_defs_;
    std::set<std::string> required;
    if (auto it = defs_.find("RequiredExtensions"); it != defs_.end()) required.insert(it->second.begin(), it->second.end());
    for (const auto& [type, en] : ext_names_) {
      if (en == "LABELSET" || en == "LABELINC") continue;
      if (required.count(en))
        throw InputError(src_ + ": required extension '" + en + "' is not supported (supported: LABELSET, LABELINC)");
      s.warnings.push_back("optional extension '" + en + "' ignored");
    }
    const double ppm_Hz = sys.B0_T * gamma_Hz_per_T * 1e-6;

    double last_grad[3] = {0, 0, 0};  // 1.4 arbitrary gradients start where the previous block ended
    std::map<std::string, int> counters;  // label counters, as played
    // What the ADCs lay out when played (sequence_to_program, simulate_block_sequence): k-space line
    // LIN (else the ADC's index), raw-data segment SET, samples per ADC.
    int adc_index = 0, max_line = -1, max_set = -1, max_samples = 0;
    long long adc_samples = 0;
    double total_s = 0;
    for (const BlockRow& br : blocks_) {
      Block b;
      b.duration_s = br.dur * sys.block_raster_s;
      double end_values[3] = {0, 0, 0};
      if (br.ev[0]) {
        auto it = rf_.find(br.ev[0]);
        if (it == rf_.end()) fail(br.line, "RF " + std::to_string(br.ev[0]) + " is not defined in [RF]");
        const RfRow& r = it->second;
        RfPulse rf;
        rf.amplitude_Hz = r.amp;
        rf.mag = shape(r.mag, r.line);
        rf.phase = shape(r.phase, r.line);
        if (rf.phase.size() != rf.mag.size()) fail(r.line, "RF magnitude and phase shapes differ in length");
        if (r.time > 0) {
          rf.time = shape(r.time, r.line);
          if (rf.time.size() != rf.mag.size()) fail(r.line, "RF time shape differs in length");
          check_time_shape(rf.time, sys.rf_raster_s, r.line, "RF");
        } else if (r.time < 0) {
          fail(r.line, "RF time shape id " + std::to_string(r.time) + " is not supported (allowed: 0 or a shape)");
        }
        check_delay(r.delay_us, r.line, "RF");
        if (rf.duration_s(sys.rf_raster_s) > kMaxDuration_s)
          fail(r.line, "RF lasts " + number_text(rf.duration_s(sys.rf_raster_s)) + " s (allowed: <= " + number_text(kMaxDuration_s) + " s)");
        rf.delay_s = r.delay_us * 1e-6;
        rf.freq_Hz = r.freq + r.freq_ppm * ppm_Hz;
        rf.phase_rad = r.ph;
        rf.freq_ppm = r.freq_ppm;
        rf.phase_ppm = r.phase_ppm;
        rf.use = r.use;
        if (r.center_us >= 0) {
          rf.center_s = r.center_us * 1e-6;
        } else {  // 1.4: the peak of the magnitude (middle of the plateau)
          const double mx = *std::max_element(rf.mag.begin(), rf.mag.end());
          std::size_t first = rf.mag.size(), last = 0;
          for (std::size_t i = 0; i < rf.mag.size(); ++i)
            if (rf.mag[i] >= mx * (1 - 1e-5)) {
              first = std::min(first, i);
              last = i;
            }
          auto t = [&](std::size_t i) { return rf.time.empty() ? (i + 0.5) * sys.rf_raster_s : rf.time[i] * sys.rf_raster_s; };
          rf.center_s = 0.5 * (t(first) + t(last));
        }
        b.rf = rf;
      }
      std::optional<Gradient>* g3[3] = {&b.gx, &b.gy, &b.gz};
      for (int a = 0; a < 3; ++a) {
        const int id = br.ev[1 + a];
        double end_value = 0;
        if (id) {
          Gradient g;
          if (auto t = trap_.find(id); t != trap_.end()) {
            g.type = Gradient::Type::Trap;
            g.amplitude_Hz_per_m = t->second.amp;
            g.rise_s = t->second.rise * 1e-6;
            g.flat_s = t->second.flat * 1e-6;
            g.fall_s = t->second.fall * 1e-6;
            g.delay_s = t->second.delay * 1e-6;
          } else if (auto gr = grad_.find(id); gr != grad_.end()) {
            const GradRow& r = gr->second;
            g.type = Gradient::Type::Arbitrary;
            g.amplitude_Hz_per_m = r.amp;
            g.waveform = shape(r.shape, r.line);
            if (r.time > 0) {
              g.time = shape(r.time, r.line);
              if (g.time.size() != g.waveform.size()) fail(r.line, "gradient time shape differs in length");
              check_time_shape(g.time, sys.grad_raster_s, r.line, "gradient");
            } else if (r.time < 0) {
              fail(r.line, "gradient time shape id " + std::to_string(r.time) + " is not supported");
            }
            check_delay(r.delay_us, r.line, "gradient");
            if (g.time.empty() && static_cast<double>(g.waveform.size()) * sys.grad_raster_s > kMaxDuration_s)
              fail(r.line, "gradient lasts " + number_text(g.waveform.size() * sys.grad_raster_s) + " s (allowed: <= " +
                               number_text(kMaxDuration_s) + " s)");
            g.delay_s = r.delay_us * 1e-6;
            const auto& w = g.waveform;
            if (std::isnan(r.first)) {  // 1.4: continuity with the previous block; linear extrapolation at the end
              g.first_Hz_per_m = g.delay_s > 0 ? 0 : last_grad[a];
              g.last_Hz_per_m = w.size() >= 2 ? r.amp * (1.5 * w.back() - 0.5 * w[w.size() - 2]) : r.amp * w.back();
            } else {
              g.first_Hz_per_m = r.first;
              g.last_Hz_per_m = r.last;
            }
            end_value = g.time.empty() ? g.last_Hz_per_m : r.amp * w.back();
          } else {
            fail(br.line, "gradient " + std::to_string(id) + " is not defined in [GRADIENTS] or [TRAP]");
          }
          *g3[a] = g;
        }
        end_values[a] = end_value;
      }
      if (br.ev[4]) {
        auto it = adc_.find(br.ev[4]);
        if (it == adc_.end()) fail(br.line, "ADC " + std::to_string(br.ev[4]) + " is not defined in [ADC]");
        const AdcRow& r = it->second;
        Adc adc;
        adc.num_samples = r.num;
        adc.dwell_s = r.dwell_ns * 1e-9;
        adc.delay_s = r.delay_us * 1e-6;
        adc.freq_Hz = r.freq + r.freq_ppm * ppm_Hz;
        adc.phase_rad = r.phase;
        adc.freq_ppm = r.freq_ppm;
        adc.phase_ppm = r.phase_ppm;
        if (adc.duration_s() > kMaxDuration_s)
          fail(r.line, "ADC lasts " + number_text(adc.duration_s()) + " s (allowed: <= " + number_text(kMaxDuration_s) + " s)");
        b.adc = adc;
      }
      int ext = br.ev[5];
      std::set<int> seen;
      while (ext) {
        if (!seen.insert(ext).second) fail(br.line, "extension list " + std::to_string(br.ev[5]) + " loops");
        auto it = ext_.find(ext);
        if (it == ext_.end()) fail(br.line, "extension " + std::to_string(ext) + " is not defined in [EXTENSIONS]");
        auto nm = ext_names_.find(it->second.type);
        if (nm == ext_names_.end())
          fail(br.line, "extension type " + std::to_string(it->second.type) + " has no 'extension NAME ID' line");
        if (nm->second == "LABELSET" || nm->second == "LABELINC") {
          auto sp = ext_specs_[it->second.type].find(it->second.ref);
          if (sp == ext_specs_[it->second.type].end())
            fail(br.line, nm->second + " " + std::to_string(it->second.ref) + " is not defined");
          const bool inc = nm->second == "LABELINC";
          b.labels.push_back({inc, sp->second.second, sp->second.first});
          // The counters as played (sequence_to_program): LIN indexes k-space lines, so every counter must
          // stay within 0..kMaxLabel whatever the steps do.
          int& c = counters[sp->second.second];
          const long long v = inc ? static_cast<long long>(c) + sp->second.first : sp->second.first;
          if (v < 0 || v > kMaxLabel)
            fail(br.line, "label " + sp->second.second + " becomes " + std::to_string(v) + " in block " +
                              std::to_string(br.id) + " (allowed: 0.." + std::to_string(kMaxLabel) + ")");
          c = static_cast<int>(v);
        }
        ext = it->second.next;
      }
      if (b.adc) {
        const auto lin = counters.find("LIN");
        const int line = lin != counters.end() ? lin->second : adc_index;
        if (line >= kMaxLines)
          fail(br.line, (lin != counters.end() ? "label LIN is " + std::to_string(line) + " at the ADC of block "
                                               : "ADC " + std::to_string(adc_index + 1) + " without a LIN label, in block ") +
                            std::to_string(br.id) + ": " + std::to_string(line + 1) +
                            " k-space lines (allowed: LIN 0.." + std::to_string(kMaxLines - 1) + ", at most " +
                            std::to_string(kMaxLines) + " lines)");
        const auto set = counters.find("SET");
        const int segment = set != counters.end() ? set->second : 0;
        if (segment >= kMaxSetSegments)
          fail(br.line, "label SET is " + std::to_string(segment) + " at the ADC of block " + std::to_string(br.id) +
                            ": " + std::to_string(segment + 1) +
                            " SET segments, each written as a raw-data file of its own (allowed: SET 0.." +
                            std::to_string(kMaxSetSegments - 1) + ", at most " + std::to_string(kMaxSetSegments) +
                            " segments)");
        ++adc_index;
        max_line = std::max(max_line, line);
        max_set = std::max(max_set, segment);
        max_samples = std::max(max_samples, b.adc->num_samples);
        adc_samples += b.adc->num_samples;
        if (adc_samples > kMaxSequenceAdcSamples)
          fail(br.line, "the ADCs play " + std::to_string(adc_samples) + " samples by block " + std::to_string(br.id) +
                            " (allowed: <= " + std::to_string(kMaxSequenceAdcSamples) + " in the whole sequence)");
        const long long laid_out = (max_set + 1LL) * (max_line + 1LL) * max_samples;
        if (laid_out > kMaxLaidOutSamples)
          fail(br.line, "the ADCs lay out " + std::to_string(max_set + 1) + " SET segments x " +
                            std::to_string(max_line + 1) + " lines x " + std::to_string(max_samples) + " samples = " +
                            std::to_string(laid_out) + " k-space samples by block " + std::to_string(br.id) +
                            " (allowed: <= " + std::to_string(kMaxLaidOutSamples) + " per coil)");
      }
      if (legacy_) {
        b.duration_s = legacy_duration(b, br, s);
      } else {
        // Pulseq 1.4: a block lasts at least as long as its longest event (the duration column is the
        // block's length; events never reach into the next block).
        double events = 0;
        if (b.rf) events = std::max(events, b.rf->delay_s + b.rf->duration_s(sys.rf_raster_s));
        for (const auto* g : {&b.gx, &b.gy, &b.gz})
          if (*g) events = std::max(events, (*g)->duration_s(sys.grad_raster_s));
        if (b.adc) events = std::max(events, b.adc->duration_s());
        if (b.duration_s > kMaxDuration_s)
          fail(br.line, "block " + std::to_string(br.id) + " duration " + number_text(b.duration_s) +
                            " s is out of range (allowed: <= " + number_text(kMaxDuration_s) + " s)");
        if (b.duration_s < events * (1 - 1e-6) - 1e-9)
          fail(br.line, "block " + std::to_string(br.id) + " duration " + number_text(b.duration_s * 1e6) +
                            " us is shorter than its events (" + number_text(events * 1e6) + " us; allowed: >= the longest event)");
      }
      total_s += b.duration_s;
      if (total_s > kMaxDuration_s)
        fail(br.line, "the sequence lasts more than " + number_text(kMaxDuration_s) + " s by block " + std::to_string(br.id) +
                          " (allowed: total duration <= " + number_text(kMaxDuration_s) + " s)");
      // As read.m: a gradient that stops before the block ends hands on zero, not its last value.
      const std::optional<Gradient>* ends[3] = {&b.gx, &b.gy, &b.gz};
      for (int a = 0; a < 3; ++a) {
        const bool to_the_end = *ends[a] && (*ends[a])->duration_s(sys.grad_raster_s) + 1e-12 >= b.duration_s;
        last_grad[a] = to_the_end ? end_values[a] : 0;
      }
      s.blocks.push_back(std::move(b));
    }
    return s;
  }
};

}  // namespace

BlockSequence parse_pulseq(const std::string& text, const std::string& source) {
  return Parser(text, source).run();
}

BlockSequence read_pulseq(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_pulseq(ss.str(), path);
}

}  // namespace mrwb::seq
