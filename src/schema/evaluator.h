// Validation of an instance against compiled schema data: applies every keyword,
// tracks the annotations "unevaluatedItems"/"unevaluatedProperties" need, follows
// "$dynamicRef" through the dynamic scope, and charges all work to Limits::max_steps.
//
// Contract: reads SchemaData and the instance only; all state lives in the call, so
// concurrent calls on one SchemaData are safe.
#pragma once

#include <rapidjson/document.h>

#include <vector>

#include "schema/json_schema.h"
#include "schema/node.h"

namespace mcpsh::schema::detail {

std::vector<Violation> collect_violations(const SchemaData& data, const rapidjson::Value& instance);
bool instance_accepted(const SchemaData& data, const rapidjson::Value& instance);

}  // namespace mcpsh::schema::detail
