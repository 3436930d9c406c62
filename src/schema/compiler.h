// Schema compilation: finds every subschema, "$id", "$anchor" and "$dynamicAnchor",
// checks each keyword's value, resolves references, and rejects what would make
// validation unbounded (nesting, size, reference cycles that never consume input).
//
// Contract: takes ownership of the parsed schema document; returns the finished,
// immutable SchemaData or one error message. Never reads files or the network; the
// only documents besides the schema are the embedded 2020-12 metaschemas.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "schema/json_schema.h"
#include "schema/node.h"

namespace mcpsh::schema::detail {

// Refuses JSON nested deeper than max_depth subschemas can need (only deep "const" or
// "enum" data could be), before anything recurses over it. Iterative.
std::optional<std::string> check_nesting(const rapidjson::Value& schema, const Limits& limits);

std::variant<std::shared_ptr<const SchemaData>, std::string> compile_schema(
    std::unique_ptr<rapidjson::Document> schema, const Limits& limits, Dialect default_dialect);

}  // namespace mcpsh::schema::detail
