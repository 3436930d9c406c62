// Refuses schemas that would apply a subschema to the same instance location through
// a loop of references, e.g. {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}:
// evaluating one never ends, so it is an error at compile time, not a hang later.
//
// Contract: runs on fully linked nodes; follows static targets only ("$dynamicRef"
// retargeting at run time is bounded by Limits::max_eval_depth instead).
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "schema/node.h"

namespace mcpsh::schema::detail {

// The error message naming the loop, or nullopt.
std::optional<std::string> find_reference_cycle(const std::deque<Node>& nodes);

}  // namespace mcpsh::schema::detail
