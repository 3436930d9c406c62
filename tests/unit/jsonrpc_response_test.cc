// Serialization of outgoing JSON-RPC lines: ids echoed exactly, no "id" when there is none,
// one compact line per message.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/message.h"
#include "jsonrpc/response.h"

namespace mcpsh::jsonrpc {
namespace {

rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(ErrorLine, WithoutIdHasNoIdMember) {
  std::string line = error_line(std::nullopt, kParseError, "Parse error");
  auto d = parse_json(line);
  ASSERT_TRUE(d.IsObject());
  EXPECT_FALSE(d.HasMember("id")) << line;  // not even "id": null
  EXPECT_STREQ(d["jsonrpc"].GetString(), "2.0");
  EXPECT_EQ(d["error"]["code"].GetInt(), kParseError);
  EXPECT_STREQ(d["error"]["message"].GetString(), "Parse error");
  EXPECT_FALSE(d["error"].HasMember("data"));
}

TEST(ErrorLine, EchoesIntegerIdByteForByte) {
  std::string line = error_line(RequestId{"18446744073709551615"}, kInvalidParams, "m");
  EXPECT_NE(line.find(R"("id":18446744073709551615,)"), std::string::npos) << line;
}

TEST(ErrorLine, EchoesNegativeIdByteForByte) {
  std::string line = error_line(RequestId{"-9223372036854775808"}, kInvalidParams, "m");
  EXPECT_NE(line.find(R"("id":-9223372036854775808,)"), std::string::npos) << line;
}

TEST(ErrorLine, EchoesStringIdByteForByte) {
  std::string line = error_line(RequestId{R"("a\"b")"}, kMethodNotFound, "m");
  EXPECT_NE(line.find(R"("id":"a\"b",)"), std::string::npos) << line;
  EXPECT_STREQ(parse_json(line)["id"].GetString(), "a\"b");
}

TEST(ErrorLine, CarriesData) {
  rapidjson::Document data;
  data.Parse(R"({"requested":"1999-01-01","supported":["2026-07-28"]})");
  std::string line = error_line(RequestId{"1"}, kUnsupportedProtocolVersion, "Unsupported", &data);
  auto d = parse_json(line);
  EXPECT_STREQ(d["error"]["data"]["requested"].GetString(), "1999-01-01");
  EXPECT_STREQ(d["error"]["data"]["supported"][0].GetString(), "2026-07-28");
}

TEST(ErrorLine, MessageWithControlCharactersStaysOneLine) {
  std::string line = error_line(RequestId{"1"}, kInvalidParams, "two\nlines\r\tand a \x01");
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line.find('\r'), std::string::npos) << line;
  EXPECT_STREQ(parse_json(line)["error"]["message"].GetString(), "two\nlines\r\tand a \x01");
}

TEST(ResultLine, RawSplicesTheResultExactly) {
  EXPECT_EQ(result_line_raw(RequestId{"7"}, R"({"x":1})"),
            R"({"jsonrpc":"2.0","id":7,"result":{"x":1}})");
  EXPECT_EQ(result_line_raw(RequestId{R"("s")"}, "{}"),
            R"({"jsonrpc":"2.0","id":"s","result":{}})");
}

TEST(ResultLine, SerializesAValueCompactly) {
  rapidjson::Document result;
  result.Parse(R"({ "content" : [ {"type":"text", "text":"a\nb"} ] })");
  std::string line = result_line(RequestId{"9007199254740993"}, result);
  EXPECT_EQ(
      line,
      R"({"jsonrpc":"2.0","id":9007199254740993,"result":{"content":[{"type":"text","text":"a\nb"}]}})");
}

TEST(NotificationLine, HasMethodAndParamsButNoId) {
  rapidjson::Document params;
  params.Parse(R"({"progressToken":"t","progress":1})");
  std::string line = notification_line("notifications/progress", params);
  auto d = parse_json(line);
  EXPECT_FALSE(d.HasMember("id"));
  EXPECT_STREQ(d["method"].GetString(), "notifications/progress");
  EXPECT_EQ(d["params"]["progress"].GetInt(), 1);
}

TEST(PrettyJson, IndentsAndKeepsTheValue) {
  std::string pretty = pretty_json(R"({"a":[1,{"b":"c"}]})");
  EXPECT_NE(pretty.find('\n'), std::string::npos);
  auto d = parse_json(pretty);
  EXPECT_STREQ(d["a"][1]["b"].GetString(), "c");
}

}  // namespace
}  // namespace mcpsh::jsonrpc
