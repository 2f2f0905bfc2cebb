#pragma once
// Enums that files, flags and combo boxes spell as text. Each enum has one constexpr table of (value,
// name) pairs beside its declaration; the parser, the writer and the "allowed: ..." lists of messages all
// read that table, so a name is written once.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace mrwb {

template <class E, std::size_t N>
using EnumNames = std::array<std::pair<E, std::string_view>, N>;

// The value named `name`; nullopt for a name not in the table (the caller words the refusal).
template <class E, std::size_t N>
constexpr std::optional<E> enum_from_name(const EnumNames<E, N>& names, std::string_view name) {
  for (const auto& [value, n] : names)
    if (n == name) return value;
  return std::nullopt;
}

// The name of `value`; "?" for a value not in the table (a cast from an integer).
template <class E, std::size_t N>
constexpr std::string_view enum_name(const EnumNames<E, N>& names, E value) {
  for (const auto& [v, n] : names)
    if (v == value) return n;
  return "?";
}

// Every name in table order, as messages list them: "a, b, c".
template <class E, std::size_t N>
std::string enum_name_list(const EnumNames<E, N>& names, std::string_view separator = ", ") {
  std::string out;
  for (const auto& [v, n] : names) {
    if (!out.empty()) out += separator;
    out += n;
  }
  return out;
}

// The name of `value` (its enum's to_string, found by argument-dependent lookup) as a std::string, for
// messages built with +.
template <class E>
std::string name_of(E value) {
  return std::string(to_string(value));
}

}  // namespace mrwb
