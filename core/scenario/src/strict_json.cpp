#include "strict_json.hpp"

#include <cstdio>
#include <set>
#include <vector>

#include "mrwb/base/errors.hpp"

namespace mrwb {

bool has_control_characters(std::string_view s) {
  for (const char ch : s)
    if (const auto c = static_cast<unsigned char>(ch); c < 0x20 || c == 0x7f) return true;
  return false;
}

std::string printable(std::string_view s, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max) return out + "...";
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

nlohmann::json parse_strict_json(const std::string& text, const std::string& source) {
  using nlohmann::json;
  // Per open object: the keys met so far, and the path of keys down to it (for the message).
  struct Open {
    std::set<std::string> keys;
    std::string last;
  };
  std::vector<Open> open;
  const auto path = [&](const std::string& key) {
    std::string p;
    for (std::size_t i = 0; i + 1 < open.size(); ++i) p += open[i].last + ".";
    return p + key;
  };
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == json::parse_event_t::key && !open.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!open.back().keys.insert(key).second)
        throw InputError(source + ": " + printable(path(key)) + " appears twice in one object (allowed: each key once)");
      open.back().last = key;
    }
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::parse_error& e) {
    throw InputError(source + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::out_of_range& e) {
    // 406: a number literal beyond a double ("1e999"); nlohmann names the literal after "] ".
    const std::string_view what = e.what();
    const std::size_t at = what.find("] ");
    throw InputError(source + ": not valid JSON: " +
                     printable(at == std::string_view::npos ? what : what.substr(at + 2)) +
                     " (allowed: numbers within a double's range, |x| < 1.8e308)");
  } catch (const json::exception& e) {
    throw InputError(source + ": not valid JSON (" + printable(e.what()) + ")");
  }
}

}  // namespace mrwb
