// The words of every violation. Messages are written for a language model that must
// fix its tool call: say what was expected, and what was found when that helps.
//
// Contract: pure formatting; values passed in are only read. Long values are
// truncated, so a message stays short whatever the instance holds.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcpsh::schema::detail {

struct Node;

// One step of an instance location: a property name or an array index.
struct PathSegment {
  std::string_view name;
  size_t index = 0;
  bool is_index = false;
};

// `seats[2].row`, `["a b"].c`; "" for the root.
std::string format_path(const std::vector<PathSegment>& path);

// "(root)" for "", else the path itself.
std::string_view display_path(std::string_view path);

// `"text"` as a JSON string literal, cut after ~60 characters.
std::string quote(std::string_view s);
// A value as compact JSON for messages, cut after ~80 characters; containers of
// unbounded depth are summarised instead of printed.
std::string preview(const rapidjson::Value& v);
// "string or null", "integer" ... from a TypeBit set.
std::string type_list(uint8_t types);
// The value list of an enum, as `"a", "b", "c"` (cut after 10 entries).
std::string value_list(const rapidjson::Value& values);
// The schema of `node` as short JSON if it is short, else "the schema at <location>".
std::string schema_hint(const Node& node);

namespace msg {
std::string expected_type(uint8_t types, const rapidjson::Value& got);
std::string not_in_enum(const std::string& allowed, const rapidjson::Value& got);
std::string not_const(const rapidjson::Value& expected);
std::string not_multiple_of(const rapidjson::Value& divisor);
std::string above_maximum(const rapidjson::Value& limit);
std::string not_below(const rapidjson::Value& limit);
std::string below_minimum(const rapidjson::Value& limit);
std::string not_above(const rapidjson::Value& limit);
std::string too_long(uint64_t limit, size_t got);
std::string too_short(uint64_t limit, size_t got);
std::string pattern_mismatch(std::string_view pattern);
std::string too_many_items(uint64_t limit, size_t got);
std::string too_few_items(uint64_t limit, size_t got);
std::string duplicate_items(size_t first, size_t second);
std::string too_few_contains(uint64_t limit, size_t found, const Node& contains);
std::string too_many_contains(uint64_t limit, size_t found, const Node& contains);
std::string unexpected_item(size_t index);
std::string too_many_properties(uint64_t limit, size_t got);
std::string too_few_properties(uint64_t limit, size_t got);
std::string missing_required(std::string_view name);
std::string missing_dependent(std::string_view name, std::string_view trigger);
std::string unexpected_property(std::string_view name,
                                const std::vector<std::string_view>& allowed);
std::string invalid_property_name(std::string_view name, std::string_view problem);
std::string matches_not(const Node& not_schema);
std::string false_schema();
std::string no_alternative(std::string_view keyword, size_t count);
std::string in_alternative(std::string_view message, std::string_view keyword, size_t index);
std::string several_alternatives(const std::vector<size_t>& matching);
std::string one_of_values(const std::string& allowed);
std::string too_expensive();
std::string truncated(size_t shown);
std::string does_not_match();
}  // namespace msg

}  // namespace mcpsh::schema::detail
