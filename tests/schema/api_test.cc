// The public contract: ownership, sharing, threads, dialects, and the metaschema.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

namespace mcpsh::schema::testing {
namespace {

TEST(Api, CompiledSchemaOwnsItsCopyOfTheSchema) {
  std::variant<CompiledSchema, std::string> result = std::string();
  {
    rapidjson::Document schema =
        parse(R"({"properties": {"a": {"const": "x"}}, "required": ["a"]})");
    result = CompiledSchema::compile(schema);
  }  // the source document is gone
  ASSERT_TRUE(std::holds_alternative<CompiledSchema>(result));
  const auto& schema = std::get<CompiledSchema>(result);
  EXPECT_EQ(check(schema, R"({"a": "x"})"), "");
  EXPECT_EQ(check(schema, R"({"a": "y"})"), R"(a: must be exactly "x")");
}

TEST(Api, CopiesShareAndOutliveTheOriginal) {
  auto copy = std::make_unique<CompiledSchema>(compile_or_die(R"({"type": "string"})"));
  CompiledSchema second = *copy;
  copy.reset();
  EXPECT_EQ(check(second, "1"), "(root): expected string, got integer 1");
}

TEST(Api, ConcurrentValidation) {
  auto schema = compile_or_die(R"({
    "type": "object",
    "properties": {"n": {"type": "integer", "maximum": 10}, "tags": {"items": {"type": "string"}}},
    "required": ["n"], "unevaluatedProperties": false})");
  rapidjson::Document good = parse(R"({"n": 3, "tags": ["a", "b"]})");
  rapidjson::Document bad = parse(R"({"n": 11, "tags": [1], "x": 0})");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        if (!schema.accepts(good) || !schema.validate(good).empty()) ++wrong;
        if (schema.accepts(bad) || schema.validate(bad).size() != 3) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Api, DefaultDialectCanBeDraft07) {
  auto result = CompiledSchema::compile_text(
      R"({"items": [{"type": "string"}], "additionalItems": false})", Limits{}, Dialect::kDraft07);
  ASSERT_TRUE(std::holds_alternative<CompiledSchema>(result));
  EXPECT_EQ(check(std::get<CompiledSchema>(result), R"(["a", 1])"),
            "(root): must have at most 1 item (got 2)");
}

TEST(Api, Draft07RefIgnoresSiblings) {
  auto schema = compile_or_die(R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 1})");
  EXPECT_EQ(check(schema, R"("long")"), "");
  EXPECT_EQ(check(schema, "1"), "(root): expected string, got integer 1");
}

TEST(Api, Draft07Dependencies) {
  auto schema = compile_or_die(R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "dependencies": {"a": ["b"], "c": {"required": ["d"]}}})");
  EXPECT_EQ(check(schema, R"({"a": 1, "c": 2})"),
            "(root): missing required property \"d\"\n"
            "(root): missing property \"b\", required when \"a\" is present");
}

TEST(Api, Draft201909RecursiveRef) {
  auto schema = compile_or_die(R"({"$schema": "https://json-schema.org/draft/2019-09/schema",
    "$recursiveAnchor": true, "type": "object",
    "additionalProperties": {"$recursiveRef": "#"}})");
  EXPECT_EQ(check(schema, R"({"a": {"b": {}}})"), "");
  EXPECT_EQ(check(schema, R"({"a": {"b": 1}})"), "a.b: expected object, got integer 1");
}

TEST(Api, ToolSchemasCanBeCheckedAgainstTheMetaschema) {
  auto meta = compile_or_die(R"({"$ref": "https://json-schema.org/draft/2020-12/schema"})");
  EXPECT_EQ(check(meta, R"({"type": "object", "properties": {"a": {"minLength": 1}}})"), "");
  std::string bad = check(meta, R"({"properties": {"a": {"minLength": -1}}})");
  EXPECT_NE(bad.find("properties.a.minLength: must be at least 0"), std::string::npos) << bad;
}

TEST(Api, DynamicRefExtendsARecursiveSchema) {
  auto schema = compile_or_die(R"({
    "$id": "https://example.com/strict-tree",
    "$dynamicAnchor": "node",
    "$ref": "tree",
    "unevaluatedProperties": false,
    "$defs": {"tree": {
      "$id": "tree", "$dynamicAnchor": "node", "type": "object",
      "properties": {"data": true, "children": {"type": "array", "items": {"$dynamicRef": "#node"}}}}}})");
  EXPECT_EQ(check(schema, R"({"children": [{"data": 1}]})"), "");
  EXPECT_EQ(check(schema, R"({"children": [{"daat": 1}]})"),
            R"(children[0]: unexpected property "daat")");
}

TEST(Api, EmbeddedResourcesResolveById) {
  auto schema = compile_or_die(R"({
    "$id": "https://example.com/root.json",
    "properties": {"when": {"$ref": "defs.json#time"}},
    "$defs": {"x": {"$id": "defs.json", "$defs": {"t": {"$anchor": "time", "pattern": "^\\d\\d:\\d\\d$"}}}}})");
  EXPECT_EQ(check(schema, R"({"when": "12:30"})"), "");
  EXPECT_EQ(check(schema, R"({"when": "noon"})"),
            R"(when: must match the pattern "^\\d\\d:\\d\\d$")");
}

}  // namespace
}  // namespace mcpsh::schema::testing
