// Reading one schema object's keywords into its Node: checks each value's shape
// ("maximum" must be a number...), compiles patterns, links subschemas, and collects
// the references for the compiler to resolve.
//
// Contract: every subschema of the object must already have a Node (the compiler's
// walk creates them); throws CompileError on the first invalid keyword value. Keywords
// the node's dialect does not define are ignored (they are annotations).
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <string>
#include <vector>

#include "schema/node.h"

namespace mcpsh::schema::detail {

enum class RefKind { kRef, kDynamic, kRecursive };

struct RefRequest {
  Node* node;
  std::string uri;   // resolved against the node's base URI
  std::string text;  // as written, for messages
  RefKind kind;
};

using NodeLookup = std::function<Node*(const rapidjson::Value&)>;

void compile_keywords(Node& n, const NodeLookup& node_of, std::vector<RefRequest>& refs);

}  // namespace mcpsh::schema::detail
