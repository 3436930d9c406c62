#include "mcp/x_mcp_header.h"

#include <array>
#include <string_view>

#include "mcp/header_value.h"

namespace mcpsh::mcp {

namespace {

constexpr const char* kKeyword = "x-mcp-header";

// JSON Schema 2020-12 keywords (and draft names still met in the wild) whose values are
// subschemas. Anything else (enum, const, default, examples, unknown keywords) is data,
// never searched for annotations.
constexpr std::array<std::string_view, 5> kSchemaMaps = {"properties", "patternProperties", "$defs",
                                                         "definitions", "dependentSchemas"};
constexpr std::array<std::string_view, 12> kSchemaValues = {"items",
                                                            "additionalProperties",
                                                            "not",
                                                            "if",
                                                            "then",
                                                            "else",
                                                            "contains",
                                                            "propertyNames",
                                                            "unevaluatedItems",
                                                            "unevaluatedProperties",
                                                            "additionalItems",
                                                            "contentSchema"};
constexpr std::array<std::string_view, 4> kSchemaArrays = {"allOf", "anyOf", "oneOf",
                                                           "prefixItems"};

template <std::size_t N>
bool one_of(std::string_view key, const std::array<std::string_view, N>& keys) {
  for (auto k : keys)
    if (k == key) return true;
  return false;
}

bool tchar(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool primitive_type_name(std::string_view t) {
  return t == "string" || t == "integer" || t == "boolean";
}

// "string", "integer", "boolean", or an array of exactly one of them and optionally "null".
bool primitive_type(const rapidjson::Value& schema) {
  auto type = schema.FindMember("type");
  if (type == schema.MemberEnd()) return false;
  if (type->value.IsString()) return primitive_type_name(type->value.GetString());
  if (!type->value.IsArray()) return false;
  int primitives = 0;
  for (const auto& t : type->value.GetArray()) {
    if (!t.IsString()) return false;
    std::string_view name = t.GetString();
    if (primitive_type_name(name))
      ++primitives;
    else if (name != "null")
      return false;
  }
  return primitives == 1;
}

std::string pointer_text(const std::string& pointer) { return pointer.empty() ? "/" : pointer; }

// JSON Pointer escaping of one reference token.
std::string token(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

struct Walk {
  std::vector<HeaderParam> found;
  std::string error;

  // `path` holds the property names of a schema reached through `properties` alone;
  // `reachable` is false anywhere else.
  void schema(const rapidjson::Value& s, const std::string& pointer, std::vector<std::string>& path,
              bool reachable) {
    if (!s.IsObject() || !error.empty()) return;
    for (const auto& m : s.GetObject()) {
      if (!error.empty()) return;
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      std::string at = pointer + "/" + token(key);
      if (key == kKeyword) {
        annotation(s, m.value, pointer, path, reachable);
      } else if (one_of(key, kSchemaMaps) && m.value.IsObject()) {
        for (const auto& child : m.value.GetObject()) {
          std::string name(child.name.GetString(), child.name.GetStringLength());
          path.push_back(name);
          schema(child.value, at + "/" + token(name), path, reachable && key == "properties");
          path.pop_back();
        }
      } else if (one_of(key, kSchemaValues) || (key == "items" && m.value.IsArray())) {
        std::vector<std::string> none;
        if (m.value.IsArray()) {
          for (rapidjson::SizeType i = 0; i < m.value.Size(); ++i)
            schema(m.value[i], at + "/" + std::to_string(i), none, false);
        } else {
          schema(m.value, at, none, false);
        }
      } else if (one_of(key, kSchemaArrays) && m.value.IsArray()) {
        std::vector<std::string> none;
        for (rapidjson::SizeType i = 0; i < m.value.Size(); ++i)
          schema(m.value[i], at + "/" + std::to_string(i), none, false);
      }
    }
  }

  void annotation(const rapidjson::Value& owner, const rapidjson::Value& value,
                  const std::string& pointer, const std::vector<std::string>& path,
                  bool reachable) {
    const std::string where = "x-mcp-header at " + pointer_text(pointer);
    if (!reachable || path.empty()) {
      error = where + " is not on a property reached from the root through \"properties\" alone";
      return;
    }
    if (!value.IsString()) {
      error = where + " must be a string";
      return;
    }
    std::string_view name(value.GetString(), value.GetStringLength());
    if (name.empty()) {
      error = where + " is empty";
      return;
    }
    for (char c : name)
      if (!tchar(static_cast<unsigned char>(c))) {
        error = where + " \"" + std::string(name) +
                "\" holds a character an HTTP header name may not (only letters, digits and "
                "!#$%&'*+-.^_`|~)";
        return;
      }
    if (!primitive_type(owner)) {
      error = where + " \"" + std::string(name) +
              "\": only a property of type string, integer or boolean can be mirrored into a "
              "header";
      return;
    }
    for (const auto& earlier : found)
      if (same_ignoring_case(earlier.name, name)) {
        error = where + " \"" + std::string(name) + "\" repeats \"" + earlier.name +
                "\" (header names ignore case)";
        return;
      }
    found.push_back(HeaderParam{std::string(name), path});
  }
};

}  // namespace

std::variant<std::vector<HeaderParam>, std::string> read_header_params(
    const rapidjson::Value& input_schema) {
  Walk walk;
  std::vector<std::string> path;
  walk.schema(input_schema, "", path, true);
  if (!walk.error.empty()) return walk.error;
  return std::move(walk.found);
}

}  // namespace mcpsh::mcp
