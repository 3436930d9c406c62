// discovery::resource_from_comments and prompt_from_comments: the comment block above
// resource_<name> and prompt_<name> becomes the Resource, ResourceTemplate or Prompt.
#include "discovery/entry_metadata.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace mcpsh::discovery {
namespace {

using Lines = std::vector<std::string>;

ResourceMetadata resource_of(const Lines& lines) {
  return resource_from_comments("r", lines, static_cast<int>(lines.size()));
}
PromptMetadata prompt_of(const Lines& lines) {
  return prompt_from_comments("p", lines, static_cast<int>(lines.size()));
}

// JSON equality, member order aside.
::testing::AssertionResult same_json(const std::string& actual, const std::string& expected) {
  rapidjson::Document a, e;
  a.Parse(actual.c_str());
  e.Parse(expected.c_str());
  if (!a.HasParseError() && a == e) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "actual:   " << actual << "\nexpected: " << expected;
}

TEST(ResourceMetadata, FixedUriWithEveryTag) {
  auto m = resource_of({"# The project's README.", "# Kept short.", "# @uri docs://readme",
                        "# @title Read me", "# @mime text/markdown", "# @size 2048",
                        R"(# @annotations {"audience":["user"],"priority":0.5})", "# @timeout 2.5",
                        "resource_r() {"});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  EXPECT_FALSE(m.entry.is_template);
  EXPECT_EQ(m.entry.uri, "docs://readme");
  EXPECT_EQ(m.entry.mime, "text/markdown");
  ASSERT_TRUE(m.entry.timeout);
  EXPECT_EQ(m.entry.timeout->count(), 2500);
  EXPECT_TRUE(same_json(m.entry.definition_json,
                        R"({"uri":"docs://readme","name":"r","title":"Read me",
                            "description":"The project's README. Kept short.",
                            "mimeType":"text/markdown","size":2048,
                            "annotations":{"audience":["user"],"priority":0.5}})"));
}

TEST(ResourceMetadata, ATemplateIsListedAsAResourceTemplate) {
  auto m =
      resource_of({"# @uri users://{id}/profile", "# @mime application/json", "resource_r() {"});
  ASSERT_TRUE(m.errors.empty());
  EXPECT_TRUE(m.entry.is_template);
  EXPECT_TRUE(same_json(m.entry.definition_json,
                        R"({"uriTemplate":"users://{id}/profile","name":"r",
                            "mimeType":"application/json"})"));
}

TEST(ResourceMetadata, MistakesAreReportedWithTheirLines) {
  EXPECT_EQ(resource_of({"# no uri here", "resource_r() {"}).errors.size(), 1u);
  auto bad_uri = resource_of({"# @uri not a uri", "resource_r() {"});
  ASSERT_EQ(bad_uri.errors.size(), 1u);
  EXPECT_NE(bad_uri.errors[0].find("line 1: @uri"), std::string::npos) << bad_uri.errors[0];
  EXPECT_FALSE(resource_of({"# @uri docs://x", "# @size ten", "resource_r() {"}).errors.empty());
  EXPECT_FALSE(resource_of({"# @uri u://{x}", "# @size 10", "resource_r() {"}).errors.empty());
  EXPECT_FALSE(
      resource_of({"# @uri docs://x", "# @param a string", "resource_r() {"}).errors.empty());
  EXPECT_FALSE(
      resource_of({"# @uri docs://x", "# @annotations [1]", "resource_r() {"}).errors.empty());
  EXPECT_FALSE(resource_of({"# @uri docs://x", "# @timeout -1", "resource_r() {"}).errors.empty());
}

TEST(ResourceMetadata, PlausibleUris) {
  EXPECT_TRUE(plausible_uri("docs://readme"));
  EXPECT_TRUE(plausible_uri("file:///tmp/a%20b"));
  EXPECT_TRUE(plausible_uri("urn:isbn:0451450523"));
  EXPECT_FALSE(plausible_uri("readme"));
  EXPECT_FALSE(plausible_uri("://x"));
  EXPECT_FALSE(plausible_uri("1x://y"));
  EXPECT_FALSE(plausible_uri("docs://a b"));
  EXPECT_FALSE(plausible_uri(std::string("docs://a\0b", 10)));
}

TEST(PromptMetadata, ArgumentsRequiredAndOptional) {
  auto m = prompt_of({"# Review one file.", "# @title Code review", "# @arg path The file",
                      "# @arg focus? What to look at", "# @arg style ? House style", "# @arg bare",
                      "prompt_p() {"});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  ASSERT_EQ(m.entry.arguments.size(), 4u);
  EXPECT_TRUE(m.entry.arguments[0].required);
  EXPECT_FALSE(m.entry.arguments[1].required);
  EXPECT_FALSE(m.entry.arguments[2].required);
  EXPECT_TRUE(m.entry.arguments[3].required);
  EXPECT_TRUE(same_json(m.entry.definition_json,
                        R"({"name":"p","title":"Code review","description":"Review one file.",
                            "arguments":[
                              {"name":"path","description":"The file","required":true},
                              {"name":"focus","description":"What to look at","required":false},
                              {"name":"style","description":"House style","required":false},
                              {"name":"bare","required":true}]})"));
}

TEST(PromptMetadata, APromptWithoutArgumentsHasNoArgumentsMember) {
  auto m = prompt_of({"# Say hello.", "prompt_p() {"});
  ASSERT_TRUE(m.errors.empty());
  EXPECT_TRUE(same_json(m.entry.definition_json, R"({"name":"p","description":"Say hello."})"));
}

TEST(PromptMetadata, Mistakes) {
  EXPECT_FALSE(prompt_of({"# @arg", "prompt_p() {"}).errors.empty());
  EXPECT_FALSE(prompt_of({"# @arg a$b text", "prompt_p() {"}).errors.empty());
  EXPECT_FALSE(prompt_of({"# @arg a one", "# @arg a two", "prompt_p() {"}).errors.empty());
  EXPECT_FALSE(prompt_of({"# @uri docs://x", "prompt_p() {"}).errors.empty());
}

}  // namespace
}  // namespace mcpsh::discovery
