// Hostile schemas and instances: every bound in Limits holds, and exceeding one is an
// error or a violation, never a hang or a crash.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "test_util.h"

namespace mcpsh::schema::testing {
namespace {

std::string nested_properties(int levels) {
  std::string s;
  for (int i = 0; i < levels; ++i) s += R"({"properties": {"a": )";
  s += "{}";
  for (int i = 0; i < levels; ++i) s += "}}";
  return s;
}

std::string nested_arrays(int levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

// 2^levels paths: each level's anyOf tries both branches before failing.
std::string exponential_schema(int levels) {
  std::string defs;
  for (int i = 0; i < levels; ++i) {
    std::string next = "#/$defs/d" + std::to_string(i + 1);
    defs += "\"d" + std::to_string(i) + R"(": {"anyOf": [{"$ref": ")" + next + R"("}, {"$ref": ")" +
            next + R"("}]}, )";
  }
  defs += "\"d" + std::to_string(levels) + R"(": {"type": "string"})";
  return R"({"$defs": {)" + defs + R"(}, "$ref": "#/$defs/d0"})";
}

template <typename F>
double seconds(F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(Limits, SubschemaDepth) {
  Limits limits;
  limits.max_depth = 10;
  EXPECT_EQ(compile_error(nested_properties(5), limits), "(compiled)");
  std::string error = compile_error(nested_properties(11), limits);
  EXPECT_NE(error.find("schema nested too deeply (limit 10)"), std::string::npos) << error;
}

TEST(Limits, JsonDepthOfConstData) {
  std::string schema = R"({"const": )" + nested_arrays(400) + "}";
  EXPECT_EQ(compile_error(schema),
            "invalid schema: nested too deeply (more than 272 levels of JSON)");
}

TEST(Limits, DeeplyNestedTextDoesNotCrash) {
  EXPECT_NE(compile_error(nested_arrays(200000)), "(compiled)");
  rapidjson::Document deep = parse(nested_arrays(200000));
  auto result = CompiledSchema::compile(deep);
  ASSERT_TRUE(std::holds_alternative<std::string>(result));
}

TEST(Limits, SubschemaCount) {
  Limits limits;
  limits.max_subschemas = 10;
  std::string schema = R"({"properties": {)";
  for (int i = 0; i < 20; ++i) schema += (i ? ", " : "") + ("\"p" + std::to_string(i) + "\": {}");
  schema += "}}";
  EXPECT_EQ(compile_error(schema, limits), "schema too large: more than 10 subschemas");
  limits.max_subschemas = 21;
  EXPECT_EQ(compile_error(schema, limits), "(compiled)");
}

TEST(Limits, ViolationCap) {
  Limits limits;
  limits.max_violations = 5;
  auto schema = compile_or_die(R"({"items": {"type": "string"}})", limits);
  auto doc = parse("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
  auto violations = schema.validate(doc);
  ASSERT_EQ(violations.size(), 5u);
  EXPECT_EQ(violations[3].path, "[3]");
  EXPECT_EQ(violations[4].path, "");
  EXPECT_EQ(violations[4].message, "more violations not shown (only the first 4 are listed)");
  EXPECT_FALSE(schema.accepts(doc));
}

TEST(Limits, ExactlyAtTheCapIsNotTruncated) {
  Limits limits;
  limits.max_violations = 3;
  auto schema = compile_or_die(R"({"items": {"type": "string"}})", limits);
  auto violations = schema.validate(parse("[1, 2, 3]"));
  ASSERT_EQ(violations.size(), 3u);
  EXPECT_EQ(violations[2].path, "[2]");
}

TEST(Limits, StepBudgetStopsExponentialWork) {
  Limits limits;
  limits.max_steps = 100'000;  // the default 1'000'000 takes ~0.1 s (1.5 s under ASan)
  auto schema = compile_or_die(exponential_schema(40), limits);
  auto doc = parse("5");
  double took = seconds([&] {
    auto violations = schema.validate(doc);
    ASSERT_EQ(violations.size(), 1u);
    EXPECT_EQ(violations[0].path, "");
    EXPECT_EQ(violations[0].message, "schema too expensive to evaluate");
    EXPECT_FALSE(schema.accepts(doc));
  });
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(check(schema, R"("ok")"), "");  // short-circuits on the first branch
}

TEST(Limits, SmallBudget) {
  Limits limits;
  limits.max_steps = 50;
  auto schema = compile_or_die(R"({"items": {"type": "integer"}})", limits);
  EXPECT_EQ(check(schema, "[1, 2, 3]"), "");
  std::string big = "[";
  for (int i = 0; i < 100; ++i) big += (i ? ",1" : "1");
  big += "]";
  EXPECT_EQ(check(schema, big), "(root): schema too expensive to evaluate");
}

TEST(Limits, EvaluationDepthOnDeepInstance) {
  auto schema = compile_or_die(R"({"items": {"$ref": "#"}})");
  EXPECT_EQ(check(schema, nested_arrays(100)), "");
  EXPECT_EQ(check(schema, nested_arrays(100000)), "(root): schema too expensive to evaluate");
}

TEST(Limits, RecursionInPlaceIsRefusedAtCompileTime) {
  EXPECT_NE(
      compile_error(R"({"$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}},
                              "$ref": "#/$defs/a"})")
          .find("reference cycle"),
      std::string::npos);
}

TEST(Limits, CatastrophicPatternRunsInLinearTime) {
  auto schema = compile_or_die(R"({"pattern": "^(a+)+$"})");
  std::string subject = "\"" + std::string(20000, 'a') + "!\"";
  double took = seconds(
      [&] { EXPECT_EQ(check(schema, subject), R"((root): must match the pattern "^(a+)+$")"); });
  EXPECT_LT(took, 5.0);
}

TEST(Limits, LongStringAgainstPatternIsBudgeted) {
  Limits limits;
  limits.max_steps = 10000;
  auto schema = compile_or_die(R"({"pattern": "x(a|b|c|d)*y"})", limits);
  std::string subject = "\"" + std::string(100000, 'a') + "\"";
  EXPECT_EQ(check(schema, subject), "(root): schema too expensive to evaluate");
}

TEST(Limits, UniqueItemsOnLongArrayIsNotQuadratic) {
  auto schema = compile_or_die(R"({"uniqueItems": true})");
  std::string array = "[";
  for (int i = 0; i < 20000; ++i) array += (i ? "," : "") + std::to_string(i);
  array += "]";
  double took = seconds([&] { EXPECT_EQ(check(schema, array), ""); });
  EXPECT_LT(took, 5.0);
}

TEST(Limits, HugeRepetitionCountIsRefused) {
  EXPECT_NE(compile_error(R"({"pattern": "(a{1000}){1000}"})").find("pattern too complex"),
            std::string::npos);
}

}  // namespace
}  // namespace mcpsh::schema::testing
