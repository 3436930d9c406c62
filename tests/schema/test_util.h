// Helpers shared by the schema unit tests: compile or fail the test, parse JSON.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "schema/json_schema.h"

namespace mcpsh::schema::testing {

inline rapidjson::Document parse(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  EXPECT_FALSE(doc.HasParseError()) << "bad test JSON: " << json;
  return doc;
}

inline CompiledSchema compile_or_die(std::string_view schema, Limits limits = {}) {
  auto result = CompiledSchema::compile_text(schema, limits);
  if (auto* error = std::get_if<std::string>(&result)) {
    ADD_FAILURE() << "compile failed: " << *error << "\nschema: " << schema;
    return std::get<CompiledSchema>(CompiledSchema::compile_text("true"));
  }
  return std::get<CompiledSchema>(std::move(result));
}

inline std::string compile_error(std::string_view schema, Limits limits = {}) {
  auto result = CompiledSchema::compile_text(schema, limits);
  if (auto* error = std::get_if<std::string>(&result)) return *error;
  return "(compiled)";
}

// describe() of validating `instance`, "" when valid; also checks accepts() agrees.
inline std::string check(const CompiledSchema& schema, std::string_view instance) {
  rapidjson::Document doc = parse(instance);
  auto violations = schema.validate(doc);
  EXPECT_EQ(schema.accepts(doc), violations.empty()) << "accepts() disagrees for " << instance;
  return describe(violations);
}

}  // namespace mcpsh::schema::testing
