// The compiled form of a schema: one Node per subschema, linked by plain pointers.
//
// Contract: built only by compiler.cc; immutable once compile_schema() returns. All
// pointers (Node*, Resource*, rapidjson::Value*, string_views into keyword values) point
// into the SchemaData that owns them, so a SchemaData is only ever handled through a
// shared_ptr and never copied.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schema/json_schema.h"
#include "schema/regex.h"

namespace mcpsh::schema::detail {

struct Node;

// A schema resource: a document root or a subschema with "$id". Resources are what the
// dynamic scope is made of.
struct Resource {
  std::string uri;  // base URI, no fragment; "" for a root schema without "$id"
  const rapidjson::Value* root = nullptr;
  // "$dynamicAnchor" names (and kRecursiveAnchor for 2019-09) defined in this resource.
  std::unordered_map<std::string, const Node*> dynamic_anchors;
};

// The 2019-09 "$recursiveAnchor": true, handled as a dynamic anchor with a name no
// "$dynamicAnchor" can have.
inline constexpr std::string_view kRecursiveAnchor = "#recursive";

enum TypeBit : uint8_t {
  kTypeNull = 1,
  kTypeBoolean = 2,
  kTypeObject = 4,
  kTypeArray = 8,
  kTypeNumber = 16,
  kTypeString = 32,
  kTypeInteger = 64,
};

struct Pattern {
  std::string source;
  Regex regex;
};

struct Node {
  const rapidjson::Value* json = nullptr;
  std::string location;  // "#/properties/a": JSON pointer from the document root
  const Resource* resource = nullptr;
  Dialect dialect = Dialect::kDraft2020_12;
  size_t index = 0;  // position in SchemaData::nodes
  bool is_boolean = false;
  bool boolean_value = true;

  // Assertions.
  uint8_t types = 0;  // TypeBit set; 0 when "type" is absent
  const rapidjson::Value* enum_values = nullptr;
  const rapidjson::Value* const_value = nullptr;
  const rapidjson::Value* multiple_of = nullptr;
  const rapidjson::Value* maximum = nullptr;
  const rapidjson::Value* exclusive_maximum = nullptr;
  const rapidjson::Value* minimum = nullptr;
  const rapidjson::Value* exclusive_minimum = nullptr;
  std::optional<uint64_t> max_length, min_length;
  std::optional<uint64_t> max_items, min_items;
  std::optional<uint64_t> max_contains, min_contains;
  std::optional<uint64_t> max_properties, min_properties;
  bool unique_items = false;
  std::optional<Pattern> pattern;
  std::vector<std::string_view> required;
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> dependent_required;

  // Applicators to the same instance.
  const Node* ref = nullptr;
  const Node* dynamic_ref = nullptr;  // static target of "$dynamicRef" / "$recursiveRef"
  std::string dynamic_anchor;         // non-empty: resolve through the dynamic scope
  std::vector<const Node*> all_of, any_of, one_of;
  const Node* not_schema = nullptr;
  const Node* if_schema = nullptr;
  const Node* then_schema = nullptr;
  const Node* else_schema = nullptr;
  std::vector<std::pair<std::string_view, const Node*>> dependent_schemas;

  // Applicators to children of the instance.
  std::vector<const Node*> prefix_items;
  const Node* items = nullptr;  // items after prefix_items
  const Node* contains = nullptr;
  std::vector<std::pair<std::string_view, const Node*>> properties;  // sorted by name
  std::vector<std::pair<Pattern, const Node*>> pattern_properties;
  const Node* additional_properties = nullptr;
  const Node* property_names = nullptr;
  const Node* unevaluated_items = nullptr;
  const Node* unevaluated_properties = nullptr;

  bool is_false() const { return is_boolean && !boolean_value; }
  bool needs_annotations() const { return unevaluated_items || unevaluated_properties; }
  const Node* find_property(std::string_view name) const;
};

struct SchemaData {
  Limits limits;
  std::vector<std::unique_ptr<rapidjson::Document>> documents;  // [0]: the schema
  std::deque<Node> nodes;                                       // deque: stable addresses
  std::deque<Resource> resources;
  const Node* root = nullptr;
};

}  // namespace mcpsh::schema::detail
