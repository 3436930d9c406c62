// How compilation stops: the first problem found is thrown as a CompileError and
// becomes the string compile() returns.
//
// Contract: thrown only inside compile_schema(), which catches it; never crosses the
// public API.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "jsonrpc/json_write.h"
#include "schema/json_util.h"

namespace mcpsh::schema::detail {

struct CompileError {
  std::string message;
};

// "invalid schema at #/properties/a: <what>".
[[noreturn]] inline void fail(const std::string& location, const std::string& what) {
  throw CompileError{"invalid schema at " + location + ": " + what};
}

// As a JSON string literal, uncut (schemas are the author's own text).
inline std::string quoted(std::string_view s) {
  std::string out;
  jsonrpc::append_json_string(out, s);
  return out;
}

inline std::string kind_of(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kNumberType:
      return "number";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kObjectType:
      return "object";
  }
  return "value";
}

}  // namespace mcpsh::schema::detail
