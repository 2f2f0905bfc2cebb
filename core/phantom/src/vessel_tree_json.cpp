// JSON form of a vessel tree. nlohmann-json writes doubles in the shortest form that reads back to the
// same bits, so a round trip is exact.
#include <nlohmann/json.hpp>

#include "mrwb/base/errors.hpp"
#include "mrwb/phantom/vessel_tree.hpp"

namespace mrwb {
namespace {
using nlohmann::json;

json point(const Vec3& p) { return json::array({p.x, p.y, p.z}); }

Vec3 read_point(const json& j, const std::string& field, const std::string& source) {
  if (!j.is_array() || j.size() != 3 || !j[0].is_number() || !j[1].is_number() || !j[2].is_number())
    throw InputError(source + ": " + field + " must be [x, y, z] in metres");
  return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()};
}

void only_keys(const json& j, std::initializer_list<const char*> keys, const std::string& field, const std::string& source) {
  if (!j.is_object()) throw InputError(source + ": " + field + " must be a JSON object");
  for (const auto& [k, v] : j.items()) {
    bool known = false;
    for (const char* key : keys) known |= k == key;
    if (!known) throw InputError(source + ": " + field + "." + k + " is not a known field");
  }
  for (const char* key : keys)
    if (!j.contains(key)) throw InputError(source + ": " + field + "." + key + " is missing");
}
}  // namespace

std::string vessel_tree_to_json_text(const VesselTree& t) {
  json segs = json::array();
  for (const auto& s : t.segments) {
    json c = json::array();
    for (const auto& p : s.centreline_m) c.push_back(point(p));
    segs.push_back({{"parent", s.parent}, {"children", s.children}, {"centreline_m", c}, {"radius_m", s.radius_m}});
  }
  json sacs = json::array();
  for (const auto& a : t.sacs) sacs.push_back({{"segment", a.segment}, {"centre_m", point(a.centre_m)}, {"radius_m", a.radius_m}});
  json j = {{"format", "mrwb-vessel-tree"}, {"version", 1}, {"dims", t.dims}, {"segments", segs}, {"sacs", sacs}};
  return j.dump(1) + "\n";
}

VesselTree vessel_tree_from_json_text(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(source + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  try {
    only_keys(j, {"format", "version", "dims", "segments", "sacs"}, "tree", source);
    if (j["format"] != "mrwb-vessel-tree") throw InputError(source + ": format must be \"mrwb-vessel-tree\"");
    if (j["version"] != 1) throw InputError(source + ": version is not supported (allowed: 1)");
    VesselTree t;
    t.dims = j["dims"].get<int>();
    for (std::size_t i = 0; i < j["segments"].size(); ++i) {
      const json& s = j["segments"][i];
      const std::string f = "segments[" + std::to_string(i) + "]";
      only_keys(s, {"parent", "children", "centreline_m", "radius_m"}, f, source);
      VesselSegment g;
      g.parent = s["parent"].get<int>();
      g.children = s["children"].get<std::vector<int>>();
      for (const auto& p : s["centreline_m"]) g.centreline_m.push_back(read_point(p, f + ".centreline_m", source));
      g.radius_m = s["radius_m"].get<std::vector<double>>();
      t.segments.push_back(std::move(g));
    }
    for (std::size_t i = 0; i < j["sacs"].size(); ++i) {
      const json& s = j["sacs"][i];
      const std::string f = "sacs[" + std::to_string(i) + "]";
      only_keys(s, {"segment", "centre_m", "radius_m"}, f, source);
      t.sacs.push_back({s["segment"].get<int>(), read_point(s["centre_m"], f + ".centre_m", source), s["radius_m"].get<double>()});
    }
    validate_vessel_tree(t, source);
    return t;
  } catch (const json::exception& e) {
    throw InputError(source + ": malformed vessel tree (" + std::string(e.what()).substr(0, 120) + ")");
  }
}

}  // namespace mrwb
