#include "schema/messages.h"

#include "jsonrpc/json_write.h"
#include "jsonrpc/response.h"
#include "schema/json_util.h"
#include "schema/node.h"

namespace mcpsh::schema::detail {
namespace {

constexpr size_t kQuoteChars = 60;
constexpr size_t kPreviewChars = 80;
constexpr size_t kListEntries = 10;
constexpr size_t kHintChars = 100;

bool bare_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Cuts at a code point boundary.
std::string_view cut(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

std::string count(uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

std::string kind_and_value(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean " + preview(v);
    case rapidjson::kNumberType:
      return (is_integer(v) ? "integer " : "number ") + preview(v);
    case rapidjson::kStringType:
      return "string " + preview(v);
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kObjectType:
      return "object";
  }
  return "value";
}

// Whether printing `v` is cheap: few nodes and shallow. Iterative, stops early.
bool small(const rapidjson::Value& v) {
  constexpr size_t kMaxNodes = 64;
  std::vector<std::pair<const rapidjson::Value*, int>> stack{{&v, 0}};
  size_t nodes = 0;
  while (!stack.empty()) {
    auto [at, depth] = stack.back();
    stack.pop_back();
    if (++nodes > kMaxNodes || depth > 8) return false;
    if (at->IsArray()) {
      if (at->Size() > kMaxNodes) return false;
      for (const auto& x : at->GetArray()) stack.emplace_back(&x, depth + 1);
    } else if (at->IsObject()) {
      if (at->MemberCount() > kMaxNodes) return false;
      for (const auto& m : at->GetObject()) stack.emplace_back(&m.value, depth + 1);
    }
  }
  return true;
}

}  // namespace

std::string format_path(const std::vector<PathSegment>& path) {
  std::string out;
  for (const auto& seg : path) {
    if (seg.is_index) {
      out += "[" + std::to_string(seg.index) + "]";
    } else if (bare_name(seg.name)) {
      if (!out.empty()) out += ".";
      out += seg.name;
    } else {
      out += "[" + quote(seg.name) + "]";
    }
  }
  return out;
}

std::string_view display_path(std::string_view path) { return path.empty() ? "(root)" : path; }

std::string quote(std::string_view s) {
  std::string_view shown = cut(s, kQuoteChars);
  std::string out;
  jsonrpc::append_json_string(out, shown);
  if (shown.size() < s.size()) out.insert(out.size() - 1, "...");
  return out;
}

std::string preview(const rapidjson::Value& v) {
  if (v.IsString()) return quote(as_view(v));
  if ((v.IsArray() || v.IsObject()) && !small(v)) {
    return v.IsArray() ? "[...]" : "{...}";
  }
  std::string text = jsonrpc::to_json(v);
  if (text.size() > kPreviewChars) text = std::string(cut(text, kPreviewChars)) + "...";
  return text;
}

std::string type_list(uint8_t types) {
  static constexpr std::pair<uint8_t, std::string_view> kNames[] = {
      {kTypeString, "string"},   {kTypeInteger, "integer"}, {kTypeNumber, "number"},
      {kTypeBoolean, "boolean"}, {kTypeObject, "object"},   {kTypeArray, "array"},
      {kTypeNull, "null"}};
  std::vector<std::string_view> names;
  for (auto [bit, name] : kNames) {
    if (bit == kTypeInteger && (types & kTypeNumber)) continue;  // implied by "number"
    if (types & bit) names.push_back(name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

std::string value_list(const rapidjson::Value& values) {
  std::string out;
  rapidjson::SizeType shown = 0;
  for (const auto& v : values.GetArray()) {
    if (shown == kListEntries) {
      out += ", ... (" + std::to_string(values.Size()) + " values)";
      break;
    }
    if (shown++ > 0) out += ", ";
    out += preview(v);
  }
  return out;
}

std::string schema_hint(const Node& node) {
  if (small(*node.json)) {
    std::string text = jsonrpc::to_json(*node.json);
    if (text.size() <= kHintChars) return text;
  }
  return "the schema at " + node.location;
}

namespace msg {

std::string expected_type(uint8_t types, const rapidjson::Value& got) {
  return "expected " + type_list(types) + ", got " + kind_and_value(got);
}
std::string not_in_enum(const std::string& allowed, const rapidjson::Value& got) {
  return "must be one of " + allowed + ", got " + preview(got);
}
std::string not_const(const rapidjson::Value& expected) {
  return "must be exactly " + preview(expected);
}
std::string not_multiple_of(const rapidjson::Value& divisor) {
  return "must be a multiple of " + preview(divisor);
}
std::string above_maximum(const rapidjson::Value& limit) {
  return "must be at most " + preview(limit);
}
std::string not_below(const rapidjson::Value& limit) {
  return "must be less than " + preview(limit);
}
std::string below_minimum(const rapidjson::Value& limit) {
  return "must be at least " + preview(limit);
}
std::string not_above(const rapidjson::Value& limit) {
  return "must be greater than " + preview(limit);
}
std::string too_long(uint64_t limit, size_t got) {
  return "must be at most " + count(limit, "character", "characters") + " long (got " +
         std::to_string(got) + ")";
}
std::string too_short(uint64_t limit, size_t got) {
  return "must be at least " + count(limit, "character", "characters") + " long (got " +
         std::to_string(got) + ")";
}
std::string pattern_mismatch(std::string_view pattern) {
  return "must match the pattern " + quote(pattern);
}
std::string too_many_items(uint64_t limit, size_t got) {
  if (limit == 0) return "must be an empty array (got " + count(got, "item", "items") + ")";
  return "must have at most " + count(limit, "item", "items") + " (got " + std::to_string(got) +
         ")";
}
std::string too_few_items(uint64_t limit, size_t got) {
  return "must have at least " + count(limit, "item", "items") + " (got " + std::to_string(got) +
         ")";
}
std::string duplicate_items(size_t first, size_t second) {
  return "items must be unique, but items " + std::to_string(first) + " and " +
         std::to_string(second) + " are equal";
}
std::string too_few_contains(uint64_t limit, size_t found, const Node& contains) {
  return "must contain at least " + count(limit, "item", "items") + " matching " +
         schema_hint(contains) + " (found " + std::to_string(found) + ")";
}
std::string too_many_contains(uint64_t limit, size_t found, const Node& contains) {
  return "must contain at most " + count(limit, "item", "items") + " matching " +
         schema_hint(contains) + " (found " + std::to_string(found) + ")";
}
std::string unexpected_item(size_t index) {
  return "unexpected item at index " + std::to_string(index) + " (not allowed by the schema)";
}
std::string too_many_properties(uint64_t limit, size_t got) {
  return "must have at most " + count(limit, "property", "properties") + " (got " +
         std::to_string(got) + ")";
}
std::string too_few_properties(uint64_t limit, size_t got) {
  return "must have at least " + count(limit, "property", "properties") + " (got " +
         std::to_string(got) + ")";
}
std::string missing_required(std::string_view name) {
  return "missing required property " + quote(name);
}
std::string missing_dependent(std::string_view name, std::string_view trigger) {
  return "missing property " + quote(name) + ", required when " + quote(trigger) + " is present";
}
std::string unexpected_property(std::string_view name,
                                const std::vector<std::string_view>& allowed) {
  std::string out = "unexpected property " + quote(name);
  if (allowed.empty()) return out;
  out += " (allowed: ";
  for (size_t i = 0; i < allowed.size() && i < kListEntries; ++i) {
    if (i > 0) out += ", ";
    out += quote(allowed[i]);
  }
  if (allowed.size() > kListEntries) out += ", ...";
  return out + ")";
}
std::string invalid_property_name(std::string_view name, std::string_view problem) {
  return "invalid property name " + quote(name) + ": " + std::string(problem);
}
std::string matches_not(const Node& not_schema) {
  return "must not match " + schema_hint(not_schema);
}
std::string false_schema() { return "not allowed here"; }
std::string no_alternative(std::string_view keyword, size_t count) {
  return "must match one of the " + std::to_string(count) + " alternatives in " +
         std::string(keyword) + ", but matches none; closest failures follow";
}
std::string in_alternative(std::string_view message, std::string_view keyword, size_t index) {
  return std::string(message) + " (in " + std::string(keyword) + "[" + std::to_string(index) + "])";
}
std::string several_alternatives(const std::vector<size_t>& matching) {
  std::string out = "must match exactly one alternative in oneOf, but matches ";
  for (size_t i = 0; i < matching.size(); ++i) {
    if (i > 0) out += i + 1 == matching.size() ? " and " : ", ";
    out += "oneOf[" + std::to_string(matching[i]) + "]";
  }
  return out;
}
std::string one_of_values(const std::string& allowed) { return "must be one of " + allowed; }
std::string too_expensive() { return "schema too expensive to evaluate"; }
std::string truncated(size_t shown) {
  return "more violations not shown (only the first " + std::to_string(shown) + " are listed)";
}
std::string does_not_match() { return "does not match the schema"; }

}  // namespace msg
}  // namespace mcpsh::schema::detail
