// Pulseq .seq reader (1.2 to 1.5): tables by section, shapes decompressed, labels resolved, md5 verified.
// Older files (1.2, 1.3) are read as the Pulseq reference readers port them to 1.4 (MATLAB Sequence/read.m,
// the scanner interpreter ExternalSequence.cpp): delay events become block durations, RF and gradient rows
// gain the fields 1.4 added, and every shape is run-length compressed.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string_view>

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
        throw InputError("shape: bad run count " + number_text(c) + " (allowed: a whole number, the run within num_samples)");
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

// A value of the file as a refusal shows it: at most 40 characters (a line of megabytes is not echoed), control
// characters as '?', cut at a UTF-8 character boundary.
std::string shown(std::string_view v) {
  constexpr std::size_t kShown = 40;
  std::size_t n = std::min(v.size(), kShown);
  while (n < v.size() && n > 0 && (static_cast<unsigned char>(v[n]) & 0xC0) == 0x80) --n;
  std::string out(v.substr(0, n));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  if (n < v.size()) out += "... (" + std::to_string(v.size()) + " characters)";
  return out;
}

// A decimal number as the Pulseq writers print it (%g): sign, digits, point, exponent. Not hexadecimal
// ("0x10" was read as 16 by strtod), not inf or nan, not beyond double.
bool decimal_number(std::string_view s, double& v) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(v);
}
// A decimal integer: an optional '-' and digits only (no point, exponent or hexadecimal).
bool decimal_integer(std::string_view s, long long& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// One line of the file: its number and its text without comment; tokenized when its section is read.
struct RawLine {
  int number;
  std::string_view text;
};
struct Line {
  int number = 0;
  std::string_view section, table;          // "RF"; an extension's table ("LABELSET") or empty
  const std::vector<const char*>* names = nullptr;  // the columns' field names, where the section has them
  std::vector<std::string_view> tok;
};

struct RfRow { double amp; int mag, phase, time; double center_us, delay_us, freq_ppm, phase_ppm, freq, ph; char use; int line; };
struct GradRow { double amp, first, last; int shape, time; double delay_us; int line; };
struct TrapRow { double amp, rise, flat, fall, delay; int line; };
struct AdcRow { int num; double dwell_ns, delay_us, freq_ppm, phase_ppm, freq, phase; int line; };
struct ExtRow { int type, ref, next; };

bool one_of(std::string_view v, const auto& list) {
  return std::any_of(std::begin(list), std::end(list), [&](const char* x) { return v == x; });
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : text_(text), src_(source) {}

  BlockSequence run() {
    split();
    verify_signature();
    parse_sections();
    check_events();
    return assemble();
  }

 private:
  const std::string& text_;
  std::string src_;
  std::vector<std::pair<std::string, std::vector<RawLine>>> sections_;
  Line cur_;  // the line being read (its token list reused from line to line)
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
  std::map<int, int> shape_line_;       // shape id -> line of its shape_id
  struct Peak { double value; std::size_t index; };
  std::map<int, Peak> peaks_;           // shape id -> largest |sample|, found once
  std::set<std::pair<int, bool>> time_checked_;  // (time shape id, on the RF raster) already checked
  long long model_samples_ = 0, library_samples_ = 0;
  bool legacy_ = false;  // 1.2 or 1.3
  SystemLimits sys_;     // rasters and B0 of [DEFINITIONS]

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InputError(src_ + ":" + std::to_string(line) + ": " + what);
  }

  // ---- the lines, their tokens and their fields -------------------------------------------------------

  const std::vector<const char*>* column_names(std::string_view sec) const {
    static const std::vector<const char*> blocks14 = {"id", "duration", "rf", "gx", "gy", "gz", "adc", "ext"},
        blocks_legacy = {"id", "delay_id", "rf", "gx", "gy", "gz", "adc", "ext"},
        rf15 = {"id", "amplitude", "mag_id", "phase_id", "time_id", "center", "delay", "freq_ppm", "phase_ppm", "freq", "phase", "use"},
        rf14 = {"id", "amplitude", "mag_id", "phase_id", "time_id", "delay", "freq", "phase"},
        rf_legacy = {"id", "amplitude", "mag_id", "phase_id", "delay", "freq", "phase"},
        grad15 = {"id", "amplitude", "first", "last", "shape_id", "time_id", "delay"},
        grad14 = {"id", "amplitude", "shape_id", "time_id", "delay"}, grad_legacy = {"id", "amplitude", "shape_id", "delay"},
        trap = {"id", "amplitude", "rise", "flat", "fall", "delay"},
        adc15 = {"id", "num", "dwell", "delay", "freq_ppm", "phase_ppm", "freq", "phase", "phase_id"},
        adc14 = {"id", "num", "dwell", "delay", "freq", "phase"}, delays = {"id", "delay"},
        ext = {"id", "type", "ref", "next"};
    const bool v15 = minor_ >= 5;
    if (sec == "BLOCKS") return legacy_ ? &blocks_legacy : &blocks14;
    if (sec == "RF") return v15 ? &rf15 : legacy_ ? &rf_legacy : &rf14;
    if (sec == "GRADIENTS") return v15 ? &grad15 : legacy_ ? &grad_legacy : &grad14;
    if (sec == "TRAP") return &trap;
    if (sec == "ADC") return v15 ? &adc15 : &adc14;
    if (sec == "DELAYS") return &delays;
    if (sec == "EXTENSIONS") return &ext;
    return nullptr;
  }
  // The line's tokens, split at white space (the list reused, so a file of millions of lines allocates none).
  Line& tokenize(const RawLine& r, std::string_view section) {
    cur_.number = r.number;
    cur_.section = section;
    cur_.table = {};
    cur_.names = column_names(section);
    cur_.tok.clear();
    const std::string_view t = r.text;
    for (std::size_t i = 0; i < t.size();) {
      while (i < t.size() && is_space(t[i])) ++i;
      std::size_t j = i;
      while (j < t.size() && !is_space(t[j])) ++j;
      if (j > i) cur_.tok.push_back(t.substr(i, j - i));
      i = j;
    }
    return cur_;
  }
  // "[RF] amplitude", "[EXTENSIONS] LABELSET value", "[SHAPES] value 1".
  std::string field(const Line& l, std::size_t i) const {
    std::string f = "[" + std::string(l.section) + "]" + (l.table.empty() ? "" : " " + std::string(l.table)) + " ";
    if (l.names && i < l.names->size()) return f + (*l.names)[i];
    return f + "value " + std::to_string(i + 1);
  }
  std::string_view token(const Line& l, std::size_t i) const {
    if (i >= l.tok.size()) fail(l.number, field(l, i) + ": missing value " + std::to_string(i + 1));
    return l.tok[i];
  }
  double num(const Line& l, std::size_t i) const {
    double v = 0;
    if (!decimal_number(token(l, i), v))
      fail(l.number, field(l, i) + " '" + shown(l.tok[i]) + "' is not a number (allowed: a decimal number)");
    return v;
  }
  // A decimal integer within lo..hi (`allowed` says so in the refusal).
  long long whole(const Line& l, std::size_t i, long long lo, long long hi, const std::string& allowed) const {
    long long v = 0;
    if (!decimal_integer(token(l, i), v))
      fail(l.number, field(l, i) + " '" + shown(l.tok[i]) + "' is not a decimal integer (allowed: " + allowed + ")");
    if (v < lo || v > hi) fail(l.number, field(l, i) + " " + shown(l.tok[i]) + " is out of range (allowed: " + allowed + ")");
    return v;
  }
  int integer(const Line& l, std::size_t i) const {
    return static_cast<int>(whole(l, i, -2000000000, 2000000000, "a decimal integer -2000000000..2000000000"));
  }
  // An id (of a block, an event, a shape, an extension) or a reference to one: digits only.
  int id(const Line& l, std::size_t i) const {
    long long v = 0;
    if (!decimal_integer(token(l, i), v) || l.tok[i][0] == '-' || v > kMaxId)
      fail(l.number, field(l, i) + " '" + shown(l.tok[i]) + "' is not an id (allowed: a decimal integer 0.." +
                         std::to_string(kMaxId) + ")");
    return static_cast<int>(v);
  }
  // A physical value within -max..max (0..max when `signed_` is false), its field and unit named.
  double bounded(const Line& l, std::size_t i, const std::string& name, double max, const char* unit,
                 bool signed_ = true) const {
    const double v = num(l, i);
    if (!(v >= (signed_ ? -max : 0) && v <= max))
      fail(l.number, name + " " + shown(l.tok[i]) + " " + unit + " is out of range (allowed: " + (signed_ ? number_text(-max) : "0") +
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
  void need(const Line& l, const std::string& sec, std::size_t n) const {
    if (l.tok.size() != n)
      fail(l.number, "[" + sec + "] expects " + std::to_string(n) + " values per line for version " +
                         std::to_string(major_) + "." + std::to_string(minor_) + ", found " +
                         std::to_string(l.tok.size()));
  }
  // Every id once: a second row of an id silently replaced the first.
  template <class Map, class Value>
  void define(Map& m, int key, Value&& v, const Line& l, const std::string& what) {
    if (!m.emplace(key, std::forward<Value>(v)).second)
      fail(l.number, what + " " + std::to_string(key) + " is defined twice (allowed: each id once)");
  }

  // ---- the file's lines and sections -------------------------------------------------------------------

  void split() {
    std::size_t pos = 0;
    int number = 0;
    std::vector<RawLine>* lines = nullptr;
    bool blocks = false;
    std::size_t block_rows = 0;
    const std::string_view text(text_);
    while (pos <= text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view s = text.substr(pos, nl - pos);
      const std::size_t line_start = pos;
      pos = nl + 1;
      ++number;
      if (const auto hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
      while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
      while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
      if (s.empty()) continue;
      if (s.front() == '[') {
        const bool one_token = std::none_of(s.begin(), s.end(), is_space);
        if (!one_token || s.back() != ']') fail(number, "malformed section header '" + shown(s) + "'");
        const std::string current(s.substr(1, s.size() - 2));
        for (const auto& sec : sections_)
          if (sec.first == current) fail(number, "section [" + shown(current) + "] appears twice");
        sections_.emplace_back(current, std::vector<RawLine>{});
        lines = &sections_.back().second;
        header_line_[current] = number;
        blocks = current == "BLOCKS";
        if (current == "SIGNATURE") {
          sig_pos_ = line_start;
          sig_line_ = number;
        }
        continue;
      }
      if (!lines) fail(number, "data before the first section");
      // The block count is held to its bound here, before any block is read into the model.
      if (blocks && ++block_rows > static_cast<std::size_t>(kMaxBlocks))
        fail(number, "[BLOCKS] holds more than " + std::to_string(kMaxBlocks) + " blocks (allowed: <= " +
                         std::to_string(kMaxBlocks) + " blocks)");
      lines->push_back({number, s});
    }
  }

  void verify_signature() {
    for (const auto& [name, lines] : sections_) {
      if (name != "SIGNATURE") continue;
      std::string type, hash;
      for (const RawLine& r : lines) {
        const Line& l = tokenize(r, name);
        if (l.tok.size() != 2) fail(l.number, "[SIGNATURE] expects 'Type md5' and 'Hash HEX'");
        if (l.tok[0] == "Type") type = shown(l.tok[1]);
        else if (l.tok[0] == "Hash") hash = shown(l.tok[1]);
        else fail(l.number, "unknown [SIGNATURE] field '" + shown(l.tok[0]) + "' (allowed: Type, Hash)");
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
        for (const RawLine& r : lines) {
          const Line& l = tokenize(r, name);
          if (l.tok.size() != 2) fail(l.number, "[VERSION] expects 'major|minor|revision N'");
          if (l.tok[0] == "major") {
            major_ = integer(l, 1);
            version_line_ = l.number;
          } else if (l.tok[0] == "minor") {
            minor_ = integer(l, 1);
            version_line_ = l.number;
          } else if (l.tok[0] != "revision") {
            fail(l.number, "unknown [VERSION] field '" + shown(l.tok[0]) + "' (allowed: major, minor, revision)");
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
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          const std::string key(l.tok[0]);
          if (!defs_.emplace(key, std::vector<std::string>(l.tok.begin() + 1, l.tok.end())).second)
            fail(l.number, "[DEFINITIONS] " + shown(key) + " is defined twice (allowed: each definition once)");
          def_line_[key] = l.number;
          static const std::set<std::string> known = {"AdcRasterTime", "BlockDurationRaster", "GradientRasterTime",
                                                      "RadiofrequencyRasterTime", "FOV", "Name", "TotalDuration",
                                                      "B0", "RequiredExtensions"};
          if (key == "RequiredExtensions")
            for (std::size_t i = 1; i < l.tok.size(); ++i)
              if (l.tok[i] != "LABELSET" && l.tok[i] != "LABELINC")
                fail(l.number, "[DEFINITIONS] RequiredExtensions '" + shown(l.tok[i]) +
                                   "': the extension is not supported (supported: LABELSET, LABELINC)");
          if (!known.count(key)) {
            std::string v;
            for (std::size_t i = 1; i < l.tok.size(); ++i) v += (i > 1 ? " " : "") + std::string(l.tok[i]);
            extra_defs_.emplace_back(key, v);
          }
        }
      } else if (name == "BLOCKS") {
        // 1.2: id delay rf gx gy gz adc; 1.3 adds ext; 1.4 puts the duration where the delay id was.
        const std::size_t cols = minor_ == 2 ? 7 : 8;
        blocks_.reserve(lines.size());
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          need(l, name, cols);
          BlockRow b{id(l, 0), 0.0, {}, l.number};
          if (legacy_) {
            b.delay = integer(l, 1);
            if (b.delay < 0)
              fail(l.number, "negative delay id " + std::to_string(b.delay) + " (allowed: 0 or an id in [DELAYS])");
          } else {  // Pulseq 1.4: the duration is a whole number of block rasters
            long long d = 0;
            if (!decimal_integer(l.tok[1], d))
              fail(l.number, "[BLOCKS] duration '" + shown(l.tok[1]) +
                                 "' is not a whole number of block rasters (allowed: a decimal integer >= 0)");
            if (d < 0) fail(l.number, "negative block duration " + shown(l.tok[1]) + " (allowed: >= 0 block rasters)");
            b.dur = static_cast<double>(d);
          }
          for (std::size_t k = 0; k + 2 < cols; ++k) b.ev[k] = id(l, 2 + k);
          blocks_.push_back(b);
        }
      } else if (name == "RF") {
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          RfRow r{};
          if (v15) {
            need(l, name, 12);
            r = {rf_amp(l), id(l, 2), id(l, 3), id(l, 4),
                 bounded(l, 5, "[RF] center", kMaxDuration_s * 1e6, "us", false), num(l, 6),
                 bounded(l, 7, "[RF] freq_ppm", kMaxPpm, "ppm"), bounded(l, 8, "[RF] phase_ppm", kMaxPpm, "ppm"),
                 rf_freq(l, 9), rf_phase(l, 10), l.tok[11][0], l.number};
            if (l.tok[11].size() != 1 || !std::strchr(kRfUses, l.tok[11][0]))
              fail(l.number, "[RF] use '" + shown(l.tok[11]) + "' of RF " + shown(l.tok[0]) +
                                 " is not a Pulseq RF use (allowed: e, r, i, s, p, o, u: excitation, refocusing, "
                                 "inversion, saturation, preparation, other, undefined)");
          } else if (legacy_) {  // 1.2 / 1.3: id amp mag phase delay freq phase (no time shape)
            need(l, name, 7);
            r = {rf_amp(l), id(l, 2), id(l, 3), 0, -1, num(l, 4), 0, 0, rf_freq(l, 5), rf_phase(l, 6), 'u',
                 l.number};
          } else {
            need(l, name, 8);
            r = {rf_amp(l), id(l, 2), id(l, 3), id(l, 4), -1, num(l, 5), 0, 0, rf_freq(l, 6),
                 rf_phase(l, 7), 'u', l.number};
          }
          define(rf_, id(l, 0), r, l, "[RF] id");
        }
      } else if (name == "GRADIENTS") {
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          GradRow g{};
          if (v15) {
            need(l, name, 7);
            g = {grad_amp(l, 1, "amplitude"), grad_amp(l, 2, "first"), grad_amp(l, 3, "last"), id(l, 4), id(l, 5),
                 num(l, 6), l.number};
          } else if (legacy_) {  // 1.2 / 1.3: id amp shape delay (no time shape)
            need(l, name, 4);
            g = {grad_amp(l, 1, "amplitude"), NAN, NAN, id(l, 2), 0, num(l, 3), l.number};
          } else {
            need(l, name, 5);
            g = {grad_amp(l, 1, "amplitude"), NAN, NAN, id(l, 2), id(l, 3), num(l, 4), l.number};
          }
          define(grad_, id(l, 0), g, l, "[GRADIENTS] id");
        }
      } else if (name == "TRAP") {
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          need(l, name, 6);
          const TrapRow t{bounded(l, 1, "[TRAP] amplitude", kMaxGradient_Hz_per_m, "Hz/m"), num(l, 2), num(l, 3),
                          num(l, 4), num(l, 5), l.number};
          static const char* what[] = {"", "", "rise", "flat", "fall", "delay"};
          double total = 0;
          for (int k = 2; k <= 5; ++k) {
            if (num(l, k) < 0 || num(l, k) > kMaxDuration_s * 1e6)
              fail(l.number, std::string("[TRAP] ") + what[k] + " time " + shown(l.tok[k]) + " us is out of range (allowed: 0.." +
                                 number_text(kMaxDuration_s * 1e6) + " us)");
            total += num(l, k);
          }
          if (total > kMaxDuration_s * 1e6)
            fail(l.number, "[TRAP] duration " + number_text(total) + " us is out of range (allowed: <= " +
                               number_text(kMaxDuration_s * 1e6) + " us)");
          define(trap_, id(l, 0), t, l, "[TRAP] id");
        }
      } else if (name == "ADC") {
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          AdcRow a{};
          if (v15) {
            need(l, name, 9);
            a = {integer(l, 1), num(l, 2), num(l, 3), bounded(l, 4, "[ADC] freq_ppm", kMaxPpm, "ppm"),
                 bounded(l, 5, "[ADC] phase_ppm", kMaxPpm, "ppm"), adc_freq(l, 6), adc_phase(l, 7), l.number};
            if (id(l, 8) != 0)
              fail(l.number, "[ADC] phase_id " + shown(l.tok[8]) + " of ADC " + shown(l.tok[0]) +
                                 ": phase-modulated ADCs are not supported (allowed: 0)");
          } else {
            need(l, name, 6);
            a = {integer(l, 1), num(l, 2), num(l, 3), 0, 0, adc_freq(l, 4), adc_phase(l, 5), l.number};
          }
          if (a.num <= 0 || a.num > kMaxAdcSamples)
            fail(l.number, "[ADC] num " + shown(l.tok[1]) + " is out of range (allowed: 1.." + std::to_string(kMaxAdcSamples) + ")");
          if (a.delay_us < 0 || a.delay_us > kMaxDuration_s * 1e6)
            fail(l.number, "[ADC] delay " + shown(l.tok[3]) + " us is out of range (allowed: 0.." + number_text(kMaxDuration_s * 1e6) +
                               " us)");
          define(adc_, id(l, 0), a, l, "[ADC] id");
        }
      } else if (name == "DELAYS") {
        // Pulseq 1.4 gave blocks their durations and dropped the section: a 1.4 file's [DELAYS] would be ignored.
        if (!legacy_)
          fail(header_line_.at(name), "[DELAYS] is a Pulseq 1.2 / 1.3 section, not read in version 1." +
                                          std::to_string(minor_) +
                                          " (allowed: block durations; soft delays, extension DELAYS, are not supported)");
        for (const RawLine& raw : lines) {
          const Line& l = tokenize(raw, name);
          need(l, name, 2);
          if (num(l, 1) < 0 || num(l, 1) > kMaxDuration_s * 1e6)
            fail(l.number, std::string(num(l, 1) < 0 ? "negative delay " : "[DELAYS] delay ") + shown(l.tok[1]) +
                               " us is out of range (allowed: 0.." + number_text(kMaxDuration_s * 1e6) + " us)");
          define(delays_, id(l, 0), num(l, 1), l, "[DELAYS] id");
        }
      } else if (name == "EXTENSIONS") {
        parse_extensions(lines);
      } else if (name == "SHAPES") {
        parse_shapes(lines);
      } else {
        fail(lines.empty() ? header_line_.at(name) : lines.front().number,
             "unknown section [" + shown(name) +
                 "] (allowed: VERSION, DEFINITIONS, BLOCKS, RF, GRADIENTS, TRAP, ADC, DELAYS, EXTENSIONS, SHAPES, SIGNATURE)");
      }
    }
  }

  void parse_extensions(const std::vector<RawLine>& lines) {
    int current_type = -1;
    std::string table;
    for (const RawLine& raw : lines) {
      Line& l = tokenize(raw, "EXTENSIONS");
      if (l.tok[0] == "extension") {
        if (l.tok.size() != 3) fail(l.number, "expected 'extension NAME ID'");
        table = std::string(l.tok[1]);
        if (one_of(table, kRefusedExtensions))
          fail(l.number, "[EXTENSIONS] extension " + table + " is not supported (supported: LABELSET, LABELINC): the "
                             "sequence would be simulated without it");
        l.names = nullptr;
        l.table = "extension";
        current_type = id(l, 2);
        define(ext_names_, current_type, table, l, "[EXTENSIONS] extension type");
      } else if (current_type < 0) {
        need(l, "EXTENSIONS", 4);
        define(ext_, id(l, 0), ExtRow{id(l, 1), id(l, 2), id(l, 3)}, l, "[EXTENSIONS] id");
      } else if (table == "LABELSET" || table == "LABELINC") {
        static const std::vector<const char*> label_fields = {"id", "value", "label"};
        l.table = table;
        l.names = &label_fields;
        if (l.tok.size() != 3) fail(l.number, table + " expects 'id value LABEL'");
        const int v = integer(l, 1);
        // LABELSET sets a counter, which cannot be negative; LABELINC may step down (the running
        // counter is checked block by block in assemble()).
        if (table == "LABELSET" ? (v < 0 || v > kMaxLabel) : std::abs(v) > kMaxLabel)
          fail(l.number, "[EXTENSIONS] " + table + " value " + shown(l.tok[1]) + " is out of range (allowed: " +
                             (table == "LABELSET" ? "0.." : "-" + std::to_string(kMaxLabel) + "..") +
                             std::to_string(kMaxLabel) + ")");
        if (!one_of(l.tok[2], kPulseqLabels))
          fail(l.number, "[EXTENSIONS] " + table + " label '" + shown(l.tok[2]) + "' is not a Pulseq label (allowed: " +
                             pulseq_label_list() + ")");
        define(ext_specs_[current_type], id(l, 0), std::pair<int, std::string>{v, std::string(l.tok[2])}, l,
               "[EXTENSIONS] " + table + " id");
      }
    }
  }

  void parse_shapes(const std::vector<RawLine>& lines) {
    int sid = -1, n = -1, start_line = 0;
    std::vector<double> data;
    auto flush = [&] {
      if (sid < 0) return;
      if (auto it = shape_line_.find(sid); it != shape_line_.end())
        fail(start_line, "[SHAPES] shape_id " + std::to_string(sid) + " is defined twice, first at line " +
                             std::to_string(it->second) + " (allowed: each shape_id once)");
      shape_line_[sid] = start_line;
      try {
        if (n >= 1 && n <= kMaxShapeSamples && library_samples_ + n > kMaxShapeLibrarySamples)
          throw InputError("the shapes hold more than " + std::to_string(kMaxShapeLibrarySamples) +
                           " samples in all (allowed: <= " + std::to_string(kMaxShapeLibrarySamples) + ")");
        shapes_[sid] = expand_shape(data, n, !legacy_);
        library_samples_ += n;
      } catch (const InputError& e) {
        fail(start_line, std::string(e.what()) + " in [SHAPES] shape_id " + std::to_string(sid));
      }
    };
    for (const RawLine& raw : lines) {
      const Line& l = tokenize(raw, "SHAPES");
      if (l.tok[0] == "shape_id") {
        flush();
        need(l, "SHAPES", 2);
        sid = id(l, 1);
        n = -1;
        start_line = l.number;
        data.clear();
      } else if (l.tok[0] == "num_samples") {
        need(l, "SHAPES", 2);
        n = integer(l, 1);
      } else {
        if (sid < 0 || n < 0) fail(l.number, "shape data before shape_id / num_samples");
        need(l, "SHAPES", 1);
        data.push_back(num(l, 0));
      }
    }
    flush();
  }

  // ---- [DEFINITIONS] -----------------------------------------------------------------------------------

  // A positive number within [lo, hi] of `unit` (rasters in s, B0 in T).
  double def_number(const std::string& key, double fallback, double lo, double hi, const char* unit) const {
    auto it = defs_.find(key);
    if (it == defs_.end()) return fallback;
    const int line = def_line_.at(key);
    const std::string allowed = (lo > 0 ? number_text(lo) + ".." : std::string("> 0, <= ")) + number_text(hi) + " " + unit;
    if (it->second.size() != 1) fail(line, "[DEFINITIONS] " + key + " expects one value (allowed: " + allowed + ")");
    double v = 0;
    if (!decimal_number(it->second[0], v) || !(v > 0) || v < lo || v > hi)
      fail(line, "[DEFINITIONS] " + key + " '" + shown(it->second[0]) + "' is out of range (allowed: " + allowed + ")");
    return v;
  }
  // FOV: up to three lengths in m (atof made "abc" 0 and took "-1" as -1 m).
  void read_fov(const std::vector<std::string>& v, int line, double (&fov_m)[3]) const {
    if (v.empty() || v.size() > 3)
      fail(line, "[DEFINITIONS] FOV expects 3 values (allowed: 0.." + number_text(kMaxFov_m) + " m each)");
    for (std::size_t i = 0; i < v.size(); ++i) {
      double x = 0;
      if (!decimal_number(v[i], x) || !(x >= 0 && x <= kMaxFov_m))
        fail(line, "[DEFINITIONS] FOV value " + std::to_string(i + 1) + " '" + shown(v[i]) +
                       "' is out of range (allowed: 0.." + number_text(kMaxFov_m) + " m)");
      fov_m[i] = x;
    }
  }
  double def_raster(const std::string& key, double fallback) const {
    return def_number(key, fallback, kMinRaster_s, kMaxRaster_s, "s");
  }

  // ---- the events, each row once ------------------------------------------------------------------------

  // A shape an event row refers to: defined, its field named otherwise.
  const ShapeSamples& row_shape(int sid, int line, const std::string& what) const {
    auto it = shapes_.find(sid);
    if (it == shapes_.end())
      fail(line, what + " " + std::to_string(sid) + " is not defined in [SHAPES] (allowed: a shape_id of [SHAPES])");
    return it->second;
  }
  const Peak& peak(int sid) {
    auto it = peaks_.find(sid);
    if (it != peaks_.end()) return it->second;
    const ShapeSamples& w = shapes_.at(sid);
    Peak p{0, 0};
    for (std::size_t i = 0; i < w.size(); ++i)
      if (std::abs(w[i]) > p.value) p = {std::abs(w[i]), i};
    return peaks_.emplace(sid, p).first->second;
  }
  // amplitude x the shape's largest sample, as played, within -max..max.
  void check_played(double amp, int sid, double scale, double max, const char* unit, int line, const std::string& what) {
    const Peak& p = peak(sid);
    const double played = std::abs(amp) * scale * p.value;
    if (played > max)
      fail(line, what + " shape " + std::to_string(sid) + " sample " + std::to_string(p.index + 1) + " (" + number_text(p.value) +
                     ") plays " + number_text(played) + " " + unit + " (allowed: -" + number_text(max) + ".." + number_text(max) +
                     " " + unit + " as played)");
  }
  // A time shape (Pulseq 1.4: sample times in raster units) must start at or after 0, never go back, and
  // end within the longest event accepted.
  void check_time_shape(int sid, const ShapeSamples& t, bool rf, int line, const std::string& what) {
    if (!time_checked_.insert({sid, rf}).second) return;
    const double raster_s = rf ? sys_.rf_raster_s : sys_.grad_raster_s;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i] < 0 || (i > 0 && t[i] < t[i - 1]) || t[i] * raster_s > kMaxDuration_s)
        fail(line, what + " time shape sample " + std::to_string(i + 1) + " = " + number_text(t[i]) +
                       " is out of range (allowed: non-decreasing, 0.." + number_text(kMaxDuration_s / raster_s) + " rasters)");
  }
  void check_delay(double us, int line, const std::string& what) const {
    if (us < 0 || us > kMaxDuration_s * 1e6)
      fail(line, what + " delay " + number_text(us) + " us is out of range (allowed: 0.." + number_text(kMaxDuration_s * 1e6) + " us)");
  }

  // Every row of the event tables, used by a block or not, once: its shapes defined and of one length, its
  // values as played within the limits, its times within the event.
  void check_events() {
    sys_.adc_raster_s = def_raster("AdcRasterTime", 100e-9);
    sys_.block_raster_s = def_raster("BlockDurationRaster", 10e-6);
    sys_.grad_raster_s = def_raster("GradientRasterTime", 10e-6);
    sys_.rf_raster_s = def_raster("RadiofrequencyRasterTime", 1e-6);
    sys_.B0_T = def_number("B0", 1.5, 0, kMaxB0_T, "T");
    for (const auto& [rid, r] : rf_) {
      const std::string of = " of RF " + std::to_string(rid);
      const ShapeSamples& mag = row_shape(r.mag, r.line, "[RF] mag_id");
      const ShapeSamples& ph = row_shape(r.phase, r.line, "[RF] phase_id");
      if (ph.size() != mag.size())
        fail(r.line, "[RF] phase_id shape " + std::to_string(r.phase) + " has " + std::to_string(ph.size()) + " samples" + of +
                         ", its mag_id shape " + std::to_string(r.mag) + " " + std::to_string(mag.size()) +
                         " (allowed: shapes of one length)");
      check_played(r.amp, r.mag, 1, kMaxRfAmplitude_Hz, "Hz", r.line, "[RF] amplitude " + number_text(r.amp) + " Hz" + of + " x mag_id");
      check_played(1, r.phase, 2 * M_PI, kMaxPhase_rad, "rad", r.line, "[RF] phase" + of + ": 2 pi x phase_id");
      double duration_s = static_cast<double>(mag.size()) * sys_.rf_raster_s;
      if (r.time > 0) {
        const ShapeSamples& t = row_shape(r.time, r.line, "[RF] time_id");
        if (t.size() != mag.size())
          fail(r.line, "[RF] time_id shape " + std::to_string(r.time) + " has " + std::to_string(t.size()) + " samples" + of +
                           ", its mag_id shape " + std::to_string(mag.size()) + " (allowed: shapes of one length)");
        check_time_shape(r.time, t, true, r.line, "RF");
        duration_s = t.back() * sys_.rf_raster_s;
      }
      check_delay(r.delay_us, r.line, "RF");
      if (duration_s > kMaxDuration_s)
        fail(r.line, "RF lasts " + number_text(duration_s) + " s (allowed: <= " + number_text(kMaxDuration_s) + " s)");
      // The centre (1.5) is the pulse's reference for TE: within the pulse. The writers round it to 1 us.
      if (r.center_us >= 0 && r.center_us * 1e-6 > duration_s + 0.5e-6)
        fail(r.line, "[RF] center " + number_text(r.center_us) + " us" + of + " is past the pulse's end (allowed: 0.." +
                         number_text(duration_s * 1e6) + " us, the pulse's duration)");
    }
    for (const auto& [gid, r] : grad_) {
      const std::string of = " of gradient " + std::to_string(gid);
      if (trap_.count(gid))
        fail(r.line, "[GRADIENTS] id " + std::to_string(gid) + " is also a [TRAP] id (allowed: each gradient id once)");
      const ShapeSamples& w = row_shape(r.shape, r.line, "[GRADIENTS] shape_id");
      check_played(r.amp, r.shape, 1, kMaxGradient_Hz_per_m, "Hz/m", r.line,
                   "[GRADIENTS] amplitude " + number_text(r.amp) + " Hz/m" + of + " x shape_id");
      // 1.4: the last value is extrapolated from the last two samples, and played.
      if (std::isnan(r.last) && w.size() >= 2) {
        const double last = r.amp * (1.5 * w.back() - 0.5 * w[w.size() - 2]);
        if (std::abs(last) > kMaxGradient_Hz_per_m)
          fail(r.line, "[GRADIENTS] last value" + of + ", extrapolated from its last two samples, plays " + number_text(last) +
                           " Hz/m (allowed: -" + number_text(kMaxGradient_Hz_per_m) + ".." + number_text(kMaxGradient_Hz_per_m) +
                           " Hz/m as played)");
      }
      if (r.time > 0) {
        const ShapeSamples& t = row_shape(r.time, r.line, "[GRADIENTS] time_id");
        if (t.size() != w.size())
          fail(r.line, "[GRADIENTS] time_id shape " + std::to_string(r.time) + " has " + std::to_string(t.size()) +
                           " samples" + of + ", its shape_id shape " + std::to_string(w.size()) +
                           " (allowed: shapes of one length)");
        check_time_shape(r.time, t, false, r.line, "gradient");
      } else if (static_cast<double>(w.size()) * sys_.grad_raster_s > kMaxDuration_s) {
        fail(r.line, "gradient lasts " + number_text(static_cast<double>(w.size()) * sys_.grad_raster_s) + " s (allowed: <= " +
                         number_text(kMaxDuration_s) + " s)");
      }
      check_delay(r.delay_us, r.line, "gradient");
    }
    for (const auto& [aid, a] : adc_)
      if (!(a.dwell_ns * 1e-9 >= sys_.adc_raster_s * (1 - 1e-9)) || a.dwell_ns * a.num > kMaxDuration_s * 1e9)
        fail(a.line, "[ADC] dwell " + number_text(a.dwell_ns) + " ns of ADC " + std::to_string(aid) +
                         " is out of range (allowed: >= " + number_text(sys_.adc_raster_s * 1e9) +
                         " ns, the AdcRasterTime; num x dwell <= " + number_text(kMaxDuration_s * 1e9) + " ns)");
  }

  // A shape as a block plays it, counted against the samples all blocks may play.
  const ShapeSamples& shape(int sid, int line) {
    auto it = shapes_.find(sid);
    if (it == shapes_.end()) fail(line, "shape " + std::to_string(sid) + " is not defined in [SHAPES]");
    model_samples_ += static_cast<long long>(it->second.size());
    if (model_samples_ > kMaxModelSamples)
      fail(line, "the blocks play more than " + std::to_string(kMaxModelSamples) + " shape samples in all (allowed: <= " +
                     std::to_string(kMaxModelSamples) + ")");
    return it->second;
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
    s.sys = sys_;
    const SystemLimits& sys = s.sys;
    if (auto it = defs_.find("Name"); it != defs_.end() && !it->second.empty()) s.name = it->second[0];
    if (auto it = defs_.find("FOV"); it != defs_.end()) read_fov(it->second, def_line_.at("FOV"), s.fov_m);
    s.extra_definitions = extra_defs_;
    // RequiredExtensions lists only LABELSET and LABELINC (parse_sections refuses any other), so an extension
    // of another name is optional: Pulseq lets an interpreter ignore it.
    for (const auto& [type, en] : ext_names_)
      if (en != "LABELSET" && en != "LABELINC") s.warnings.push_back("optional extension '" + shown(en) + "' ignored");
    const double ppm_Hz = sys.B0_T * gamma_Hz_per_T * 1e-6;

    double last_grad[3] = {0, 0, 0};  // 1.4 arbitrary gradients start where the previous block ended
    std::map<std::string, int> counters;  // label counters, as played
    // What the ADCs lay out when played (sequence_to_program, simulate_block_sequence): k-space line
    // LIN (else the ADC's index), raw-data segment SET, samples per ADC.
    int adc_index = 0, max_line = -1, max_set = -1, max_samples = 0;
    long long adc_samples = 0;
    double total_s = 0;
    s.blocks.reserve(blocks_.size());
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
        rf.mag = shape(r.mag, r.line);  // shapes, lengths, times and played values checked in check_events
        rf.phase = shape(r.phase, r.line);
        if (r.time > 0) rf.time = shape(r.time, r.line);
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
            g.waveform = shape(r.shape, r.line);  // checked in check_events
            if (r.time > 0) g.time = shape(r.time, r.line);
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
  // One copy of the text, read at its size (a string stream held it twice).
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size >= 0) {
    in.seekg(0, std::ios::beg);
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<std::size_t>(in.gcount()));
  } else {  // not seekable (a pipe)
    in.clear();
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (in.bad()) throw InputError(path + ": cannot read");
  return parse_pulseq(text, path);
}

}  // namespace mrwb::seq
