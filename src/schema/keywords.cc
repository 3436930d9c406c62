#include "schema/keywords.h"

#include <algorithm>
#include <limits>

#include "jsonrpc/response.h"
#include "schema/compile_error.h"
#include "schema/dialect.h"
#include "schema/json_util.h"
#include "schema/uri.h"

namespace mcpsh::schema::detail {

const Node* Node::find_property(std::string_view name) const {
  auto it = std::lower_bound(properties.begin(), properties.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  return it != properties.end() && it->first == name ? it->second : nullptr;
}

namespace {

using rapidjson::Value;

int compare_zero(const Value& v) {
  static const Value kZero(0);
  return compare_numbers(v, kZero);
}

uint64_t count_of(const Value& v, std::string_view kw, const std::string& where) {
  if (!is_integer(v) || compare_zero(v) < 0) {
    fail(where, quoted(kw) + " must be a non-negative integer");
  }
  if (v.IsUint64()) return v.GetUint64();
  double d = v.GetDouble();
  return d >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(d);
}

std::vector<std::string_view> string_array(const Value& v, std::string_view kw,
                                           const std::string& where) {
  if (!v.IsArray()) fail(where, quoted(kw) + " must be an array of strings");
  std::vector<std::string_view> out;
  for (const auto& item : v.GetArray()) {
    if (!item.IsString()) fail(where, quoted(kw) + " must be an array of strings");
    out.push_back(as_view(item));
  }
  return out;
}

Pattern compile_pattern(std::string_view source, const std::string& where,
                        const std::string& what) {
  auto compiled = Regex::compile(source);
  if (auto* error = std::get_if<std::string>(&compiled)) {
    fail(where, what + " " + quoted(source) + " is not a supported regular expression: " + *error);
  }
  return Pattern{std::string(source), std::move(std::get<Regex>(compiled))};
}

uint8_t type_bit(std::string_view name) {
  if (name == "null") return kTypeNull;
  if (name == "boolean") return kTypeBoolean;
  if (name == "object") return kTypeObject;
  if (name == "array") return kTypeArray;
  if (name == "number") return kTypeNumber;
  if (name == "string") return kTypeString;
  if (name == "integer") return kTypeInteger;
  return 0;
}

}  // namespace

void compile_keywords(Node& n, const NodeLookup& node_of, std::vector<RefRequest>& refs) {
  if (n.json->IsBool()) {
    n.is_boolean = true;
    n.boolean_value = n.json->GetBool();
    return;
  }
  const Value& v = *n.json;
  const std::string& where = n.location;
  const bool ref_only = n.dialect == Dialect::kDraft07 && v.HasMember("$ref");
  for (const auto& m : v.GetObject()) {
    std::string_view kw = as_view(m.name);
    const Value& x = m.value;
    if (!has_keyword(n.dialect, kw) || (ref_only && kw != "$ref")) continue;
    auto number = [&]() -> const Value* {
      if (!x.IsNumber()) fail(where, quoted(kw) + " must be a number");
      return &x;
    };
    auto reference = [&](RefKind kind) {
      if (!x.IsString()) fail(where, quoted(kw) + " must be a string");
      std::string text(as_view(x));
      if (kind == RefKind::kRecursive && text != "#") {
        fail(where, "\"$recursiveRef\" must be \"#\"");
      }
      refs.push_back({&n, resolve_uri(n.resource->uri, text), text, kind});
    };
    if (kw == "$ref") {
      reference(RefKind::kRef);
    } else if (kw == "$dynamicRef") {
      reference(RefKind::kDynamic);
    } else if (kw == "$recursiveRef") {
      reference(RefKind::kRecursive);
    } else if (kw == "$comment" || kw == "$id" || kw == "$schema") {
      // Checked in walk(); $comment is free text.
    } else if (kw == "type") {
      auto add = [&](const Value& t) {
        uint8_t bit = t.IsString() ? type_bit(as_view(t)) : 0;
        if (bit == 0) {
          fail(where, "unknown type " + (t.IsString() ? quoted(as_view(t)) : jsonrpc::to_json(t)) +
                          " in \"type\" (expected array, boolean, integer, null, number, "
                          "object or string)");
        }
        n.types |= bit;
      };
      if (x.IsArray()) {
        if (x.Empty()) fail(where, "\"type\" must not be an empty array");
        for (const auto& t : x.GetArray()) add(t);
      } else {
        add(x);
      }
    } else if (kw == "enum") {
      if (!x.IsArray()) fail(where, "\"enum\" must be an array");
      n.enum_values = &x;
    } else if (kw == "const") {
      n.const_value = &x;
    } else if (kw == "multipleOf") {
      n.multiple_of = number();
      if (compare_zero(x) <= 0) fail(where, "\"multipleOf\" must be greater than 0");
    } else if (kw == "maximum") {
      n.maximum = number();
    } else if (kw == "exclusiveMaximum") {
      n.exclusive_maximum = number();
    } else if (kw == "minimum") {
      n.minimum = number();
    } else if (kw == "exclusiveMinimum") {
      n.exclusive_minimum = number();
    } else if (kw == "maxLength") {
      n.max_length = count_of(x, kw, where);
    } else if (kw == "minLength") {
      n.min_length = count_of(x, kw, where);
    } else if (kw == "maxItems") {
      n.max_items = count_of(x, kw, where);
    } else if (kw == "minItems") {
      n.min_items = count_of(x, kw, where);
    } else if (kw == "maxContains") {
      n.max_contains = count_of(x, kw, where);
    } else if (kw == "minContains") {
      n.min_contains = count_of(x, kw, where);
    } else if (kw == "maxProperties") {
      n.max_properties = count_of(x, kw, where);
    } else if (kw == "minProperties") {
      n.min_properties = count_of(x, kw, where);
    } else if (kw == "uniqueItems") {
      if (!x.IsBool()) fail(where, "\"uniqueItems\" must be a boolean");
      n.unique_items = x.GetBool();
    } else if (kw == "pattern") {
      if (!x.IsString()) fail(where, "\"pattern\" must be a string");
      n.pattern = compile_pattern(as_view(x), where, "\"pattern\"");
    } else if (kw == "required") {
      n.required = string_array(x, kw, where);
    } else if (kw == "dependentRequired") {
      if (!x.IsObject()) fail(where, "\"dependentRequired\" must be an object");
      for (const auto& e : x.GetObject()) {
        n.dependent_required.emplace_back(as_view(e.name), string_array(e.value, kw, where));
      }
    } else if (kw == "dependencies") {
      for (const auto& e : x.GetObject()) {
        if (e.value.IsArray()) {
          n.dependent_required.emplace_back(as_view(e.name), string_array(e.value, kw, where));
        } else {
          n.dependent_schemas.emplace_back(as_view(e.name), node_of(e.value));
        }
      }
    } else if (kw == "allOf" || kw == "anyOf" || kw == "oneOf" || kw == "prefixItems") {
      auto& list = kw == "allOf"   ? n.all_of
                   : kw == "anyOf" ? n.any_of
                   : kw == "oneOf" ? n.one_of
                                   : n.prefix_items;
      for (const auto& s : x.GetArray()) list.push_back(node_of(s));
    } else if (kw == "items") {
      if (x.IsArray()) {
        for (const auto& s : x.GetArray()) n.prefix_items.push_back(node_of(s));
        if (auto extra = v.FindMember("additionalItems"); extra != v.MemberEnd()) {
          n.items = node_of(extra->value);
        }
      } else {
        n.items = node_of(x);
      }
    } else if (kw == "contains") {
      n.contains = node_of(x);
    } else if (kw == "properties") {
      for (const auto& e : x.GetObject())
        n.properties.emplace_back(as_view(e.name), node_of(e.value));
      std::stable_sort(n.properties.begin(), n.properties.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    } else if (kw == "patternProperties") {
      for (const auto& e : x.GetObject()) {
        n.pattern_properties.emplace_back(
            compile_pattern(as_view(e.name), where + "/patternProperties", "key"),
            node_of(e.value));
      }
    } else if (kw == "additionalProperties") {
      n.additional_properties = node_of(x);
    } else if (kw == "propertyNames") {
      n.property_names = node_of(x);
    } else if (kw == "dependentSchemas") {
      for (const auto& e : x.GetObject()) {
        n.dependent_schemas.emplace_back(as_view(e.name), node_of(e.value));
      }
    } else if (kw == "not") {
      n.not_schema = node_of(x);
    } else if (kw == "if") {
      n.if_schema = node_of(x);
    } else if (kw == "then") {
      n.then_schema = node_of(x);
    } else if (kw == "else") {
      n.else_schema = node_of(x);
    } else if (kw == "unevaluatedItems") {
      n.unevaluated_items = node_of(x);
    } else if (kw == "unevaluatedProperties") {
      n.unevaluated_properties = node_of(x);
    }
  }
  // "then"/"else" without "if" do nothing.
  if (!n.if_schema) n.then_schema = n.else_schema = nullptr;
  // minContains/maxContains without "contains" do nothing.
  if (!n.contains) n.min_contains = n.max_contains = std::nullopt;
}

}  // namespace mcpsh::schema::detail
