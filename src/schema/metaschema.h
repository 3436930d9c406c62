// The 2020-12 metaschema and its vocabulary metaschemas, embedded so that
// {"$ref": "https://json-schema.org/draft/2020-12/schema"} resolves without any fetch.
//
// Contract: static, immutable text; loaded by the compiler only when a reference
// points under https://json-schema.org/draft/2020-12/.
#pragma once

#include <span>
#include <string_view>

namespace mcpsh::schema::detail {

struct EmbeddedSchema {
  std::string_view uri;   // its "$id"
  std::string_view json;  // the document
};

std::span<const EmbeddedSchema> metaschemas_2020_12();

}  // namespace mcpsh::schema::detail
