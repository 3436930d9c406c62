// discovery::metadata_from_comments: the comment block above tool_<name> becomes its Tool.
#include "discovery/comment_metadata.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <vector>

namespace mcpsh::discovery {
namespace {

using Lines = std::vector<std::string>;

// Metadata of the function defined on the last line of `lines`.
CommentMetadata meta_of(const Lines& lines) {
  return metadata_from_comments("t", lines, static_cast<int>(lines.size()));
}

rapidjson::Document tool_of(const CommentMetadata& m) {
  rapidjson::Document d;
  d.Parse(m.definition_json.c_str());
  EXPECT_FALSE(d.HasParseError()) << m.definition_json;
  EXPECT_TRUE(d.IsObject()) << m.definition_json;
  return d;
}

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

// JSON equality (member order aside), printing both sides when they differ.
::testing::AssertionResult same_json(const rapidjson::Value& actual, const std::string& expected) {
  rapidjson::Document e;
  e.Parse(expected.c_str());
  if (e.HasParseError()) return ::testing::AssertionFailure() << "bad expected JSON: " << expected;
  if (actual == e) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << compact(actual) << "\nwanted " << expected;
}

std::string description_of(const Lines& lines) {
  auto m = meta_of(lines);
  EXPECT_TRUE(m.errors.empty()) << m.errors.front();
  auto d = tool_of(m);
  return d.HasMember("description") ? d["description"].GetString() : "<none>";
}

std::string all_errors(const CommentMetadata& m) {
  std::string s;
  for (const auto& e : m.errors) s += e + "\n";
  return s;
}

TEST(CommentMetadata, NoCommentGivesNameAndDefaultSchema) {
  auto m = meta_of({"x=1", "tool_t() { :; }"});
  EXPECT_TRUE(m.errors.empty());
  EXPECT_TRUE(same_json(tool_of(m), R"({"name":"t","inputSchema":{"type":"object"}})"));
  EXPECT_FALSE(m.timeout.has_value());
}

TEST(CommentMetadata, FunctionOnTheFirstLineHasNoComment) {
  auto m = metadata_from_comments("t", {"tool_t() { :; }"}, 1);
  EXPECT_TRUE(same_json(tool_of(m), R"({"name":"t","inputSchema":{"type":"object"}})"));
}

TEST(CommentMetadata, SingleLineDescription) {
  EXPECT_EQ(description_of({"# Says hi.", "tool_t() {"}), "Says hi.");
}

TEST(CommentMetadata, WrappedLinesAreJoinedWithASpace) {
  EXPECT_EQ(description_of({"# Book seats", "# for a showing.", "tool_t() {"}),
            "Book seats for a showing.");
}

TEST(CommentMetadata, EmptyCommentLineStartsANewLine) {
  EXPECT_EQ(description_of({"# First.", "#", "# Second", "# part.", "tool_t() {"}),
            "First.\nSecond part.");
}

TEST(CommentMetadata, LeadingEmptyCommentLinesAddNothing) {
  EXPECT_EQ(description_of({"#", "#", "# Text.", "tool_t() {"}), "Text.");
}

TEST(CommentMetadata, HashWithoutSpaceAndIndentation) {
  EXPECT_EQ(description_of({"#Tight.", "   # Indented.", "tool_t() {"}), "Tight. Indented.");
}

TEST(CommentMetadata, BlockEndsAtABlankLine) {
  EXPECT_EQ(description_of({"# File header.", "", "# The tool.", "tool_t() {"}), "The tool.");
}

TEST(CommentMetadata, BlockEndsAtCode) {
  EXPECT_EQ(description_of({"# About x.", "x=1", "# The tool.", "tool_t() {"}), "The tool.");
}

TEST(CommentMetadata, CommentSeparatedByBlankLineIsNotTheTools) {
  EXPECT_EQ(description_of({"# Not mine.", "", "tool_t() {"}), "<none>");
}

TEST(CommentMetadata, ShebangIsNotIncluded) {
  EXPECT_EQ(description_of({"#!/usr/bin/env bash", "# The tool.", "tool_t() {"}), "The tool.");
  EXPECT_EQ(description_of({"#!/usr/bin/env bash", "tool_t() {"}), "<none>");
}

TEST(CommentMetadata, ShellcheckDirectivesAreSkipped) {
  EXPECT_EQ(description_of({"# shellcheck disable=SC2034", "# The tool.",
                            "#  shellcheck source=x.sh", "tool_t() {"}),
            "The tool.");
}

TEST(CommentMetadata, Title) {
  auto d = tool_of(meta_of({"# Desc.", "# @title Book seats", "tool_t() {"}));
  EXPECT_STREQ(d["title"].GetString(), "Book seats");
  EXPECT_STREQ(d["description"].GetString(), "Desc.");
}

TEST(CommentMetadata, RequiredParam) {
  auto m = meta_of({"# @param filmId integer Film id from list_films", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(same_json(
      tool_of(m)["inputSchema"],
      R"({"type":"object","properties":{"filmId":{"type":"integer","description":"Film id from list_films"}},)"
      R"("required":["filmId"]})"));
}

TEST(CommentMetadata, OptionalParamIsNotRequired) {
  auto m = meta_of({"# @param note string? Free text", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(same_json(
      tool_of(m)["inputSchema"],
      R"({"type":"object","properties":{"note":{"type":"string","description":"Free text"}}})"));
}

TEST(CommentMetadata, ParamsKeepTheirOrderAndMix) {
  auto m = meta_of({"# Desc.", "# @param b string B", "# @param a number? A", "# @param c boolean",
                    "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  auto d = tool_of(m);
  auto it = d["inputSchema"]["properties"].MemberBegin();
  EXPECT_STREQ((it++)->name.GetString(), "b");
  EXPECT_STREQ((it++)->name.GetString(), "a");
  EXPECT_STREQ((it++)->name.GetString(), "c");
  EXPECT_TRUE(same_json(d["inputSchema"]["required"], R"(["b","c"])"));
  EXPECT_FALSE(d["inputSchema"]["properties"]["c"].HasMember("description"));
}

TEST(CommentMetadata, EveryParamTypeIsAccepted) {
  for (const char* type : {"string", "integer", "number", "boolean", "object", "array"}) {
    auto m = meta_of({std::string("# @param p ") + type + " P", "tool_t() {"});
    EXPECT_TRUE(m.errors.empty()) << type << ": " << all_errors(m);
    EXPECT_STREQ(tool_of(m)["inputSchema"]["properties"]["p"]["type"].GetString(), type);
  }
}

TEST(CommentMetadata, BadParamTypeIsAnErrorWithItsLine) {
  auto m = meta_of({"# Desc.", "# @param p str Some text", "tool_t() {"});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("line 2"), std::string::npos) << m.errors[0];
  EXPECT_NE(m.errors[0].find("@param"), std::string::npos) << m.errors[0];
}

TEST(CommentMetadata, ParamWithoutTypeIsAnError) {
  EXPECT_EQ(meta_of({"# @param p", "tool_t() {"}).errors.size(), 1u);
  EXPECT_EQ(meta_of({"# @param", "tool_t() {"}).errors.size(), 1u);
}

TEST(CommentMetadata, InputOnOneLine) {
  auto m = meta_of(
      {R"(# @input {"type":"object","properties":{"q":{"type":"string"}},"required":["q"]})",
       "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(
      same_json(tool_of(m)["inputSchema"],
                R"({"type":"object","properties":{"q":{"type":"string"}},"required":["q"]})"));
}

TEST(CommentMetadata, InputContinuesOnFollowingCommentLines) {
  auto m = meta_of({"# Search.", R"(# @input {"type": "object",)",
                    R"(#   "properties": {"q": {"type": "string"}},)",
                    R"(#   "additionalProperties": false})", "# @timeout 2", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  auto d = tool_of(m);
  EXPECT_TRUE(same_json(
      d["inputSchema"],
      R"({"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false})"));
  EXPECT_STREQ(d["description"].GetString(), "Search.");
  EXPECT_EQ(m.timeout, std::chrono::milliseconds(2000));
}

TEST(CommentMetadata, InputOverridesParams) {
  auto m = meta_of(
      {"# @param a string A", R"(# @input {"type":"object","properties":{"z":{}}})", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(same_json(tool_of(m)["inputSchema"], R"({"type":"object","properties":{"z":{}}})"));
}

TEST(CommentMetadata, InvalidInputJsonIsAnError) {
  auto m = meta_of({"# Desc.", R"(# @input {"type":)", "tool_t() {"});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("line 2"), std::string::npos) << m.errors[0];
  EXPECT_NE(m.errors[0].find("@input"), std::string::npos) << m.errors[0];
}

TEST(CommentMetadata, InputMustBeAnObject) {
  auto m = meta_of({R"(# @input ["type"])", "tool_t() {"});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("object"), std::string::npos) << m.errors[0];
}

TEST(CommentMetadata, Output) {
  auto m = meta_of(
      {R"(# @output {"type":"object","properties":{"n":{"type":"integer"}}})", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(same_json(tool_of(m)["outputSchema"],
                        R"({"type":"object","properties":{"n":{"type":"integer"}}})"));
}

TEST(CommentMetadata, MultiLineOutput) {
  auto m = meta_of({R"(# @output {"type":"object",)", R"(#   "required":["n"]})", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(same_json(tool_of(m)["outputSchema"], R"({"type":"object","required":["n"]})"));
}

TEST(CommentMetadata, Annotations) {
  auto m =
      meta_of({R"(# @annotations {"readOnlyHint": true, "openWorldHint": false})", "tool_t() {"});
  EXPECT_TRUE(m.errors.empty()) << all_errors(m);
  EXPECT_TRUE(
      same_json(tool_of(m)["annotations"], R"({"readOnlyHint":true,"openWorldHint":false})"));
}

TEST(CommentMetadata, TimeoutInSeconds) {
  EXPECT_EQ(meta_of({"# @timeout 30", "tool_t() {"}).timeout, std::chrono::milliseconds(30000));
  EXPECT_EQ(meta_of({"# @timeout 0.25", "tool_t() {"}).timeout, std::chrono::milliseconds(250));
}

TEST(CommentMetadata, BadTimeoutIsAnError) {
  for (const char* bad : {"abc", "0", "-1", "10s", "", "inf", "nan"}) {
    auto m = meta_of({std::string("# @timeout ") + bad, "tool_t() {"});
    EXPECT_EQ(m.errors.size(), 1u) << "@timeout " << bad;
    EXPECT_FALSE(m.timeout.has_value()) << "@timeout " << bad;
  }
}

TEST(CommentMetadata, TimeoutBeyondAYearIsAnError) {
  for (const char* huge : {"1e300", "1e19", "31536001"}) {
    auto m = meta_of({std::string("# @timeout ") + huge, "tool_t() {"});
    ASSERT_EQ(m.errors.size(), 1u) << "@timeout " << huge;
    EXPECT_NE(m.errors[0].find("at most 31536000 seconds"), std::string::npos) << m.errors[0];
    EXPECT_FALSE(m.timeout.has_value()) << "@timeout " << huge;
  }
  EXPECT_EQ(meta_of({"# @timeout 31536000", "tool_t() {"}).timeout,
            std::chrono::milliseconds(31536000000LL));
}

TEST(CommentMetadata, TaskTagSaysWhetherACallMayOrMustRunAsATask) {
  EXPECT_EQ(meta_of({"# Desc.", "tool_t() {"}).task, TaskSupport::kNone);
  for (const char* line : {"# @task", "# @task optional", "#   @task   optional  "}) {
    auto m = meta_of({"# Backs up.", line, "tool_t() {"});
    EXPECT_TRUE(m.errors.empty()) << line << ": " << all_errors(m);
    EXPECT_EQ(m.task, TaskSupport::kOptional) << line;
  }
  auto required = meta_of({"# Backs up.", "# @task required", "tool_t() {"});
  EXPECT_TRUE(required.errors.empty()) << all_errors(required);
  EXPECT_EQ(required.task, TaskSupport::kRequired);
  // The Tool object is the same either way: the extension has no per-tool field.
  EXPECT_TRUE(
      same_json(tool_of(required),
                R"({"name":"t","description":"Backs up.","inputSchema":{"type":"object"}})"));
}

TEST(CommentMetadata, BadTaskModeIsAnErrorWithItsLine) {
  for (const char* line : {"# @task bogus", "# @task Required", "# @task required optional"}) {
    auto m = meta_of({"# Desc.", line, "tool_t() {"});
    ASSERT_EQ(m.errors.size(), 1u) << line;
    EXPECT_NE(m.errors[0].find("line 2"), std::string::npos) << m.errors[0];
    EXPECT_NE(m.errors[0].find("@task"), std::string::npos) << m.errors[0];
    EXPECT_EQ(m.task, TaskSupport::kNone) << line;
  }
}

TEST(CommentMetadata, UnknownTagIsAnError) {
  auto m = meta_of({"# Desc.", "# @retries 3", "tool_t() {"});
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("@retries"), std::string::npos) << m.errors[0];
  EXPECT_NE(m.errors[0].find("line 2"), std::string::npos) << m.errors[0];
}

TEST(CommentMetadata, LineNumbersCountFromTheFileStart) {
  auto m =
      metadata_from_comments("t", {"#!/bin/bash", "", "x=1", "", "# @bogus", "tool_t() {", "}"}, 6);
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_NE(m.errors[0].find("line 5"), std::string::npos) << m.errors[0];
}

TEST(CommentMetadata, OnlyTheBlockAboveTheFunctionIsRead) {
  Lines lines = {"# First tool.",  "tool_a() { :; }",     "",
                 "# Second tool.", "# @param x string X", "tool_b() { :; }"};
  auto a = tool_of(metadata_from_comments("a", lines, 2));
  auto b = tool_of(metadata_from_comments("b", lines, 6));
  EXPECT_STREQ(a["description"].GetString(), "First tool.");
  EXPECT_TRUE(same_json(a["inputSchema"], R"({"type":"object"})"));
  EXPECT_STREQ(b["name"].GetString(), "b");
  EXPECT_STREQ(b["description"].GetString(), "Second tool.");
  EXPECT_TRUE(b["inputSchema"]["properties"].HasMember("x"));
}

}  // namespace
}  // namespace mcpsh::discovery
