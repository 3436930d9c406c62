// x-mcp-header annotations in an inputSchema: where they may sit, what they may say, and
// the property path each one mirrors.
#include "mcp/x_mcp_header.h"

#include <gtest/gtest.h>

namespace mcpsh::mcp {
namespace {

std::variant<std::vector<HeaderParam>, std::string> read(const std::string& schema) {
  rapidjson::Document d;
  d.Parse(schema.c_str());
  EXPECT_FALSE(d.HasParseError()) << schema;
  return read_header_params(d);
}

std::string error_of(const std::string& schema) {
  auto r = read(schema);
  auto* e = std::get_if<std::string>(&r);
  return e ? *e : "";
}

// {"type":"object","properties":{"p": <property>}}
std::string with_property(const std::string& property) {
  return R"({"type":"object","properties":{"p":)" + property + "}}";
}

TEST(XMcpHeader, ReadsEachAnnotationWithItsPath) {
  auto r = read(
      R"({"type":"object","properties":{)"
      R"("region":{"type":"string","x-mcp-header":"Region"},)"
      R"("n":{"type":"integer","x-mcp-header":"N"},)"
      R"("outer":{"type":"object","properties":{"flag":{"type":"boolean","x-mcp-header":"Flag"}}},)"
      R"("plain":{"type":"string"}}})");
  ASSERT_TRUE(std::holds_alternative<std::vector<HeaderParam>>(r)) << std::get<std::string>(r);
  const auto& params = std::get<std::vector<HeaderParam>>(r);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].name, "Region");
  EXPECT_EQ(params[0].path, std::vector<std::string>{"region"});
  EXPECT_EQ(params[2].name, "Flag");
  EXPECT_EQ(params[2].path, (std::vector<std::string>{"outer", "flag"}));
}

TEST(XMcpHeader, ASchemaWithoutAnnotationsHasNone) {
  auto r = read(R"({"type":"object","properties":{"a":{"type":"string"}}})");
  ASSERT_TRUE(std::holds_alternative<std::vector<HeaderParam>>(r));
  EXPECT_TRUE(std::get<std::vector<HeaderParam>>(r).empty());
}

TEST(XMcpHeader, NamesAreHttpTokens) {
  // http-invalid-tool-headers' cases.
  for (const char* name :
       {"", "My Region", "Region:Primary", "R\xc3\xa9gion", "Region\t1", "A\r\nB"}) {
    auto error = error_of(with_property(std::string(R"({"type":"string","x-mcp-header":")") +
                                        (std::string(name) == "Region\t1" ? "Region\\t1"
                                         : std::string(name) == "A\r\nB"  ? "A\\r\\nB"
                                                                          : name) +
                                        "\"}"));
    EXPECT_FALSE(error.empty()) << name;
  }
  EXPECT_FALSE(error_of(with_property(R"({"type":"string","x-mcp-header":7})")).empty());
  EXPECT_TRUE(error_of(with_property(R"({"type":"string","x-mcp-header":"A-b_c.d~!#$%&'*+^`|9"})"))
                  .empty());
}

TEST(XMcpHeader, OnlyStringIntegerAndBooleanPropertiesMayBeMirrored) {
  for (const char* type : {R"("object")", R"("array")", R"("null")", R"("number")",
                           R"(["string","integer"])", R"(["null"])"}) {
    auto error =
        error_of(with_property(std::string(R"({"type":)") + type + R"(,"x-mcp-header":"P"})"));
    EXPECT_NE(error.find("only a property of type string, integer or boolean"), std::string::npos)
        << type << ": " << error;
  }
  EXPECT_FALSE(error_of(with_property(R"({"x-mcp-header":"P"})")).empty()) << "no type";
  EXPECT_TRUE(error_of(with_property(R"({"type":["string","null"],"x-mcp-header":"P"})")).empty());
}

TEST(XMcpHeader, NamesAreUniqueIgnoringCase) {
  auto error = error_of(R"({"type":"object","properties":{)"
                        R"("a":{"type":"string","x-mcp-header":"MyField"},)"
                        R"("b":{"type":"string","x-mcp-header":"myfield"}}})");
  EXPECT_NE(error.find("repeats \"MyField\""), std::string::npos) << error;
}

TEST(XMcpHeader, OnlyPropertiesReachedThroughPropertiesAloneMayBeMirrored) {
  const char* placements[] = {
      R"({"type":"string","x-mcp-header":"Root"})",  // the root itself
      R"({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}})",
      R"({"type":"object","properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}})",
      R"({"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"a":{"$ref":"#/$defs/d"}}})",
      R"({"type":"object","if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}})",
      R"({"type":"object","patternProperties":{"^a":{"type":"string","x-mcp-header":"A"}}})",
      R"({"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}})",
      R"({"type":"object","properties":{"a":{"type":"object","allOf":[{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}]}}})",
  };
  for (const char* schema : placements) {
    auto error = error_of(schema);
    EXPECT_NE(error.find("not on a property reached from the root"), std::string::npos)
        << schema << ": " << error;
  }
}

TEST(XMcpHeader, DataKeywordsAreNotSearched) {
  // An enum value or a default that happens to hold the key is data, not an annotation.
  EXPECT_TRUE(error_of(with_property(R"({"type":"object","default":{"x-mcp-header":"X"},)"
                                     R"("enum":[{"x-mcp-header":"Y"}]})"))
                  .empty());
  // A property that is itself named x-mcp-header is a property.
  EXPECT_TRUE(
      error_of(R"({"type":"object","properties":{"x-mcp-header":{"type":"string"}}})").empty());
}

TEST(XMcpHeader, TheErrorSaysWhere) {
  auto error = error_of(R"({"type":"object","properties":{"a":{"type":"array","items":)"
                        R"({"type":"string","x-mcp-header":"A"}}}})");
  EXPECT_NE(error.find("/properties/a/items"), std::string::npos) << error;
}

}  // namespace
}  // namespace mcpsh::mcp
