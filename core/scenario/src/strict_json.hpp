#pragma once
// JSON as the scenario format reads it: nlohmann's parser, made strict where it is lenient and with our
// one-line messages where it throws its own.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mrwb {

// Parses `text`; throws InputError naming `source` for invalid JSON (with the byte), a number beyond a
// double's range (nlohmann's out_of_range, which its parse_error does not cover), and a key that appears
// twice in one object (nlohmann keeps the last silently, so a bad first value would pass unseen).
nlohmann::json parse_strict_json(const std::string& text, const std::string& source);

// Whether `s` holds a control character (below 0x20, or 0x7f).
bool has_control_characters(std::string_view s);

// `s` as it may appear inside a one-line message: control characters (a NUL would cut the message, a
// newline split it) written as \xNN, and at most `max` characters, then "...".
std::string printable(std::string_view s, std::size_t max = 80);

}  // namespace mrwb
