#include "mrwb/scenario/scenario_field.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "mrwb/base/errors.hpp"

namespace mrwb {
namespace {

// The JSON value at "a.b.c"; nullptr when a part is missing.
nlohmann::json* at_path(nlohmann::json& j, const std::string& field) {
  nlohmann::json* node = &j;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = field.find('.', start);
    const std::string part = field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

nlohmann::json numeric_field(nlohmann::json& j, const std::string& field, const std::string& source, nlohmann::json** out) {
  nlohmann::json* v = at_path(j, field);
  if (!v || !v->is_number())
    throw InputError(source + ": " + field + " is not a numeric field of this scenario");
  *out = v;
  return *v;
}

}  // namespace

Scenario scenario_with_field(const Scenario& s, const std::string& field, double value, const std::string& source) {
  nlohmann::json j = nlohmann::json::parse(scenario_to_json_text(s));
  nlohmann::json* v = nullptr;
  numeric_field(j, field, source, &v);
  if (v->is_number_integer()) {
    if (value != std::floor(value)) throw InputError(source + ": " + field + " = " + std::to_string(value) + ": an integer field");
    *v = static_cast<long long>(value);
  } else {
    *v = value;
  }
  return scenario_from_json_text(j.dump(), source);
}

double scenario_field_value(const Scenario& s, const std::string& field) {
  nlohmann::json j = nlohmann::json::parse(scenario_to_json_text(s));
  nlohmann::json* v = nullptr;
  return numeric_field(j, field, "scenario", &v).get<double>();
}

}  // namespace mrwb
