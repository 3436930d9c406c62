#include "schema/dialect.h"

#include <array>
#include <cstdint>

namespace mcpsh::schema::detail {
namespace {

constexpr uint8_t k7 = 1;
constexpr uint8_t k19 = 2;
constexpr uint8_t k20 = 4;
constexpr uint8_t kAll = k7 | k19 | k20;

struct KeywordDialects {
  std::string_view keyword;
  uint8_t dialects;
};

constexpr std::array kKeywords{
    KeywordDialects{"$id", kAll},
    KeywordDialects{"$schema", kAll},
    KeywordDialects{"$ref", kAll},
    KeywordDialects{"$comment", kAll},
    KeywordDialects{"$anchor", k19 | k20},
    KeywordDialects{"$defs", k19 | k20},
    KeywordDialects{"definitions", k7 | k19},
    KeywordDialects{"$recursiveRef", k19},
    KeywordDialects{"$recursiveAnchor", k19},
    KeywordDialects{"$dynamicRef", k20},
    KeywordDialects{"$dynamicAnchor", k20},
    KeywordDialects{"allOf", kAll},
    KeywordDialects{"anyOf", kAll},
    KeywordDialects{"oneOf", kAll},
    KeywordDialects{"not", kAll},
    KeywordDialects{"if", kAll},
    KeywordDialects{"then", kAll},
    KeywordDialects{"else", kAll},
    KeywordDialects{"dependentSchemas", k19 | k20},
    KeywordDialects{"dependencies", kAll},  // removed in 2019-09; kept for compatibility
    KeywordDialects{"prefixItems", k20},
    KeywordDialects{"items", kAll},
    KeywordDialects{"additionalItems", k7 | k19},
    KeywordDialects{"contains", kAll},
    KeywordDialects{"properties", kAll},
    KeywordDialects{"patternProperties", kAll},
    KeywordDialects{"additionalProperties", kAll},
    KeywordDialects{"propertyNames", kAll},
    KeywordDialects{"unevaluatedItems", k19 | k20},
    KeywordDialects{"unevaluatedProperties", k19 | k20},
    KeywordDialects{"type", kAll},
    KeywordDialects{"enum", kAll},
    KeywordDialects{"const", kAll},
    KeywordDialects{"multipleOf", kAll},
    KeywordDialects{"maximum", kAll},
    KeywordDialects{"exclusiveMaximum", kAll},
    KeywordDialects{"minimum", kAll},
    KeywordDialects{"exclusiveMinimum", kAll},
    KeywordDialects{"maxLength", kAll},
    KeywordDialects{"minLength", kAll},
    KeywordDialects{"pattern", kAll},
    KeywordDialects{"maxItems", kAll},
    KeywordDialects{"minItems", kAll},
    KeywordDialects{"uniqueItems", kAll},
    KeywordDialects{"maxContains", k19 | k20},
    KeywordDialects{"minContains", k19 | k20},
    KeywordDialects{"maxProperties", kAll},
    KeywordDialects{"minProperties", kAll},
    KeywordDialects{"required", kAll},
    KeywordDialects{"dependentRequired", k19 | k20},
    KeywordDialects{"contentSchema", k19 | k20},
};

uint8_t bit(Dialect d) {
  switch (d) {
    case Dialect::kDraft07:
      return k7;
    case Dialect::kDraft2019_09:
      return k19;
    case Dialect::kDraft2020_12:
      return k20;
  }
  return 0;
}

}  // namespace

std::optional<Dialect> dialect_from_uri(std::string_view uri) {
  if (uri.ends_with("#")) uri.remove_suffix(1);
  if (uri.starts_with("https://")) {
    uri.remove_prefix(8);
  } else if (uri.starts_with("http://")) {
    uri.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  if (uri == "json-schema.org/draft/2020-12/schema") return Dialect::kDraft2020_12;
  if (uri == "json-schema.org/draft/2019-09/schema") return Dialect::kDraft2019_09;
  if (uri == "json-schema.org/draft-07/schema") return Dialect::kDraft07;
  return std::nullopt;
}

std::string_view dialect_name(Dialect d) {
  switch (d) {
    case Dialect::kDraft07:
      return "draft-07";
    case Dialect::kDraft2019_09:
      return "2019-09";
    case Dialect::kDraft2020_12:
      return "2020-12";
  }
  return "?";
}

bool has_keyword(Dialect d, std::string_view keyword) {
  for (const auto& k : kKeywords) {
    if (k.keyword == keyword) return (k.dialects & bit(d)) != 0;
  }
  return false;
}

}  // namespace mcpsh::schema::detail
