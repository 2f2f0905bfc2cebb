#include "mrwb/scenario/scenario.hpp"

#include <climits>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mrwb/base/atomic_file.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/base/number_text.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/phantom/tissue.hpp"
#include "mrwb/scenario/scenario_ranges.hpp"
#include "mrwb/scenario/scenario_sequence.hpp"
#include "mrwb/sequence/noncart_design.hpp"
#include "mrwb/sequence/sequence_limits.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "strict_json.hpp"

namespace mrwb {
namespace {

using nlohmann::json;

constexpr int k_format_version = 1;


// Reads the fields of one JSON object, remembering which were used so unknown ones are reported.
class ObjectReader {
 public:
  ObjectReader(const json& obj, std::string source, std::string prefix)
      : obj_(obj), source_(std::move(source)), prefix_(std::move(prefix)) {
    if (!obj_.is_object()) fail(prefix_.empty() ? "the document" : prefix_.substr(0, prefix_.size() - 1), "must be a JSON object");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(source_ + ": " + field + " " + what);
  }
  std::string field(const std::string& key) const { return prefix_ + key; }

  bool has(const std::string& key) {
    used_.insert(key);
    return obj_.contains(key);
  }

  double number(const std::string& key, double fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_number()) fail(field(key), "must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(field(key), "must be finite");
    return d;
  }
  int integer(const std::string& key, int fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_number_integer()) fail(field(key), "must be an integer");
    // Read at full width first: get<int> would wrap 2^32 + 32 to 32.
    const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT_MAX)
                                             : v.get<std::int64_t>() >= INT_MIN && v.get<std::int64_t>() <= INT_MAX;
    if (!fits) fail(field(key), "= " + v.dump() + " is out of range: allowed a 32-bit integer (then the field's own range)");
    return v.get<int>();
  }
  // Names and labels are one line of text: a control character (a NUL would cut the messages that quote
  // the name, a newline split them) is refused; only the free-text description may hold line breaks.
  std::string text(const std::string& key, const std::string& fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_string()) fail(field(key), "must be a string");
    const std::string t = v.get<std::string>();
    const bool free_text = prefix_.empty() && key == "description";
    if (free_text ? t.find('\0') != std::string::npos : has_control_characters(t))
      fail(field(key), "= \"" + printable(t) + "\" holds control characters (allowed: printable text)");
    return t;
  }
  std::uint64_t unsigned_integer(const std::string& key, std::uint64_t fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0)) fail(field(key), "must be a non-negative integer");
    return v.get<std::uint64_t>();
  }
  // A name of `names`; another string fails with the allowed names, as the field's only message.
  template <class E, std::size_t N>
  E named(const std::string& key, const EnumNames<E, N>& names, E fallback) {
    if (!has(key)) return fallback;
    const std::string v = text(key, {});
    if (const std::optional<E> e = enum_from_name(names, v)) return *e;
    fail(field(key), "= '" + v + "' is not allowed (allowed: " + enum_name_list(names) + ")");
  }
  bool boolean(const std::string& key, bool fallback) {
    if (!has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_boolean()) fail(field(key), "must be true or false");
    return v.get<bool>();
  }
  void numbers3(const std::string& key, double (&out)[3]) {
    if (!has(key)) return;
    const json& v = obj_.at(key);
    if (!v.is_array() || v.size() != 3) fail(field(key), "must be an array of 3 numbers");
    for (int i = 0; i < 3; ++i) {
      if (!v[i].is_number()) fail(field(key), "must be an array of 3 numbers");
      out[i] = v[i].get<double>();
    }
  }
  const json& object(const std::string& key) {
    if (!has(key)) fail(field(key), "is missing");
    return obj_.at(key);
  }
  void reject_unknown() const {
    for (const auto& [k, v] : obj_.items())
      if (!used_.count(k)) fail(printable(field(k)), "is not a known field");
  }

 private:
  const json& obj_;
  std::string source_, prefix_;
  std::set<std::string> used_;
};

VesselTreeSpec read_tree(const json& j, const std::string& source) {
  ObjectReader r(j, source, "phantom.tree.");
  VesselTreeSpec t;
  t.generator = r.text("generator", t.generator);
  t.dims = r.integer("dims", t.dims);
  t.seed = r.unsigned_integer("seed", t.seed);
  t.radius_m = r.number("radius_m", t.radius_m);
  t.length_m = r.number("length_m", t.length_m);
  t.angle_deg = r.number("angle_deg", t.angle_deg);
  t.stenosis_degree_percent = r.number("stenosis_degree_percent", t.stenosis_degree_percent);
  t.lesion_length_m = r.number("lesion_length_m", t.lesion_length_m);
  t.aneurysm_radius_m = r.number("aneurysm_radius_m", t.aneurysm_radius_m);
  t.branch_angle1_deg = r.number("branch_angle1_deg", t.branch_angle1_deg);
  t.branch_angle2_deg = r.number("branch_angle2_deg", t.branch_angle2_deg);
  t.radius_ratio = r.number("radius_ratio", t.radius_ratio);
  t.generations = r.integer("generations", t.generations);
  t.angle_jitter_deg = r.number("angle_jitter_deg", t.angle_jitter_deg);
  t.terminals = r.integer("terminals", t.terminals);
  r.numbers3("organ_semi_axes_m", t.organ_semi_axes_m);
  if (r.has("segment_edits")) {
    const json& a = j.at("segment_edits");
    if (!a.is_array()) r.fail("phantom.tree.segment_edits", "must be an array of objects");
    for (std::size_t i = 0; i < a.size(); ++i) {
      ObjectReader e(a[i], source, "phantom.tree.segment_edits[" + std::to_string(i) + "].");
      VesselSegmentEdit d;
      d.segment = e.integer("segment", d.segment);
      d.radius_scale = e.number("radius_scale", d.radius_scale);
      d.stenosis_degree_percent = e.number("stenosis_degree_percent", d.stenosis_degree_percent);
      d.remove = e.boolean("remove", d.remove);
      e.reject_unknown();
      t.segment_edits.push_back(d);
    }
  }
  r.reject_unknown();
  return t;
}

FlowSpec read_flow(const json& j, const std::string& source) {
  ObjectReader r(j, source, "flow.");
  FlowSpec f;
  f.enabled = true;
  f.solver = r.text("solver", f.solver);
  f.inlet_flow_m3_per_s = r.number("inlet_flow_m3_per_s", f.inlet_flow_m3_per_s);
  f.waveform = r.text("waveform", f.waveform);
  f.period_s = r.number("period_s", f.period_s);
  f.pulsatility = r.number("pulsatility", f.pulsatility);
  f.time_s = r.number("time_s", f.time_s);
  f.viscosity_Pa_s = r.number("viscosity_Pa_s", f.viscosity_Pa_s);
  f.density_kg_per_m3 = r.number("density_kg_per_m3", f.density_kg_per_m3);
  f.time_step_s = r.number("time_step_s", f.time_step_s);
  f.lbm_max_steps = r.integer("lbm_max_steps", f.lbm_max_steps);
  f.lbm_tolerance = r.number("lbm_tolerance", f.lbm_tolerance);
  f.lbm_u_max = r.number("lbm_u_max", f.lbm_u_max);
  f.lbm_collision = r.text("lbm_collision", f.lbm_collision);
  r.reject_unknown();
  return f;
}

PhantomSpec read_phantom(const json& j, const std::string& source) {
  ObjectReader r(j, source, "phantom.");
  PhantomSpec p;
  p.preset = r.text("preset", p.preset);
  p.cells_per_voxel = r.integer("cells_per_voxel", p.cells_per_voxel);
  p.disc_radius_m = r.number("disc_radius_m", p.disc_radius_m);
  p.background_tissue = r.text("background_tissue", p.background_tissue);
  p.vessel_tissue = r.text("vessel_tissue", p.vessel_tissue);
  p.vessel_radius_m = r.number("vessel_radius_m", p.vessel_radius_m);
  p.vessel_angle_deg = r.number("vessel_angle_deg", p.vessel_angle_deg);
  p.vessel_offset_m = r.number("vessel_offset_m", p.vessel_offset_m);
  p.slab_thickness_m = r.number("slab_thickness_m", p.slab_thickness_m);
  if (r.has("tree")) {
    if (p.preset != "vessel_tree") r.fail("phantom.tree", "is only allowed with phantom.preset \"vessel_tree\"");
    p.tree = read_tree(r.object("tree"), source);
  }
  r.reject_unknown();
  return p;
}

SequenceSpec read_sequence(const json& j, const std::string& source) {
  ObjectReader r(j, source, "sequence.");
  SequenceSpec s;
  s.type = r.named("type", k_sequence_type_names, s.type);
  s.TR_s = r.number("TR_s", s.TR_s);
  s.TE_s = r.number("TE_s", s.TE_s);
  s.flip_angle_deg = r.number("flip_angle_deg", s.flip_angle_deg);
  s.fov_m = r.number("fov_m", s.fov_m);
  s.matrix = r.integer("matrix", s.matrix);
  s.bandwidth_Hz_per_pixel = r.number("bandwidth_Hz_per_pixel", s.bandwidth_Hz_per_pixel);
  s.dummy_scans = r.integer("dummy_scans", s.dummy_scans);
  s.acceleration = r.integer("acceleration", s.acceleration);
  s.acs_lines = r.integer("acs_lines", s.acs_lines);
  s.acs_mode = r.text("acs_mode", s.acs_mode);
  s.undersampling = r.text("undersampling", s.undersampling);
  s.undersampling_seed = r.integer("undersampling_seed", s.undersampling_seed);
  s.trajectory = r.named("trajectory", k_trajectory_names, s.trajectory);
  if ((r.has("spokes") || r.has("interleaves") || r.has("design_interleaves")) && s.trajectory == Trajectory::Cartesian)
    r.fail("sequence.spokes / sequence.interleaves / sequence.design_interleaves", "are only allowed with a non-Cartesian sequence.trajectory");
  s.spokes = r.integer("spokes", s.spokes);
  s.interleaves = r.integer("interleaves", s.interleaves);
  s.design_interleaves = r.integer("design_interleaves", s.design_interleaves);
  if (r.has("venc_m_per_s") || r.has("venc_directions")) {
    if (s.type != SequenceType::PhaseContrast)
      r.fail("sequence.venc_m_per_s / sequence.venc_directions", "are only allowed with sequence.type \"phase_contrast\"");
    s.venc_m_per_s = r.number("venc_m_per_s", s.venc_m_per_s);
    if (r.has("venc_directions")) {
      const json& v = r.object("venc_directions");
      if (!v.is_array()) r.fail("sequence.venc_directions", "must be an array of \"x\", \"y\", \"z\"");
      s.venc_directions.clear();
      for (const json& d : v) {
        if (!d.is_string()) r.fail("sequence.venc_directions", "must be an array of \"x\", \"y\", \"z\"");
        s.venc_directions.push_back(d.get<std::string>());
      }
    }
  }
  if (r.has("flow_compensation")) {
    if (s.type != SequenceType::Tof) r.fail("sequence.flow_compensation", "is only allowed with sequence.type \"tof\"");
    s.flow_compensation = r.boolean("flow_compensation", s.flow_compensation);
  }
  s.slices = r.integer("slices", s.slices);  // multi-slice / 3-D (multislice.hpp), checked in validate_scenario
  s.slice_gap_m = r.number("slice_gap_m", s.slice_gap_m);
  s.partitions = r.integer("partitions", s.partitions);
  s.slice_thickness_m = r.number("slice_thickness_m", s.slice_thickness_m);
  s.max_grad_mT_per_m = r.number("max_grad_mT_per_m", s.max_grad_mT_per_m);
  s.max_slew_T_per_m_per_s = r.number("max_slew_T_per_m_per_s", s.max_slew_T_per_m_per_s);
  s.partial_fourier = r.number("partial_fourier", s.partial_fourier);
  if (r.has("fidelity")) {
    ObjectReader f(r.object("fidelity"), source, "sequence.fidelity.");
    s.fidelity.rf = f.named("rf", k_rf_fidelity_names, s.fidelity.rf);
    s.fidelity.gradients = f.named("gradients", k_gradient_fidelity_names, s.fidelity.gradients);
    s.fidelity.spoiling = f.named("spoiling", k_spoiling_fidelity_names, s.fidelity.spoiling);
    f.reject_unknown();
  }
  r.reject_unknown();
  return s;
}

CoilSpec read_coils(const json& j, const std::string& source) {
  ObjectReader r(j, source, "coils.");
  CoilSpec c;
  c.count = r.integer("count", c.count);
  c.arrangement = r.text("arrangement", c.arrangement);
  c.noise_std = r.number("noise_std", c.noise_std);
  c.noise_correlation = r.number("noise_correlation", c.noise_correlation);
  r.reject_unknown();
  return c;
}

void check_range(const std::string& source, const std::string& field, double v, double lo, bool lo_open,
                 double hi, bool hi_open, const std::string& unit) {
  const bool ok = (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok)
    throw InputError(source + ": " + field + " = " + number_text(v) + " is out of range: allowed " +
                     (lo_open ? "(" : "[") + number_text(lo) + ", " + number_text(hi) + (hi_open ? ")" : "]") +
                     (unit.empty() ? "" : " " + unit));
}

// A field's fixed range as scenario_ranges.cpp states it (with what else bounds it, if anything).
// `shown`: the field as the message names it, where it differs (an element of a list).
void check_range(const std::string& source, const std::string& field, double v, const std::string& shown = {}) {
  const FieldRange& f = scenario_field_range(field);
  if (!f.range.contains(v))
    throw InputError(source + ": " + (shown.empty() ? field : shown) + " = " + number_text(v) + " is out of range: allowed " + seq::text(f.range) +
                     (f.also.empty() ? "" : " (" + std::string(f.also) + ")"));
}

void check_one_of(const std::string& source, const std::string& field, const std::string& v,
                  const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (a == v) return;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw InputError(source + ": " + field + " = '" + v + "' is not allowed (allowed: " + list + ")");
}

}  // namespace

namespace {

// Every check of a scenario; with `built`, the sequence's blocks are assembled by the checks that decide
// its timing and handed back (validated_sequence), else only timed where that is cheaper (validate_scenario).
void check_scenario(const Scenario& s, const std::string& source, seq::BuiltSequence* built) {
  const auto& q = s.sequence;
  const auto& p = s.phantom;
  check_range(source, "simulation.spins_per_axis", s.simulation.spins_per_axis);
  if (q.type == SequenceType::PhaseContrast) {
    check_range(source, "sequence.venc_m_per_s", q.venc_m_per_s);
    if (q.venc_directions.empty() || q.venc_directions.size() > 3)
      throw InputError(source + ": sequence.venc_directions must hold 1 to 3 directions (allowed: x, y, z)");
    for (std::size_t i = 0; i < q.venc_directions.size(); ++i) {
      check_one_of(source, "sequence.venc_directions[" + std::to_string(i) + "]", q.venc_directions[i], {"x", "y", "z"});
      for (std::size_t j = 0; j < i; ++j)
        if (q.venc_directions[j] == q.venc_directions[i])
          throw InputError(source + ": sequence.venc_directions lists '" + q.venc_directions[i] + "' twice (allowed: distinct x, y, z)");
    }
  }
  check_range(source, "sequence.TR_s", q.TR_s);
  check_range(source, "sequence.TE_s", q.TE_s);
  check_range(source, "sequence.TE_s", q.TE_s, 0, true, q.TR_s, true, "s (0 < TE < TR)");
  check_range(source, "sequence.flip_angle_deg", q.flip_angle_deg);
  check_range(source, "sequence.fov_m", q.fov_m);
  check_range(source, "sequence.matrix", q.matrix);
  if (q.matrix % 2 != 0) throw InputError(source + ": sequence.matrix = " + number_text(q.matrix) + " must be even");
  check_range(source, "sequence.bandwidth_Hz_per_pixel", q.bandwidth_Hz_per_pixel);
  check_range(source, "sequence.dummy_scans", q.dummy_scans);
  check_range(source, "sequence.acceleration", q.acceleration);
  check_range(source, "sequence.acs_lines", q.acs_lines);
  check_range(source, "sequence.acs_lines", q.acs_lines, 0, false, q.matrix, false, "(up to sequence.matrix)");
  check_one_of(source, "sequence.acs_mode", q.acs_mode, {"integrated", "separate"});
  check_one_of(source, "sequence.undersampling", q.undersampling, {"regular", "random", "poisson_disc"});
  check_range(source, "sequence.undersampling_seed", q.undersampling_seed);
  if (q.undersampling != "regular") {
    if (q.trajectory != Trajectory::Cartesian || q.type == SequenceType::PhaseContrast || q.acs_mode != "integrated" ||
        q.partial_fourier != 1 || q.acceleration < 2)
      throw InputError(source + ": sequence.undersampling = '" + q.undersampling +
                       "' needs a Cartesian spoiled_gre, spin_echo, bssfp or tof with sequence.acceleration >= 2, "
                       "integrated ACS lines and partial_fourier 1 (allowed otherwise: regular)");
    const int lines = static_cast<int>(std::lround(q.matrix / double(q.acceleration)));
    check_range(source, "sequence.acs_lines", q.acs_lines, 0, false, lines, false,
                "(up to the matrix / acceleration = " + std::to_string(lines) + " lines the pattern acquires)");
  }
  if (q.acs_mode == "separate" &&
      (q.acs_lines == 0 || q.type == SequenceType::PhaseContrast || q.trajectory != Trajectory::Cartesian))
    throw InputError(source + ": sequence.acs_mode = 'separate' needs sequence.acs_lines > 0 and a Cartesian " +
                     "spoiled_gre, spin_echo, bssfp or tof (it is " + std::to_string(q.acs_lines) + " lines, '" +
                     name_of(q.type) + "', '" + name_of(q.trajectory) + "')");
  if (q.trajectory != Trajectory::Cartesian) validate_noncart_scenario(s, source);  // scenario_sequence.hpp
  else check_recon_method(to_string(s.recon.method), q, source);
  // Multi-slice / 3-D (multislice.hpp): ranges, which types, and a phantom slab to excite.
  check_range(source, "sequence.slices", q.slices);
  check_range(source, "sequence.slice_gap_m", q.slice_gap_m);
  check_range(source, "sequence.partitions", q.partitions);
  check_range(source, "sequence.slice_thickness_m", q.slice_thickness_m);
  if (q.max_grad_mT_per_m != 0)
    check_range(source, "sequence.max_grad_mT_per_m", q.max_grad_mT_per_m);
  if (q.max_slew_T_per_m_per_s != 0)
    check_range(source, "sequence.max_slew_T_per_m_per_s", q.max_slew_T_per_m_per_s);
  check_range(source, "sequence.partial_fourier", q.partial_fourier);
  if (q.partial_fourier != 1 && (q.trajectory != Trajectory::Cartesian || q.type == SequenceType::PhaseContrast))
    throw InputError(source + ": sequence.partial_fourier = " + number_text(q.partial_fourier) + " with '" + name_of(q.type) + "', '" +
                     name_of(q.trajectory) + "' (allowed below 1: cartesian spoiled_gre, spin_echo, bssfp, tof)");
  if (q.slices > 1 && ((q.type != SequenceType::SpoiledGre && q.type != SequenceType::Tof) ||
                       q.trajectory != Trajectory::Cartesian || q.partitions > 1))
    throw InputError(source + ": sequence.slices = " + std::to_string(q.slices) + " with '" + name_of(q.type) + "', '" +
                     name_of(q.trajectory) + "', " + std::to_string(q.partitions) +
                     " partitions (allowed above 1: cartesian spoiled_gre or tof, partitions 1)");
  if (q.partitions > 1 && q.type != SequenceType::Tof)
    throw InputError(source + ": sequence.partitions = " + std::to_string(q.partitions) + " with '" + name_of(q.type) +
                     "' (allowed above 1: tof)");
  if ((q.slices > 1 || q.partitions > 1) && !(p.slab_thickness_m > 0))
    throw InputError(source + ": sequence.slices / sequence.partitions above 1 need a phantom slab to excite (allowed: "
                     "phantom.slab_thickness_m > 0, covering the slices or the slab)");
  // Block-model types: Cartesian; TE/TR against their minima.
  if (q.type == SequenceType::Bssfp || q.type == SequenceType::Tof || q.type == SequenceType::PhaseContrast || q.slices > 1) {
    if (q.trajectory != Trajectory::Cartesian)
      throw InputError(source + ": sequence.trajectory = '" + name_of(q.trajectory) + "' with sequence.type '" +
                       name_of(q.type) + "' (allowed: cartesian)");
    seq::BuiltSequence b = seq::scenario_blocks(q, source + ": sequence");
    if (built) *built = std::move(b);
  }
  // Multi-slice and 3-D slabs are selected by the pulse's profile: one hard rotation would excite them all.
  if ((q.slices > 1 || q.partitions > 1) && q.fidelity.rf == RfFidelity::Hard)
    throw InputError(source + ": sequence.fidelity.rf = 'hard' with " + std::to_string(q.slices) + " slices, " +
                     std::to_string(q.partitions) + " partitions (allowed: auto or shaped: each slice or slab is " +
                     "selected by the pulse's profile)");
  check_range(source, "recon.grappa_kernel_pe", s.recon.grappa_kernel_pe);
  check_range(source, "recon.grappa_kernel_ro", s.recon.grappa_kernel_ro);
  check_range(source, "recon.grappa_lambda", s.recon.grappa_lambda);
  check_one_of(source, "recon.grappa_approach", s.recon.grappa_approach, {"improved", "basic"});
  check_range(source, "recon.grappa_eta", s.recon.grappa_eta);
  check_range(source, "recon.grappa_clip", s.recon.grappa_clip);
  check_range(source, "recon.cg_iterations", s.recon.cg_iterations);
  check_range(source, "recon.cg_lambda", s.recon.cg_lambda);
  if (s.recon.maps) {
    check_one_of(source, "recon.maps", *s.recon.maps, {"true", "espirit"});
    // The maps are 2-D images: a 3-D trajectory's cg estimates its own.
    if (q.trajectory == Trajectory::StackOfSpirals)
      throw InputError(source + ": recon.maps = '" + *s.recon.maps + "' with sequence.trajectory '" + name_of(q.trajectory) +
                       "' (allowed: cartesian, radial, golden_radial, spiral; or leave recon.maps out)");
  }
  check_one_of(source, "recon.cs_regularizer", s.recon.cs_regularizer, {"l1-wavelet", "tv"});
  check_range(source, "recon.cs_lambda", s.recon.cs_lambda);
  check_range(source, "recon.cs_iterations", s.recon.cs_iterations);
  if (s.recon.method == ReconMethod::Grappa && q.undersampling != "regular")
    throw InputError(source + ": recon.method = grappa needs sequence.undersampling = regular (it is '" + q.undersampling +
                     "'; allowed with random / poisson_disc: fft, sense, cs)");
  if (s.recon.method == ReconMethod::Grappa) {
    if (q.acceleration < 2)
      throw InputError(source + ": recon.method = grappa needs sequence.acceleration >= 2 (it is " +
                       std::to_string(q.acceleration) + ")");
    const int need = (s.recon.grappa_kernel_pe - 1) * q.acceleration + 1;
    if (q.acs_lines < need)
      throw InputError(source + ": sequence.acs_lines = " + std::to_string(q.acs_lines) + " is too few for a " +
                       std::to_string(s.recon.grappa_kernel_pe) + "-line GRAPPA kernel at R = " +
                       std::to_string(q.acceleration) + ": at least (K_PE - 1)·R + 1 = " + std::to_string(need));
  }
  if (s.recon.method == ReconMethod::Sense && q.undersampling == "regular") {
    // SENSE unfolds R rows from as many coils (Pruessmann et al. 1999): R <= coils, R dividing the lines.
    if (q.acceleration > s.coils.count || q.matrix % q.acceleration != 0)
      throw InputError(source + ": recon.method = sense with sequence.acceleration = " + std::to_string(q.acceleration) +
                       " (allowed: 1 .. coils.count = " + std::to_string(s.coils.count) + ", dividing sequence.matrix = " +
                       std::to_string(q.matrix) + ")");
    if (q.partial_fourier != 1)
      throw InputError(source + ": recon.method = sense with sequence.partial_fourier = " + number_text(q.partial_fourier) +
                       " (allowed: 1: the unfolding needs every line of the comb)");
  }
  // The readout is centred on TE: half of it before TE, half after, all of it inside the TR.
  const double half_readout_s = 0.5 * q.matrix * s.dwell_s();
  if (q.TE_s <= half_readout_s)
    throw InputError(source + ": sequence.TE_s = " + number_text(q.TE_s) + " is out of range: must exceed half the readout, " +
                     number_text(half_readout_s) + " s (matrix / (2 · bandwidth_Hz_per_pixel · matrix))");
  // Spin echo: the refocusing pulse sits at TE/2, so the readout's first half must fit after it.
  if (q.type == SequenceType::SpinEcho && 0.5 * q.TE_s < half_readout_s)
    throw InputError(source + ": sequence.TE_s = " + number_text(q.TE_s) + " is out of range: a spin echo needs TE/2 >= half the readout, " +
                     number_text(half_readout_s) + " s");
  if (q.TE_s + half_readout_s > q.TR_s)
    throw InputError(source + ": sequence.TR_s = " + number_text(q.TR_s) + " is out of range: must be at least TE + half the readout = " +
                     number_text(q.TE_s + half_readout_s) + " s");
  // The minimum TE / TR with real RF, prephaser and ramps, decided where `mrwb sequence` builds the same
  // scenario (sequence_scenario.hpp), so both accept the same scenarios (block-model types: above).
  if ((q.type == SequenceType::SpoiledGre || q.type == SequenceType::SpinEcho) && q.slices == 1) {
    if (built && q.trajectory == Trajectory::Cartesian) *built = seq::scenario_blocks(q, source + ": sequence");
    else seq::scenario_timing(q, source + ": sequence");
  }

  check_one_of(source, "phantom.preset", p.preset, {"straight_vessel", "uniform_disc", "vessel_tree"});
  check_range(source, "phantom.cells_per_voxel", p.cells_per_voxel);
  check_range(source, "phantom.disc_radius_m", p.disc_radius_m);
  check_range(source, "phantom.disc_radius_m", p.disc_radius_m, 0, true, 0.5 * q.fov_m, false, "m (up to fov_m / 2)");
  tissue_1p5T(p.background_tissue, source + ": phantom.background_tissue");
  tissue_1p5T(p.vessel_tissue, source + ": phantom.vessel_tissue");
  check_range(source, "phantom.vessel_radius_m", p.vessel_radius_m);
  check_range(source, "phantom.vessel_radius_m", p.vessel_radius_m, 0, true, 0.5 * q.fov_m, false, "m (up to fov_m / 2)");
  check_range(source, "phantom.vessel_angle_deg", p.vessel_angle_deg);
  check_range(source, "phantom.vessel_offset_m", p.vessel_offset_m);
  check_range(source, "phantom.vessel_offset_m", p.vessel_offset_m, -0.5 * q.fov_m, false, 0.5 * q.fov_m, false, "m");
  if (p.slab_thickness_m != 0) {  // 3-D slab: at least one cubic cell, at most the FOV; Cartesian so far
    const double cell_m = q.fov_m / (static_cast<double>(q.matrix) * p.cells_per_voxel);
    check_range(source, "phantom.slab_thickness_m", p.slab_thickness_m);
    check_range(source, "phantom.slab_thickness_m", p.slab_thickness_m, cell_m, false, q.fov_m, false,
                "m (0: a 2-D slice; else from one cell, fov_m / (matrix · cells_per_voxel), to fov_m)");
    if (q.trajectory != Trajectory::Cartesian && q.trajectory != Trajectory::StackOfSpirals)  // 3-D encodes only
      throw InputError(source + ": phantom.slab_thickness_m = " + number_text(p.slab_thickness_m) + " with sequence.trajectory '" +
                       name_of(q.trajectory) + "' (allowed: 0; slabs are simulated for cartesian and stack_of_spirals)");
  }
  if (p.preset == "vessel_tree") {
    validate_vessel_tree_spec(p.tree, source + ": phantom.tree");
    if (p.tree.generator == "organ_tree")
      for (int a = 0; a < 2; ++a) {
        const std::string shown = std::string("phantom.tree.organ_semi_axes_m[") + char('0' + a) + "]";
        check_range(source, "phantom.tree.organ_semi_axes_m", p.tree.organ_semi_axes_m[a], shown);
        check_range(source, shown, p.tree.organ_semi_axes_m[a], 0, true,
                    0.5 * q.fov_m, false, "m (up to fov_m / 2)");
      }
  }
  if (s.flow.enabled) {
    const auto& f = s.flow;
    if (p.preset == "uniform_disc")
      throw InputError(source + ": flow needs a vessel: phantom.preset = 'uniform_disc' has none (allowed with flow: "
                       "straight_vessel, vessel_tree)");
    check_one_of(source, "flow.solver", f.solver, {"poiseuille", "lbm"});
    check_one_of(source, "flow.waveform", f.waveform, {"constant", "sinusoid", "cardiac"});
    check_range(source, "flow.inlet_flow_m3_per_s", f.inlet_flow_m3_per_s);
    check_range(source, "flow.period_s", f.period_s);
    check_range(source, "flow.pulsatility", f.pulsatility);
    check_range(source, "flow.time_s", f.time_s);
    check_range(source, "flow.viscosity_Pa_s", f.viscosity_Pa_s);
    check_range(source, "flow.density_kg_per_m3", f.density_kg_per_m3);
    check_range(source, "flow.time_step_s", f.time_step_s);
    check_range(source, "flow.lbm_max_steps", f.lbm_max_steps);
    check_range(source, "flow.lbm_tolerance", f.lbm_tolerance);
    check_range(source, "flow.lbm_u_max", f.lbm_u_max);
    check_one_of(source, "flow.lbm_collision", f.lbm_collision, {"bgk", "mrt"});
  }
  check_range(source, "coils.count", s.coils.count);
  check_one_of(source, "coils.arrangement", s.coils.arrangement, {"loops", "uniform"});
  check_range(source, "coils.noise_std", s.coils.noise_std);
  check_range(source, "coils.noise_correlation", s.coils.noise_correlation);
  // Noise is added by simulate() (core/simulation/src/simulate.cpp): Cartesian and not phase contrast, so far.
  if (s.coils.noise_std > 0 && (q.trajectory != Trajectory::Cartesian || q.type == SequenceType::PhaseContrast))
    throw InputError(source + ": coils.noise_std = " + number_text(s.coils.noise_std) + " with sequence.type '" + name_of(q.type) +
                     "' and trajectory '" + name_of(q.trajectory) + "' (allowed: 0; receiver noise is simulated for Cartesian "
                     "spoiled_gre, spin_echo, bssfp, tof)");

  // Refuse sizes that cannot fit before anything is built: 4 GiB for the phantom and its state.
  const double bytes = static_cast<double>(phantom_memory_bytes(p, q.matrix, q.fov_m));
  constexpr double k_limit = 4.0 * 1024 * 1024 * 1024;
  if (bytes > k_limit)
    throw InputError(source + ": phantom.cells_per_voxel = " + number_text(p.cells_per_voxel) + " with sequence.matrix = " +
                     number_text(q.matrix) + " needs " + number_text(bytes / (1024.0 * 1024 * 1024)) + " GiB; at most 4 GiB allowed");
  // Radial and spiral were only timed above: assembled once the sizes are known to fit (a stack of spirals
  // holds many waveforms).
  if (built && built->seq.blocks.empty()) *built = seq::scenario_blocks(q, source + ": sequence");
}

}  // namespace

void validate_scenario(const Scenario& s, const std::string& source) { check_scenario(s, source, nullptr); }

seq::BuiltSequence validated_sequence(const Scenario& s, const std::string& source) {
  seq::BuiltSequence built;
  check_scenario(s, source, &built);
  return built;
}

Scenario scenario_from_json_text(const std::string& text, const std::string& source, seq::BuiltSequence* built) {
  const json j = parse_strict_json(text, source);
  ObjectReader r(j, source, "");
  const std::string format = r.text("format", "");
  if (format != "mrwb-scenario") r.fail("format", "must be \"mrwb-scenario\"");
  if (!r.has("version")) r.fail("version", "is missing");
  const int version = r.integer("version", 0);
  if (version != k_format_version)
    r.fail("version", "= " + std::to_string(version) + " is not supported (allowed: " + std::to_string(k_format_version) + ")");
  Scenario s;
  s.name = r.text("name", s.name);
  s.description = r.text("description", s.description);
  if (r.has("phantom")) s.phantom = read_phantom(r.object("phantom"), source);
  if (r.has("flow")) s.flow = read_flow(r.object("flow"), source);
  if (r.has("sequence")) s.sequence = read_sequence(r.object("sequence"), source);
  if (r.has("coils")) s.coils = read_coils(r.object("coils"), source);
  if (r.has("recon")) {
    ObjectReader rr(r.object("recon"), source, "recon.");
    if (rr.has("method")) {  // the allowed methods depend on the trajectory (read above with the sequence)
      const std::string method = rr.text("method", {});
      if (const std::optional<ReconMethod> m = parse_recon_method(method)) s.recon.method = *m;
      else check_recon_method(method, s.sequence, source);  // an unknown name: refused, naming the allowed ones
    }
    s.recon.grappa_kernel_pe = rr.integer("grappa_kernel_pe", s.recon.grappa_kernel_pe);
    s.recon.grappa_kernel_ro = rr.integer("grappa_kernel_ro", s.recon.grappa_kernel_ro);
    s.recon.grappa_lambda = rr.number("grappa_lambda", s.recon.grappa_lambda);
    s.recon.grappa_approach = rr.text("grappa_approach", s.recon.grappa_approach);
    s.recon.grappa_eta = rr.number("grappa_eta", s.recon.grappa_eta);
    s.recon.grappa_clip = rr.number("grappa_clip", s.recon.grappa_clip);
    s.recon.cg_iterations = rr.integer("cg_iterations", s.recon.cg_iterations);
    s.recon.cg_lambda = rr.number("cg_lambda", s.recon.cg_lambda);
    if (rr.has("maps")) s.recon.maps = rr.text("maps", {});
    s.recon.cs_regularizer = rr.text("cs_regularizer", s.recon.cs_regularizer);
    s.recon.cs_lambda = rr.number("cs_lambda", s.recon.cs_lambda);
    s.recon.cs_iterations = rr.integer("cs_iterations", s.recon.cs_iterations);
    rr.reject_unknown();
  }
  s.backend = r.named("backend", k_backend_names, s.backend);
  if (r.has("simulation")) {
    ObjectReader m(r.object("simulation"), source, "simulation.");
    s.simulation.model = m.named("model", k_simulation_model_names, s.simulation.model);
    s.simulation.flow_transport = m.named("flow_transport", k_flow_transport_names, s.simulation.flow_transport);
    s.simulation.spins_per_axis = m.integer("spins_per_axis", s.simulation.spins_per_axis);
    m.reject_unknown();
  }
  r.reject_unknown();
  check_scenario(s, source, built);
  s.source = source;
  return s;
}

Scenario load_scenario(const std::string& path, seq::BuiltSequence* built) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open scenario file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return scenario_from_json_text(ss.str(), path, built);
}

std::string scenario_to_json_text(const Scenario& s) {
  const auto& p = s.phantom;
  const auto& q = s.sequence;
  json j = {
      {"format", "mrwb-scenario"},
      {"version", k_format_version},
      {"name", s.name},
      {"description", s.description},
      {"phantom",
       {{"preset", p.preset},
        {"cells_per_voxel", p.cells_per_voxel},
        {"disc_radius_m", p.disc_radius_m},
        {"background_tissue", p.background_tissue},
        {"vessel_tissue", p.vessel_tissue},
        {"vessel_radius_m", p.vessel_radius_m},
        {"vessel_angle_deg", p.vessel_angle_deg},
        {"vessel_offset_m", p.vessel_offset_m}}},
      {"sequence",
       {{"type", name_of(q.type)},
        {"TR_s", q.TR_s},
        {"TE_s", q.TE_s},
        {"flip_angle_deg", q.flip_angle_deg},
        {"fov_m", q.fov_m},
        {"matrix", q.matrix},
        {"bandwidth_Hz_per_pixel", q.bandwidth_Hz_per_pixel},
        {"dummy_scans", q.dummy_scans},
        {"acceleration", q.acceleration},
        {"acs_lines", q.acs_lines}}},
      {"coils", {{"count", s.coils.count}, {"arrangement", s.coils.arrangement}}},
      {"recon",
       {{"method", name_of(s.recon.method)},
        {"grappa_kernel_pe", s.recon.grappa_kernel_pe},
        {"grappa_kernel_ro", s.recon.grappa_kernel_ro},
        {"grappa_lambda", s.recon.grappa_lambda},
        {"grappa_approach", s.recon.grappa_approach},
        {"grappa_eta", s.recon.grappa_eta},
        {"grappa_clip", s.recon.grappa_clip},
        {"cg_iterations", s.recon.cg_iterations},
        {"cg_lambda", s.recon.cg_lambda}}},
      {"backend", name_of(s.backend)},
  };
  if (p.slab_thickness_m != 0) j["phantom"]["slab_thickness_m"] = p.slab_thickness_m;  // 2-D files unchanged
  if (p.preset == "vessel_tree") {
    const auto& t = p.tree;
    j["phantom"]["tree"] = {{"generator", t.generator},
                            {"dims", t.dims},
                            {"seed", t.seed},
                            {"radius_m", t.radius_m},
                            {"length_m", t.length_m},
                            {"angle_deg", t.angle_deg},
                            {"stenosis_degree_percent", t.stenosis_degree_percent},
                            {"lesion_length_m", t.lesion_length_m},
                            {"aneurysm_radius_m", t.aneurysm_radius_m},
                            {"branch_angle1_deg", t.branch_angle1_deg},
                            {"branch_angle2_deg", t.branch_angle2_deg},
                            {"radius_ratio", t.radius_ratio},
                            {"generations", t.generations},
                            {"angle_jitter_deg", t.angle_jitter_deg},
                            {"terminals", t.terminals},
                            {"organ_semi_axes_m", {t.organ_semi_axes_m[0], t.organ_semi_axes_m[1], t.organ_semi_axes_m[2]}}};
    for (const auto& e : t.segment_edits)  // written only when there are edits (exact round trip)
      j["phantom"]["tree"]["segment_edits"].push_back({{"segment", e.segment},
                                                       {"radius_scale", e.radius_scale},
                                                       {"stenosis_degree_percent", e.stenosis_degree_percent},
                                                       {"remove", e.remove}});
  }
  if (s.flow.enabled) {
    const auto& f = s.flow;
    j["flow"] = {{"solver", f.solver},
                 {"inlet_flow_m3_per_s", f.inlet_flow_m3_per_s},
                 {"waveform", f.waveform},
                 {"period_s", f.period_s},
                 {"pulsatility", f.pulsatility},
                 {"time_s", f.time_s},
                 {"viscosity_Pa_s", f.viscosity_Pa_s},
                 {"density_kg_per_m3", f.density_kg_per_m3},
                 {"time_step_s", f.time_step_s},
                 {"lbm_max_steps", f.lbm_max_steps},
                 {"lbm_tolerance", f.lbm_tolerance},
                 {"lbm_u_max", f.lbm_u_max},
                 {"lbm_collision", f.lbm_collision}};
  }
  if (q.trajectory != Trajectory::Cartesian) {
    j["sequence"]["trajectory"] = name_of(q.trajectory);
    j["sequence"]["spokes"] = q.spokes;
    j["sequence"]["interleaves"] = q.interleaves;
    j["sequence"]["design_interleaves"] = q.design_interleaves;
  }
  if (q.type == SequenceType::PhaseContrast) {
    j["sequence"]["venc_m_per_s"] = q.venc_m_per_s;
    j["sequence"]["venc_directions"] = q.venc_directions;
  }
  if (q.type == SequenceType::Tof) j["sequence"]["flow_compensation"] = q.flow_compensation;
  // Written when set, so that files without them (the shipped presets) keep their exact text.
  if (q.acs_mode != "integrated") j["sequence"]["acs_mode"] = q.acs_mode;
  if (q.undersampling != "regular") j["sequence"]["undersampling"] = q.undersampling;
  if (q.undersampling_seed != 1) j["sequence"]["undersampling_seed"] = q.undersampling_seed;
  const ReconSpec recon_defaults;
  if (s.recon.maps) j["recon"]["maps"] = *s.recon.maps;
  if (s.recon.cs_regularizer != recon_defaults.cs_regularizer) j["recon"]["cs_regularizer"] = s.recon.cs_regularizer;
  if (s.recon.cs_lambda != recon_defaults.cs_lambda) j["recon"]["cs_lambda"] = s.recon.cs_lambda;
  if (s.recon.cs_iterations != recon_defaults.cs_iterations) j["recon"]["cs_iterations"] = s.recon.cs_iterations;
  if (q.max_grad_mT_per_m != 0) j["sequence"]["max_grad_mT_per_m"] = q.max_grad_mT_per_m;
  if (q.max_slew_T_per_m_per_s != 0) j["sequence"]["max_slew_T_per_m_per_s"] = q.max_slew_T_per_m_per_s;
  if (q.partial_fourier != 1) j["sequence"]["partial_fourier"] = q.partial_fourier;
  if (q.fidelity != SequenceFidelity{})
    j["sequence"]["fidelity"] = {{"rf", name_of(q.fidelity.rf)},
                                 {"gradients", name_of(q.fidelity.gradients)},
                                 {"spoiling", name_of(q.fidelity.spoiling)}};
  const SequenceSpec q0;  // multi-slice / 3-D fields: written when not the default
  if (q.slices != q0.slices) j["sequence"]["slices"] = q.slices;
  if (q.slice_gap_m != q0.slice_gap_m) j["sequence"]["slice_gap_m"] = q.slice_gap_m;
  if (q.partitions != q0.partitions) j["sequence"]["partitions"] = q.partitions;
  if (q.slice_thickness_m != q0.slice_thickness_m) j["sequence"]["slice_thickness_m"] = q.slice_thickness_m;
  if (s.simulation != SimulationSpec{})  // every field, so the choice reads whole in the file
    j["simulation"] = {{"model", name_of(s.simulation.model)},
                       {"flow_transport", name_of(s.simulation.flow_transport)},
                       {"spins_per_axis", s.simulation.spins_per_axis}};
  if (s.coils.noise_std != 0 || s.coils.noise_correlation != 0) {
    j["coils"]["noise_std"] = s.coils.noise_std;
    j["coils"]["noise_correlation"] = s.coils.noise_correlation;
  }
  return j.dump(2) + "\n";
}

void save_scenario(const Scenario& s, const std::string& path) {
  validate_scenario(s, path);
  AtomicOutput out(path);
  const std::string text = scenario_to_json_text(s);
  out.write_bytes(text.data(), text.size());
  out.commit();
}

std::vector<std::string> scenario_preset_names() {
  return {"default", "straight_vessel", "uniform_disc", "straight_tube", "stenosis_50", "stenosis_75", "bifurcation",
          "multi_bifurcation", "aneurysm_saccular", "aneurysm_fusiform", "liver_tree"};
}

namespace {
// Vessel-tree presets: blood in muscle at 1.5 T with a steady Poiseuille flow of 2 mL/s.
Scenario tree_preset(const std::string& name, const std::string& description, VesselTreeSpec tree) {
  Scenario s;
  s.name = name;
  s.description = description;
  s.sequence.matrix = 128;
  s.sequence.fov_m = 0.128;
  s.phantom.preset = "vessel_tree";
  s.phantom.disc_radius_m = 0.06;
  s.phantom.tree = tree;
  s.flow.enabled = true;
  return s;
}
}  // namespace

Scenario scenario_preset(const std::string& name) {
  Scenario s;
  if (name == "default" || name == "straight_vessel") {
    s.name = name;
    s.description =
        "One straight vessel of blood crossing a disc of skeletal muscle at 1.5 T, imaged with a Cartesian "
        "spoiled gradient echo (static: no flow).";
    s.sequence.matrix = 128;
    s.sequence.fov_m = 0.128;
    s.phantom.preset = "straight_vessel";
    s.phantom.disc_radius_m = 0.05;
    s.phantom.vessel_radius_m = 0.008;
    s.phantom.vessel_angle_deg = 30;
    if (name == "straight_vessel") return s;
    // The first scenario a newcomer runs shows why the simulator exists: flow. Inflow enhancement as in
    // time-of-flight angiography: blood entering the slice has not yet been saturated by the pulses.
    s.description =
        "Blood flowing through a straight vessel (r = 8 mm, 30 degrees, Poiseuille flow of 60 mL/s: 0.3 m/s mean, "
        "like the descending aorta) across a disc of skeletal muscle at 1.5 T, imaged with a spoiled gradient echo "
        "(TR 10 ms, 20 degrees). The still muscle is saturated by the pulses and looks grey; blood entering the "
        "field of view at the lower left has not seen them and is bright, fading downstream as each TR saturates "
        "it, and the fast centre of the laminar profile stays bright furthest: inflow enhancement, the contrast "
        "of time-of-flight angiography. Switch Flow off to see the vessel as still blood.";
    s.phantom.cells_per_voxel = 1;  // 128^2 fluid-carrying cells: a live edit within 5 s on two CPU cores
    s.sequence.dummy_scans = 100;
    s.flow.enabled = true;
    s.flow.inlet_flow_m3_per_s = 6e-5;
    return s;
  }
  if (name == "uniform_disc") {
    s.name = name;
    s.description =
        "A uniform disc of skeletal muscle with one cell per voxel: the FFT reconstruction reproduces the truth "
        "(raise cells_per_voxel to see Gibbs ringing against the voxel-averaged truth).";
    s.phantom.preset = "uniform_disc";
    s.phantom.cells_per_voxel = 1;
    s.sequence.matrix = 64;
    s.phantom.disc_radius_m = 0.04;
    return s;
  }
  VesselTreeSpec t;
  t.radius_m = 0.004;
  // Longer than the 128 mm FOV: the tube's ends lie outside the cell grid, whose edges are the open
  // inflow/outflow boundaries of the transport (vessel ends inside the grid are closed caps).
  t.length_m = 0.14;
  if (name == "straight_tube")
    return tree_preset(name, "A straight tube of blood (r = 4 mm) in muscle with steady Poiseuille flow (2 mL/s).", t);
  if (name == "stenosis_50" || name == "stenosis_75") {
    t.generator = "stenosis";
    t.stenosis_degree_percent = name == "stenosis_50" ? 50 : 75;
    t.lesion_length_m = 0.02;
    return tree_preset(name, "A tube (r = 4 mm) with a " + std::string(name == "stenosis_50" ? "50" : "75") +
                                 " % (diameter) cosine-shaped stenosis 20 mm long; Poiseuille flow 2 mL/s.", t);
  }
  if (name == "bifurcation") {
    t.generator = "bifurcation";
    t.length_m = 0.04;
    return tree_preset(name, "One bifurcation, Murray's-law children (r0^3 = r1^3 + r2^3) at +-35 deg; flow split by "
                             "Poiseuille resistance.", t);
  }
  if (name == "multi_bifurcation") {
    t.generator = "multi_bifurcation";
    t.length_m = 0.03;
    t.generations = 3;
    t.branch_angle1_deg = t.branch_angle2_deg = 30;
    t.angle_jitter_deg = 5;
    t.seed = 4;
    return tree_preset(name, "Three generations of Murray's-law bifurcations (seeded angle jitter 5 deg).", t);
  }
  if (name == "aneurysm_saccular" || name == "aneurysm_fusiform") {
    const bool sac = name == "aneurysm_saccular";
    t.generator = name;
    t.aneurysm_radius_m = sac ? 0.008 : 0.009;
    t.lesion_length_m = 0.03;
    return tree_preset(name, sac ? "A tube (r = 4 mm) with a saccular aneurysm (sac r = 8 mm) on its side; the analytic "
                                   "flow leaves the sac still (use --solver lbm for its vortex)."
                                 : "A tube (r = 4 mm) with a fusiform aneurysm (widest r = 9 mm, 30 mm long).",
                       t);
  }
  if (name == "liver_tree") {
    t.generator = "organ_tree";
    t.radius_m = 0.003;
    t.terminals = 48;
    t.seed = 2016;
    t.organ_semi_axes_m[0] = 0.055;
    t.organ_semi_axes_m[1] = 0.04;
    Scenario s = tree_preset(name, "A liver-like object (Jurczuk et al. 2016): a 48-terminal tree grown by "
                                   "constrained constructive optimisation with Murray's law in an ellipse of liver "
                                   "parenchyma.", t);
    s.phantom.background_tissue = "liver";
    return s;
  }
  std::string list;
  for (const auto& n : scenario_preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("--preset: unknown preset '" + name + "' (allowed: " + list + ")");
}

}  // namespace mrwb
