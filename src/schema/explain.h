// What to tell when no alternative of an anyOf/oneOf matched. Listing every failure of
// every alternative buries the answer, so:
// - alternatives that fail on the value's very type are ruled out; if all are, the
//   answer is the union of the expected types ("expected string or null, got ...");
// - if every alternative only rejects the value itself, the answer is the union of the
//   allowed values;
// - a member whose const/enum every remaining alternative rejects is a discriminator,
//   and its allowed values are the answer; otherwise alternatives whose discriminator
//   rejects the value are ruled out;
// - if one alternative is left, its own violations are the answer; else a summary
//   line and the failures of (at most three) remaining alternatives, each marked.
//
// Contract: `failures[i]` holds alternative i's issues, which are moved out; `here`
// and `depth` are the instance location of the anyOf/oneOf.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "schema/issues.h"

namespace mcpsh::schema::detail {

void explain_failures(std::string_view keyword, std::vector<Sink>& failures,
                      const std::string& here, size_t depth, const rapidjson::Value& v, Sink& out);

}  // namespace mcpsh::schema::detail
