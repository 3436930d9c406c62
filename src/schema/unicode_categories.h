// Unicode General_Category data for the regex engine's \p{...} / \P{...} escapes.
//
// Contract: static tables generated from Unicode 14.0 (see unicode_categories.cc);
// lookups are pure.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpsh::schema::detail {

// Sorted, disjoint, inclusive code point ranges for an ECMA-262 property expression:
// a General_Category value by short or long name or alias ("L", "Letter", "Lu",
// "Uppercase_Letter", "digit", ...), optionally written "gc=..." or
// "General_Category=...", or one of the binary properties Any, ASCII, Assigned.
// nullopt for anything else (scripts and other properties are not supported).
std::optional<std::vector<std::pair<char32_t, char32_t>>> unicode_property(std::string_view name);

}  // namespace mcpsh::schema::detail
